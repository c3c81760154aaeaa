"""Fixtures of the page tests: a published alpha-beta set with one variant per student, and
a headless Chromium (one per test module) with factories of browser contexts and pages."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

import pytest

from tests.browser import DESKTOP, TIMEOUT_MS, launched_chromium
from tests.conftest import wait_until

REQUESTS_FINISH_WITHIN_SECONDS = 30
"""How long a closed page's last requests may take (a long-poll answers within its wait)."""

ALPHABETA_PARAMS = {
    "depth": 2, "min_branching": 3, "max_branching": 3, "max_leaves": 9,
    "min_value": 0, "max_value": 20, "min_cuts": 1, "ask_windows": 1,
}


def publish_now(problem_set: Any) -> Any:
    """Generate every enrolled student's variant in this process (no worker needed)."""
    from exercises.models import ProblemSet
    from exercises.selectors import students_missing_variants
    from exercises.services import generate_variants

    missing = students_missing_variants(problem_set)
    ProblemSet.objects.filter(pk=problem_set.pk).update(
        status=ProblemSet.Status.GENERATING, progress_total=len(missing)
    )
    generate_variants(problem_set.pk, missing)
    problem_set.refresh_from_db()
    return problem_set


def make_problem_set(instructor: Any, course: Any, **settings: Any) -> Any:
    """Create a one-item alpha-beta problem set through exercises' service."""
    from exercises.services import create_problem_set

    return create_problem_set(
        creator=instructor, course=course, title="Week 3: alpha-beta", seed="pages-tests",
        items=[{"kind": "alphabeta", "params": ALPHABETA_PARAMS, "points": Decimal(4)}],
        **settings,
    )


@pytest.fixture
def alphabeta_set(instructor: Any, student: Any, other_student: Any, course: Any) -> Any:
    """Return a published one-item alpha-beta set (variants for both students)."""
    return publish_now(make_problem_set(instructor[0], course))


def variant_of_user(problem_set: Any, user: Any) -> Any:
    """Return ``user``'s variant of ``problem_set``."""
    return problem_set.variants.get(student=user)


def code_set_variant(instructor: Any, course: Any, student: Any, *kinds: str,
                     title: str = "Code") -> Any:
    """Return ``student``'s variant of a published set of code items of ``kinds``, 3 points
    each, in that order."""
    from exercises.services import create_problem_set

    problem_set = publish_now(create_problem_set(
        creator=instructor, course=course, title=title, seed="code",
        items=[{"kind": kind, "params": {}, "points": Decimal(3)} for kind in kinds],
    ))
    return variant_of_user(problem_set, student)


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """Start one headless Chromium for the module."""
    with launched_chromium() as browser:
        yield browser


@pytest.fixture
def new_context(chromium: Any, request: pytest.FixtureRequest) -> Iterator[Callable[..., Any]]:
    """Return a factory of browser contexts (each its own session, like another device), a
    desktop viewport unless Playwright's context ``options`` say otherwise."""
    contexts = []
    # Counted from the start: a closed page may leave a request in flight (a draft's
    # autosave, a long-poll), which must end before the test database is flushed, or the
    # flush deadlocks with it.
    serving = (serving_counter(request.getfixturevalue("live_server"))
               if "live_server" in request.fixturenames else None)

    def make(**options: Any) -> Any:
        context = chromium.new_context(**{"viewport": DESKTOP, **options})
        context.set_default_timeout(TIMEOUT_MS)
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()
    if serving is not None:
        wait_until(serving.idle, timeout=REQUESTS_FINISH_WITHIN_SECONDS)


class ServingCounter:
    """Count the live server's connections being served (one thread each)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._serving = 0

    def serve(self, process: Callable[..., None], *args: Any) -> None:
        """Serve one connection with ``process``, counted while it runs."""
        with self._lock:
            self._serving += 1
        try:
            process(*args)
        finally:
            with self._lock:
                self._serving -= 1

    def idle(self) -> bool:
        """Return whether no connection is being served."""
        with self._lock:
            return self._serving == 0


def serving_counter(live_server: Any) -> ServingCounter:
    """Return the counter of ``live_server``'s connections, installed on first use."""
    httpd = live_server.thread.httpd
    counter: ServingCounter | None = getattr(httpd, "cutoff_serving", None)
    if counter is None:
        counter = ServingCounter()
        process = httpd.process_request_thread
        httpd.process_request_thread = lambda *args: counter.serve(process, *args)
        httpd.cutoff_serving = counter
    return counter


@pytest.fixture
def new_page(new_context: Callable[..., Any]) -> Callable[[], Any]:
    """Return a factory of pages, each in its own browser context (its own session)."""
    return lambda: new_context().new_page()
