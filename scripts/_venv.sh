# Sourced by scripts/run and scripts/test: make .venv match requirements.lock (idempotent).
# Needs only python3 (3.11) with venv; `apt-get install -y python3-venv` on a bare Debian.
set -euo pipefail
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "cutoff: creating .venv with $($PYTHON --version)"
  "$PYTHON" -m venv .venv
fi
want=$(sha256sum requirements.lock | cut -d' ' -f1)
if [ "$(cat .venv/.requirements.sha 2>/dev/null || true)" != "$want" ]; then
  echo "cutoff: installing pinned requirements into .venv"
  .venv/bin/pip install --disable-pip-version-check -q -r requirements.lock
  echo "$want" > .venv/.requirements.sha
fi
