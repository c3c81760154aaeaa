"""Django's PostgreSQL backend with a health check that costs no round trip on a quiet
connection (see :mod:`config.postgresql.base`)."""
