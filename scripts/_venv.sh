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
# The interop tests' group (Open edX's LTI platform code): its own file and stamp, so it is
# installed once and a change to either lock reinstalls only what changed.
want_interop=$(cat requirements.lock requirements-interop.lock | sha256sum | cut -d' ' -f1)
if [ "$(cat .venv/.requirements-interop.sha 2>/dev/null || true)" != "$want_interop" ]; then
  echo "cutoff: installing the interop test requirements into .venv"
  .venv/bin/pip install --disable-pip-version-check -q -r requirements-interop.lock \
    -c requirements.lock
  echo "$want_interop" > .venv/.requirements-interop.sha
fi
