"""Feedback of code tests as data (a code and its parameters), rendered in the reader's language.

Reports store messages as ``{"code", "params"}`` like typed answers' feedback
(:func:`grading.feedback.message`), so a stored report can be shown in any language and read
by machines; :func:`render_tests` adds each message's text when the API shows it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from grading.code.reference import explain
from grading.feedback_policy import WITHHELD_MESSAGES
from grading.wording import Plural, template_text

MESSAGES: dict[str, Any] = {
    # How a run ended (grading.sandbox.RUN_ENDINGS; "run_ended" is the English text that
    # reports stored before the endings had codes carry).
    "run_ended": _("%(detail)s"),
    "run_returned": _("Your code returned normally."),
    "run_not_started": _("The sandbox could not start your code: %(detail)s"),
    "run_out_of_memory": _("Your code ran out of memory (the limit is %(limit_bytes)s bytes)."),
    "run_raised": _("Your code raised %(exception)s."),
    "run_memory_killed": _("Your code was stopped for using more than its %(limit_bytes)s "
                           "bytes of memory."),
    "run_cpu_limit": _("Your code used more than its %(seconds)s s of CPU time."),
    "run_wall_limit": _("Your code ran longer than its %(seconds)s s limit."),
    "run_time_budget": _("Your code was stopped when your submission used up the %(seconds)s s "
                         "all its tests may take together."),
    "run_host_busy": _("The grading machine was too busy to time your code fairly; this run "
                       "does not count."),
    "run_killed_by_host": _("Your code was stopped by the grading machine (%(signal)s), not by "
                            "one of its limits; this run does not count."),
    "run_crashed": _("Your code crashed with %(signal)s."),
    "run_crashed_deep_recursion": _("Your code crashed with %(signal)s (for example, recursion "
                                    "too deep)."),
    "run_no_result": _("Your code exited (status %(status)s) without returning a result."),
    "run_output_limit": _("Your code wrote more than %(limit_bytes)s bytes to %(stream)s."),
    "run_too_many_calls": _("Your code made more than %(limit)s game calls."),
    "run_protocol_violation": _("Your code broke the sandbox's protocol: %(detail)s"),
    "run_game_failure": _("The game failed on our side: %(detail)s"),
    "not_run": _("Not run: your submission used up the %(seconds)s s all its tests may take "
                 "together."),
    "return_shape": _("Return (action, value), not %(returned)s."),
    "value_not_number": _("The value must be a number, not %(returned)s."),
    "move_not_offered": _("You returned the move %(move)s without the game having offered it: "
                          "ask game.actions(state) for the root and search the moves it "
                          "gives."),
    "evaluated_differs": _("Your %(nth)s evaluated state was %(yours)s; the reference "
                           "evaluates %(reference)s there."),
    "evaluated_too_few": Plural(
        "You evaluated %(count)s state; the reference goes on to evaluate %(reference)s.",
        "You evaluated %(count)s states; the reference goes on to evaluate %(reference)s.",
        "count",
    ),
    "evaluated_too_many": Plural(
        "The reference stops after %(count)s evaluation; your %(nth)s evaluated state, "
        "%(yours)s, is one too many.",
        "The reference stops after %(count)s evaluations; your %(nth)s evaluated state, "
        "%(yours)s, is one too many.",
        "count",
    ),
    "generated_extra": _("You generated %(states)s, which the reference never generates "
                         "(pruned or beyond the depth limit)."),
    "generated_missing": _("You never generated %(states)s, which the reference generates."),
    "decision_differs": _("Your decision was %(yours)s; the reference decides %(reference)s."),
    "value_differs": _("Your value was %(yours)s; the reference's is %(reference)s."),
    "matches_misconception": _("Your search matches a known mistake: %(explanation)s"),
    "selection_differs": _("You selected %(yours)s (UCB1 %(your_score)s); UCB1 selects "
                           "%(reference)s (%(reference_score)s)."),
    "selection_not_offered": _("You returned %(returned)s without the game having offered it: "
                               "return one of game.actions(state)."),
    "backprop_shape": Plural(
        "Return one [reward, visits] pair per node on the path (%(count)s pair), not "
        "%(returned)s.",
        "Return one [reward, visits] pair per node on the path (%(count)s pairs), not "
        "%(returned)s.",
        "count",
    ),
    "backprop_differs": _("The %(nth)s node on the path, %(node)s, has reward %(yours)s and "
                          "%(your_visits)s visits in your answer; the reference gives it "
                          "reward %(reference)s and %(reference_visits)s visits."),
    "agent_move_not_offered": _("Your agent returned %(move)s without the game having offered "
                                "it in that position: choose among game.actions(state)."),
    "agent_moves_missing": _("Your agent's moves did not come back."),
    "never_lost": _("Never lost: %(asked)s positions asked, %(finished)s games played to the "
                    "end."),
    "agent_lost": _("Your agent loses the game %(moves)s (squares 0-8, row by row), ending "
                    "%(board)s."),
    "series_won": _("As %(side)s your agent won: %(moves)s (1-based columns)."),
    "series_drew": _("As %(side)s your agent drew: %(moves)s (1-based columns)."),
    "series_lost": _("As %(side)s your agent lost: %(moves)s (1-based columns)."),
    "series_stopped": _("As %(side)s your agent's game stopped after %(moves)s (1-based "
                        "columns), when its run failed in that position:"),
    "series_stopped_first": _("As %(side)s your agent's game stopped at its first move, when "
                              "its run failed:"),
}
"""Message code → its text, with ``%(name)s`` parameters."""

VERDICT_LABELS: dict[str, Any] = {
    "passed": _("passed"),
    "wrong": _("wrong"),
    "runtime_error": _("runtime error"),
    "time_limit": _("time limit exceeded"),
    "memory_limit": _("memory limit exceeded"),
    "output_limit": _("output limit exceeded"),
    "illegal_operation": _("illegal operation"),
    "sandbox_error": _("sandbox error"),
}
"""A test's verdict → the label shown to students (the stored verdict stays the code)."""


def verdict_label(verdict: str) -> str:
    """Return a test verdict's label in the active language (unknown verdicts as they are)."""
    label = VERDICT_LABELS.get(verdict)
    return verdict if label is None else str(label)


def message(code: str, **params: Any) -> dict[str, Any]:
    """Return a message as data: its code and its named parameters (JSON values)."""
    return {"code": code, "params": params}


def misconception_messages(codes: list[str]) -> list[dict[str, Any]]:
    """Return the message naming the misconception a test's answer matches, when only one
    does: where several mistakes give the same answer on a test, naming one is a guess."""
    return [message("matches_misconception", misconception=codes[0])] if len(codes) == 1 else []


def shown(value: Any) -> str:
    """Return ``value`` as feedback quotes it: its repr, cut to 60 characters."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def ordinal(n: int) -> str:
    """Return ``n`` as an ordinal in the active language.

    English 1st, 2nd, 3rd, 4th, 11th, 21st…; Portuguese 1.º, 2.º…; Catalan (masculine, as
    for "estat") 1r, 2n, 3r, 4t, 5è…
    """
    language = (get_language() or "en").split("-")[0]
    if language == "pt":
        return f"{n}.º"
    if language == "ca":
        return str(n) + {1: "r", 2: "n", 3: "r", 4: "t"}.get(n, "è")
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def render_message(data: Mapping[str, Any]) -> str:
    """Return one message in the active language (unknown codes show the code)."""
    code = str(data.get("code", ""))
    template = MESSAGES.get(code) or WITHHELD_MESSAGES.get(code)
    if template is None:
        return str(data.get("code", ""))
    params = dict(data.get("params") or {})
    if "n" in params:
        params["nth"] = ordinal(int(params["n"]))
    if "misconception" in params:
        params["explanation"] = explain(str(params["misconception"]))
    try:
        return template_text(template, params) % params
    except (KeyError, TypeError, ValueError):
        return str(data.get("code", ""))


TEST_NAMES: tuple[tuple[re.Pattern[str], Any], ...] = tuple(
    (re.compile(pattern), text) for pattern, text in (
        (r"textbook tree", _("textbook tree")),
        (r"three-ply tree", _("three-ply tree")),
        (r"extra-move tree", _("extra-move tree")),
        (r"chance tree", _("chance tree")),
        (r"a path where MIN wins", _("a path where MIN wins")),
        (r"a drawn game", _("a drawn game")),
        (r"a child never visited", _("a child never visited")),
        (r"your tree (?P<number>\d+)", _("your tree %(number)s")),
        (r"your node (?P<number>\d+)", _("your node %(number)s")),
        (r"your path (?P<number>\d+)", _("your path %(number)s")),
        (r"tic-tac-toe (?P<board>\S+), (?P<player>\w) to move",
         _("tic-tac-toe %(board)s, %(player)s to move")),
        (r"Connect Four after (?P<opening>\d*) \(1-based columns\), (?P<player>\w) to move",
         _("Connect Four after %(opening)s (1-based columns), %(player)s to move")),
        (r"Connect Four vs random player", _("Connect Four vs random player")),
        (r"Connect Four vs depth-2 searcher", _("Connect Four vs depth-2 searcher")),
        (r"tic-tac-toe agent as (?P<player>\w), against every opponent",
         _("tic-tac-toe agent as %(player)s, against every opponent")),
    )
)
"""How the code graders name their tests (grading.code.cases, agents, selection, backprop),
with the name in the reader's language; reports store the English name."""


def test_label(name: str) -> str:
    """Return a stored test name in the active language (as stored when it is not known)."""
    for pattern, text in TEST_NAMES:
        found = pattern.fullmatch(name)
        if found:
            # Lazy texts translate when made strings, in the language active now.
            return str(text) % found.groupdict() if found.groupdict() else str(text)
    return name


def render_tests(
    tests: Sequence[Mapping[str, Any]], *, verdict_labels: bool = False
) -> list[dict[str, Any]]:
    """Return test reports with the test's name (``test_label``) and every message's text
    rendered in the active language.

    With ``verdict_labels`` each report also gets ``verdict_label`` (pages show it; the API
    keeps to the verdict codes).
    """
    rendered = []
    for test in tests:
        out = {**test, "test_label": test_label(str(test.get("test", ""))),
               "messages": [{**msg, "text": render_message(msg)}
                            for msg in test.get("messages", [])]}
        if verdict_labels:
            out["verdict_label"] = verdict_label(str(test.get("verdict", "")))
        rendered.append(out)
    return rendered
