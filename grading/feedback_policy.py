"""Serve feedback under the problem set's feedback policy, so it never gives the key away.

Grading always stores a submission's full feedback (``Submission.results``): regrades and
instructors read it unchanged. What a student is shown is decided here, when results are
served (the REST API, the pages, webhook events), by the set's ``feedback_policy``
(``ProblemSet.FeedbackPolicy``), the instructor's choice:

* ``full`` — everything grading wrote (the expected values still only once the answers are
  visible).
* ``verdicts`` (the default) — which parts are right (verdict, points), the first wrong step
  and the misconception, but no value, list or count read off the key. Messages that quote
  the reference search (a window, the cutoff that skips a leaf, the reference's decision or
  value on a hidden code test, how many cutoffs it makes) are replaced by *withheld*
  variants (code ``<code>_withheld``) keeping only the parameters taken from the student's
  own answer; ``trace_step`` (an index into the reference trace) is left out, a number
  close to the key reads as any wrong number (:data:`CLOSE_BUT_INEXACT`), and which entries
  of a part are wrong (asked nodes' values, table cells, the listed cutoffs whose skipped
  children are wrong) goes unsaid beyond the first wrong step; a set scored all-or-nothing
  is said to be not exact, not whether names are missing or extra, and gets no first wrong
  step (which names a leaf listed or left out wrongly). Messages of
  codes not listed in :data:`SAFE_MESSAGES` or :data:`WITHHELD_PARAMS` are left out too, so
  a new message never leaks by default: classify it here.
* ``score_only`` — the score alone: no per-part results, no test reports, no summary.

What no policy hides is the score itself, the student's grade. A code test's partial score
weighs the shares of the reference's generated states and evaluation order that the run
matched, so with the student's own counts it tells the reference's. ``verdicts`` keeps each
test's score all the same: the total, their mean, would tell it whenever one test alone is
partly right. It withholds the shares (:func:`true_or_false`) and every message naming a
count, so the counts cost the student arithmetic and attempts, not a glance.

The policy applies while the answers are hidden: until the due date passes or every item's
last attempt is used (:func:`grading.selectors.answers_visible`, which also decides when
``expected`` is shown). From then on, and for the course's instructors at any time, feedback
is served ``full``.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from django.utils.translation import gettext_lazy as _

from exercises.models import ProblemSet
from grading.scoring import as_written
from grading.wording import Plural

FULL = ProblemSet.FeedbackPolicy.FULL.value
VERDICTS = ProblemSet.FeedbackPolicy.VERDICTS.value
SCORE_ONLY = ProblemSet.FeedbackPolicy.SCORE_ONLY.value

WITHHELD = "_withheld"
"""Suffix of a message code whose reference values were removed."""

SAFE_MESSAGES = frozenset({
    # Typed answers (grading.feedback): parameters come from the student's answer or from
    # what the problem shows (asked nodes, the tree, its probabilities).
    "part_missing", "value_wrong", "name_wrong", "vector_wrong",
    "sequence_diverges", "sequence_too_short", "node_values_missing",
    "node_values_extra", "cutoff_wrong_node",
    "pruned_first_child", "node_value_leaf",
    # Code tests (grading.code.feedback): how the student's own run went, what it returned,
    # the misconception it matches, and games played against the grader's opponents.
    "run_ended", "run_returned", "run_not_started", "run_out_of_memory", "run_raised",
    "run_memory_killed", "run_cpu_limit", "run_wall_limit", "run_time_budget",
    "run_host_busy", "run_killed_by_host", "run_crashed",
    "run_crashed_deep_recursion", "run_no_result", "run_output_limit", "run_too_many_calls",
    "run_protocol_violation", "run_game_failure", "not_run", "return_shape",
    "value_not_number", "move_not_offered", "matches_misconception",
    "selection_not_offered", "backprop_shape", "agent_move_not_offered",
    "agent_moves_missing", "never_lost", "agent_lost", "series_won", "series_drew",
    "series_lost", "series_stopped", "series_stopped_first",
})
"""Message codes whose parameters never carry a value of the key: served as they are."""

CLOSE_BUT_INEXACT = frozenset({"value_inexact", "node_values_inexact", "records_inexact"})
"""Message codes saying a number is close to the key but not exact: that tells how near the
key lies (within one unit of the answer's last decimal), so under ``verdicts`` a close number
is served as any wrong one is (``value_wrong``), and the close entries of a list, already
named among its wrong ones, go unsaid. The part's label still says it wants exact values."""

WITHHELD_PARAMS: Mapping[str, tuple[str, tuple[str, ...]]] = {
    # code quoting the key → (withheld code, parameters kept: the student's own)
    "set_missing": ("set_missing", ()),
    # Naming the listed names that are wrong hands over the key to an answer listing every
    # name: the key is what is not named.
    "set_extra": ("set_extra", ()),
    "set_not_exact": ("set_not_exact", ()),  # either of the two, all-or-nothing (not_exact)
    # Only a listed cutoff matched to a real one gets these, so naming its node, or whether
    # it lists too many children or too few, would tell which listed cutoffs are right.
    "cutoff_pruned_extra": ("cutoff_pruned", ()),
    "cutoff_pruned_missing": ("cutoff_pruned", ()),
    "cutoff_wrong_pruned": ("cutoff_pruned", ()),  # results graded before those two
    "sequence_too_long": ("sequence_too_long", ()),
    "cutoff_count": ("cutoff_count", ("given",)),
    # Which of the asked nodes (cells) are wrong is checked against the key entry by entry:
    # an answer guessing every entry at once would learn them all in a few attempts.
    "node_values_wrong": ("node_values_wrong", ()),
    "records_wrong": ("records_wrong", ()),
    "pruned_too_early_min": ("pruned_too_early", ("pruned",)),
    "pruned_too_early_max": ("pruned_too_early", ("pruned",)),
    "pruned_too_early_min_strict": ("pruned_too_early", ("pruned",)),
    "pruned_too_early_max_strict": ("pruned_too_early", ("pruned",)),
    "pruned_too_early_chance": ("pruned_too_early", ("pruned",)),
    "pruned_too_early_chance_strict": ("pruned_too_early", ("pruned",)),
    # The leaf is one the student left out of the pruned ones: naming it would hand over the
    # key's list one leaf per attempt.
    "missed_cutoff": ("missed_cutoff", ()),
    "missed_cutoff_chance_upper": ("missed_cutoff", ()),
    "missed_cutoff_chance_lower": ("missed_cutoff", ()),
    "node_value_max": ("node_value_max", ("node", "given")),
    "node_value_min": ("node_value_min", ("node", "given")),
    "node_value_chance": ("node_value_chance", ("node", "given", "probabilities")),
    # Whether a bounded chance node cuts is part of the key: one withheld text for all.
    "node_value_chance_bounded": ("node_value_chance_bounded", ("node", "given")),
    "node_value_chance_cut_upper": ("node_value_chance_bounded", ("node", "given")),
    "node_value_chance_cut_lower": ("node_value_chance_bounded", ("node", "given")),
    "evaluated_differs": ("evaluated_differs", ("n", "yours")),
    # Its position is the reference's count plus one, and the extra states are the pruned.
    "evaluated_too_many": ("evaluated_too_many", ()),
    "generated_extra": ("generated_extra", ()),
    "evaluated_too_few": ("evaluated_too_few", ("count",)),
    "generated_missing": ("generated_missing", ()),
    "decision_differs": ("decision_differs", ("yours",)),
    "value_differs": ("value_differs", ("yours",)),
    "selection_differs": ("selection_differs", ("yours",)),
    "backprop_differs": ("backprop_differs", ("n", "node", "yours", "your_visits")),
}
"""Message codes quoting the key or the reference search, and what is left of them."""

WITHHELD_MESSAGES: Mapping[str, Any] = {
    "set_missing_withheld": _("Some names are missing from your answer."),
    "set_extra_withheld": _("Some names in your answer should not be included."),
    "set_not_exact_withheld": _(
        "These are not exactly the right names; the part is scored all or nothing."
    ),
    "cutoff_pruned_withheld": _(
        "At some of your cutoffs, the children you list as skipped are not the ones the "
        "search skips."
    ),
    "sequence_too_long_withheld": _("Your list goes on too long."),
    "cutoff_count_withheld": Plural("The search does not make %(given)s cutoff.",
                                    "The search does not make %(given)s cutoffs.", "given"),
    "node_values_wrong_withheld": _("Some of these values are wrong."),
    "records_wrong_withheld": _("Some of these entries are wrong."),
    "pruned_too_early_withheld": _("You pruned %(pruned)s, but the search does not skip it."),
    "missed_cutoff_withheld": _("A cutoff skips a leaf you evaluated."),
    "node_value_max_withheld": _(
        "%(node)s is a MAX node: its value is the largest of its children's values, not "
        "%(given)s."
    ),
    "node_value_min_withheld": _(
        "%(node)s is a MIN node: its value is the smallest of its children's values, not "
        "%(given)s."
    ),
    "node_value_chance_withheld": _(
        "%(node)s is a chance node: its value is the average of its children's values "
        "weighted by their probabilities (%(probabilities)s), not %(given)s."
    ),
    "node_value_chance_bounded_withheld": _(
        "%(node)s is a chance node: it returns the average of its children's values weighted "
        "by their probabilities when it searches every outcome, and the bound that justified "
        "its cutoff when it stops early; not %(given)s."
    ),
    "evaluated_differs_withheld": _(
        "Your %(nth)s evaluated state, %(yours)s, is not the one the reference evaluates "
        "there."
    ),
    "evaluated_too_few_withheld": Plural(
        "You evaluated %(count)s state; the reference goes on to evaluate more.",
        "You evaluated %(count)s states; the reference goes on to evaluate more.", "count",
    ),
    "evaluated_too_many_withheld": _(
        "Your search goes on evaluating states after the reference has stopped."
    ),
    "generated_extra_withheld": _(
        "You generated some states the reference never generates (pruned or beyond the "
        "depth limit)."
    ),
    "generated_missing_withheld": _(
        "Your search never generates some states the reference generates."
    ),
    "decision_differs_withheld": _("Your decision %(yours)s is not the reference's."),
    "value_differs_withheld": _("Your value %(yours)s is not the reference's."),
    "selection_differs_withheld": _("You selected %(yours)s; UCB1 selects another child."),
    "backprop_differs_withheld": _(
        "The %(nth)s node on the path, %(node)s, has reward %(yours)s and %(your_visits)s "
        "visits in your answer; the reference's differ."
    ),
}
"""Withheld message code → its text (rendered like the others, in the reader's language)."""


RESULT_FIELDS = ("part", "type", "verdict", "points", "max_points", "misconception")
"""What ``verdicts`` keeps of a typed part's result besides its messages (the rest, such as
``expected`` or anything grading adds later, waits until the answers are visible)."""

TEST_FIELDS = ("test", "verdict", "score", "max_score", "misconceptions", "traceback")
"""What ``verdicts`` keeps of a code test's report besides its messages and its checks (only
the true/false ones)."""


def policy_in_force(problem_set: ProblemSet, *, answers_visible: bool, instructor: bool) -> str:
    """Return the policy feedback is served under: the set's while a student's answers are
    hidden, ``full`` once they are visible and for the course's instructors."""
    if instructor or answers_visible:
        return FULL
    return str(problem_set.feedback_policy)


def withheld_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Return ``messages`` without a value of the key: safe ones as they are, those quoting
    the key as their withheld variant, a close number as a wrong one (:data:`CLOSE_BUT_INEXACT`),
    any other left out."""
    served = []
    for message in messages:
        code = str(message.get("code", ""))
        params = message.get("params") or {}
        if code in SAFE_MESSAGES:
            served.append({"code": code, "params": dict(params)})
        elif code == "value_inexact":
            served.append({"code": "value_wrong",
                           "params": {"given": as_written(params.get("given", ""))}})
        elif code in WITHHELD_PARAMS:
            withheld, kept = WITHHELD_PARAMS[code]
            shown = {"code": withheld + WITHHELD,
                     "params": {name: params[name] for name in kept if name in params}}
            # Said once: how many cutoffs list wrong children is not for the answer to count.
            if shown not in served:
                served.append(shown)
    return served


def served_results(
    results: Sequence[Mapping[str, Any]], policy: str, *, all_or_nothing: Collection[str],
) -> list[dict[str, Any]]:
    """Return a typed submission's stored part results as ``policy`` lets a student see them.

    ``full`` changes nothing (``expected`` is dropped later unless answers are visible).
    ``all_or_nothing`` names the item's set parts scored all-or-nothing
    (:func:`grading.grader.all_or_nothing_sets`).
    """
    if policy == FULL:
        return [dict(result) for result in results]
    if policy == SCORE_ONLY:
        return []
    return [
        {
            **{key: result[key] for key in RESULT_FIELDS if key in result},
            "messages": withheld_messages(
                not_exact(result.get("messages") or []) if result.get("part") in all_or_nothing
                else result.get("messages") or []),
            "trace_step": None,
        }
        for result in results
    ]


SET_SIZE_MESSAGES = frozenset({"set_missing", "set_extra"})
"""Messages saying whether a set lacks names or has too many."""

LEAF_STEP_MESSAGES = frozenset({
    "pruned_first_child", "pruned_too_early_max", "pruned_too_early_min",
    "pruned_too_early_max_strict", "pruned_too_early_min_strict", "pruned_too_early_chance",
    "pruned_too_early_chance_strict", "missed_cutoff", "missed_cutoff_chance_upper",
    "missed_cutoff_chance_lower",
})
"""First wrong steps of a leaf set (grading.feedback.pruning_step): each says a leaf is
listed wrongly or left out wrongly, so it tells missing from extra too."""


def not_exact(messages: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Return an all-or-nothing set's messages with "names are missing" and "names should not
    be included" said as one "not exact", and without the first wrong step.

    Its points say only whether the set is exact; telling missing from extra as well, or
    that one leaf is listed (or left out) wrongly, would let answers test whether a guess is
    within the key, or holds it, each attempt.
    """
    said: list[Mapping[str, Any]] = []
    for message in messages:
        if message.get("code") in LEAF_STEP_MESSAGES:
            continue
        if message.get("code") not in SET_SIZE_MESSAGES:
            said.append(message)
        elif {"code": "set_not_exact", "params": {}} not in said:
            said.append({"code": "set_not_exact", "params": {}})
    return said


def served_tests(tests: Sequence[Mapping[str, Any]], policy: str) -> list[dict[str, Any]]:
    """Return a code submission's stored test reports as ``policy`` lets a student see them."""
    if policy == FULL:
        return [dict(test) for test in tests]
    if policy == SCORE_ONLY:
        return []
    return [
        {
            **{key: test[key] for key in TEST_FIELDS if key in test},
            **({"checks": true_or_false(test["checks"])} if "checks" in test else {}),
            "messages": withheld_messages(test.get("messages") or []),
        }
        for test in tests
    ]


def true_or_false(checks: Mapping[str, Any]) -> dict[str, Any]:
    """Return a test's checks without its shares: how much of the generated set or the
    evaluation order matched is a fraction of the reference's counts."""
    return {name: value for name, value in checks.items() if isinstance(value, bool)}

FEEDBACK_POLICY_HELP = (
    "feedback students see while their answers are hidden (attempts left, before the due "
    "date): full (every message, as graded), verdicts (which parts are right, the first wrong "
    "step and the misconception; never a value, list or count from the key; default) or "
    "score_only (the score alone). Instructors always see full feedback, and so does "
    "everyone once the answers are visible."
)
"""The feedback policy as the API documents it."""

FEEDBACK_POLICY_SERVED_HELP = (
    "the feedback policy this feedback is served under: the problem set's while the answers "
    "are hidden from the student, full once they are visible and for instructors"
)
"""A served submission's ``feedback_policy`` as the API documents it."""
