"""A real headless Chromium (/usr/bin/chromium, driven by Playwright) for the browser tests:
the pages' (fixtures in tests/pages/conftest.py) and the LTI framed launches'."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.conftest import require

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
TIMEOUT_MS = 30_000
DESKTOP = {"width": 1280, "height": 900}
"""The viewport of a browser context unless a test asks for another."""
ASYNC_UNSAFE = "DJANGO_ALLOW_ASYNC_UNSAFE"


@contextmanager
def launched_chromium(*extra_args: str) -> Iterator[Any]:
    """Start a headless Chromium with ``extra_args`` after the usual ones; close it on exit."""
    require(CHROMIUM.exists(), f"Chromium is not installed at {CHROMIUM}")
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop running in this thread; the test's own ORM
    # calls are still synchronous, so Django's async-safety guard must not refuse them.
    previous = os.environ.get(ASYNC_UNSAFE)
    os.environ[ASYNC_UNSAFE] = "true"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=str(CHROMIUM), args=[*CHROMIUM_ARGS, *extra_args]
            )
            try:
                yield browser
            finally:
                browser.close()
    finally:
        if previous is None:
            os.environ.pop(ASYNC_UNSAFE, None)
        else:
            os.environ[ASYNC_UNSAFE] = previous
