"""The cookie-less framed launch in a real headless Chromium: an LMS course page on
127.0.0.1 (the platform simulator) frames Cutoff (the live server, on ``localhost``: another
site) with third-party cookies blocked, and answers the LTI client-side postMessage storage
messages (``lti.put_data`` / ``lti.get_data``) as Moodle 4.x (``_parent``) and Canvas (a
named ``post_message_forwarding`` frame) do.

Cutoff's login page keeps the state's proof in the platform's storage and the launch page
reads it back, so the launch succeeds without a cookie; a platform that never answers gets
the "open in a new window" link, which launches in a top-level window; and a refused launch
is a 4xx page Chromium shows inside the frame.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from html import escape
from typing import Any
from urllib.parse import urlencode, urlparse

import pytest

from tests.browser import TIMEOUT_MS, launched_chromium
from tests.lms.simulator import PlatformSimulator
from tests.lms.test_launch import bind_link

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Chromium's third-party cookie phase-out: the frame's cookies are blocked because the test
# asks for it, not by whatever this Chromium's defaults are (each test also checks that the
# framed Cutoff kept no cookie).
BLOCK_THIRD_PARTY_COOKIES = "--test-third-party-cookie-phaseout"
# Every frame in the page's renderer process: with site isolation, the tool's frame moves to
# a process of its own at each cross-site navigation, and under load Playwright now and then
# missed such a move (the frame's URL stayed the platform's /auth while Cutoff had served the
# launch, and the launch page was on screen). Cookies, storage and postMessage keep their
# per-site rules without it: those are the browser's policy, not its process layout.
ONE_RENDERER_PROCESS = ("--disable-site-isolation-trials",
                        "--disable-features=IsolateOrigins,site-per-process")

# The platform's side of the LTI client-side postMessage storage: answer put_data and
# get_data from the tool's origin, replying to the frame that asked. ``answer`` false plays a
# platform that offers the storage target but never replies; ``tamper`` one that hands back
# something else than what was stored.
STORAGE_SCRIPT = """
<script>
(function () {
  var store = {};
  var behaviour = %s;
  window.addEventListener("message", function (event) {
    var message = event.data || {};
    if (!behaviour.answer || typeof message.subject !== "string") { return; }
    var key = event.origin + " " + message.key;
    var reply = {message_id: message.message_id, key: message.key};
    if (message.subject === "lti.put_data") {
      store[key] = message.value;
      reply.subject = "lti.put_data.response";
      reply.value = message.value;
    } else if (message.subject === "lti.get_data") {
      reply.subject = "lti.get_data.response";
      reply.value = behaviour.tamper ? "not-the-proof" : store[key];
    } else { return; }
    event.source.postMessage(reply, event.origin);
  });
})();
</script>
"""


@pytest.fixture(scope="module")
def chromium_blocking_cookies() -> Iterator[Any]:
    """Start one headless Chromium that blocks third-party cookies."""
    with launched_chromium(BLOCK_THIRD_PARTY_COOKIES, *ONE_RENDERER_PROCESS) as browser:
        yield browser


@pytest.fixture
def lms_context(chromium_blocking_cookies: Any) -> Iterator[Any]:
    """Return a fresh browser context (no cookies yet)."""
    context = chromium_blocking_cookies.new_context(viewport={"width": 1100, "height": 800})
    context.set_default_timeout(TIMEOUT_MS)
    yield context
    context.close()


def serve_course_page(
    simulator: PlatformSimulator,
    cutoff: str,
    custom: dict[str, str],
    *,
    storage_target: str | None,
    answer: bool = True,
    tamper: bool = False,
) -> str:
    """Serve the LMS's course page framing Cutoff's login initiation, and the LMS's
    authorization endpoint; return the course page's URL."""
    behaviour = json.dumps({"answer": answer, "tamper": tamper})
    login = {
        "iss": simulator.issuer,
        "client_id": simulator.client_id,
        "login_hint": "learner-1",
        "target_link_uri": f"{cutoff}/lti/launch/",
        "lti_message_hint": "hint-1",
        "lti_deployment_id": simulator.deployment_id,
    }
    if storage_target is not None:
        login["lti_storage_target"] = storage_target
    tool_url = f"{cutoff}/lti/login/?{urlencode(login)}"
    # The tool's frame is added once the platform's storage listens, so the tool's first
    # message cannot reach a frame still loading.
    show_tool = (
        "<script>function showTool() {"
        "var frame = document.createElement('iframe');"
        "frame.id = 'tool'; frame.title = 'Cutoff'; frame.width = 1000; frame.height = 600;"
        f"frame.src = {json.dumps(tool_url)}; document.body.appendChild(frame);"
        "}</script>"
    )
    if storage_target == "post_message_forwarding":
        storage = (
            '<iframe name="post_message_forwarding" src="/storage" hidden '
            'onload="showTool()"></iframe>'
        )
    else:
        own = STORAGE_SCRIPT % behaviour if storage_target == "_parent" else ""
        storage = f"{own}<script>showTool();</script>"

    def course_page(query: dict[str, str]) -> str:
        return (
            "<!doctype html><html lang='en'><head><title>LMS course</title></head><body>"
            f"<h1>Artificial Intelligence</h1>{show_tool}{storage}</body></html>"
        )

    def storage_frame(query: dict[str, str]) -> str:
        return f"<!doctype html><html><body>{STORAGE_SCRIPT % behaviour}</body></html>"

    def authorize(query: dict[str, str]) -> str:
        """Sign the launch for the tool's authentication request and auto-post it to the
        redirect URI, with the storage target (as the postMessage storage spec has it)."""
        claims = simulator.launch_claims(
            nonce=query["nonce"], subject=query["login_hint"], roles=["Learner"],
            custom=custom, target_link_uri=f"{cutoff}/lti/launch/",
        )
        fields = {"id_token": simulator.sign(claims), "state": query["state"]}
        if storage_target is not None:
            fields["lti_storage_target"] = storage_target
        inputs = "".join(
            f'<input type="hidden" name="{escape(name)}" value="{escape(value)}">'
            for name, value in fields.items()
        )
        return (
            "<!doctype html><html><body>"
            f'<form id="launch" method="post" action="{escape(query["redirect_uri"])}">'
            f"{inputs}</form><script>document.getElementById('launch').submit();</script>"
            "</body></html>"
        )

    simulator.pages.update({"/course": course_page, "/storage": storage_frame,
                            "/auth": authorize})
    return simulator.url("/course")


def tool_frame(page: Any, path: str) -> Any:
    """Return the frame of ``page`` showing Cutoff's ``path``, once there is one.

    Looked up among the page's frames rather than through a frame locator on the iframe
    element, which now and then kept resolving to the frame's first document after its
    cross-site navigations (the launch page was shown, the locator never found it).
    Polled rather than awaited as a ``framenavigated`` event: a navigation that finished
    between a look at the frames and the start of that wait was never seen again.
    """
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while True:
        for frame in page.frames:
            if urlparse(frame.url).path == path:
                return frame
        if time.monotonic() > deadline:
            raise AssertionError(f"no frame shows {path}: {[frame.url for frame in page.frames]}")
        page.wait_for_timeout(50)  # lets Playwright take in the page's events meanwhile


def launch_statuses(watched: Any) -> list[int]:
    """Collect the statuses of Cutoff's launch responses seen by ``watched`` (a page or a
    browser context) into the list returned."""
    statuses: list[int] = []
    watched.on(
        "response",
        lambda response: statuses.append(response.status)
        if response.url.endswith("/lti/launch/") else None,
    )
    return statuses


@pytest.mark.parametrize("storage_target", ["_parent", "post_message_forwarding"])
def test_a_framed_launch_without_third_party_cookies_succeeds_through_platform_storage(
    live_server: Any, simulator: PlatformSimulator, platform: Any, instructor: Any,
    lms_context: Any, storage_target: str,
) -> None:
    link = bind_link(platform, simulator, instructor[0])
    page = lms_context.new_page()
    statuses = launch_statuses(page)
    page.goto(serve_course_page(
        simulator, live_server.url, link["custom"], storage_target=storage_target
    ))
    tool_frame(page, "/lti/launch/").get_by_text("Minimax quiz").first.wait_for()
    # The launch was posted twice: the first answer is the page reading the proof back
    # from the platform, the second the launch itself.
    assert statuses == [200, 200]
    assert not [c for c in lms_context.cookies() if c["domain"] == "localhost"]


def test_a_platform_that_never_answers_gets_a_working_new_window_link(
    live_server: Any, simulator: PlatformSimulator, platform: Any, instructor: Any,
    lms_context: Any,
) -> None:
    link = bind_link(platform, simulator, instructor[0])
    page = lms_context.new_page()
    page.goto(serve_course_page(
        simulator, live_server.url, link["custom"], storage_target="_parent", answer=False
    ))
    new_window = tool_frame(page, "/lti/login/").get_by_role(
        "link", name="Open Cutoff in a new window"
    )
    new_window.wait_for()
    statuses = launch_statuses(lms_context)
    with lms_context.expect_page() as opened:
        new_window.click()
    window = opened.value
    window.get_by_text("Minimax quiz").first.wait_for()
    assert statuses == [200]


def test_a_refused_framed_launch_is_a_4xx_page_shown_in_the_frame(
    live_server: Any, simulator: PlatformSimulator, platform: Any, instructor: Any,
    lms_context: Any,
) -> None:
    link = bind_link(platform, simulator, instructor[0])
    page = lms_context.new_page()
    statuses = launch_statuses(page)
    page.goto(serve_course_page(
        simulator, live_server.url, link["custom"], storage_target="_parent", tamper=True
    ))
    frame = tool_frame(page, "/lti/launch/")
    frame.get_by_text("storage did not hold this launch's proof").wait_for()
    assert statuses == [200, 403]
    assert not [c for c in lms_context.cookies() if c["domain"] == "localhost"]
