# One image for web, worker and sandbox-worker; the command differs per compose service.
FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 DJANGO_SETTINGS_MODULE=config.settings.production
# bubblewrap + util-linux (setpriv, prlimit) and Debian's python3 run the sandbox;
# the sandbox uids (60000-60031) must be able to read /usr/bin/python3's standard library.
RUN apt-get update && apt-get install -y --no-install-recommends \
        bubblewrap util-linux python3 libpq5 curl \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY requirements.lock .
RUN pip install --no-cache-dir -r requirements.lock
COPY . .
RUN SECRET_KEY=build DATABASE_URL=sqlite:////tmp/build.db REDIS_URL=redis://localhost \
    python manage.py collectstatic --noinput
RUN useradd --system --uid 1000 cutoff && mkdir -p /app/var && chown cutoff /app/var
USER cutoff
EXPOSE 8000
CMD ["gunicorn", "-c", "config/gunicorn.py", "config.wsgi:application"]
