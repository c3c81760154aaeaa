"""The feedback policy: while answers are hidden, feedback served to students names no value,
list or count from the key (REST, pages, webhooks); once visible, it is full again."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone, translation

from exercises.models import ProblemSet, VariantItem
from grading.code.feedback import MESSAGES as CODE_MESSAGES
from grading.feedback import MESSAGES
from grading.feedback_policy import (
    CLOSE_BUT_INEXACT,
    SAFE_MESSAGES,
    WITHHELD_MESSAGES,
    WITHHELD_PARAMS,
)
from grading.models import Submission
from grading.scoring import format_number
from grading.webhooks import submission_event_data
from tests.grading.conftest import (
    ALPHABETA_PROBLEM,
    MINIMAX_PROBLEM,
    give_variant,
    make_problem_set,
)

pytestmark = pytest.mark.django_db

TOKEN = re.compile(r"-?[\w/]+|∞")
# An empty first attempt (the issue's): nothing pruned, no cutoff, values far off the key.
EMPTY_ALPHABETA = {"value": 99, "move": "D", "evaluated_count": 0, "pruned_leaves": [],
                   "cutoffs": [], "windows": {"C": {"alpha": -50, "beta": 50}}}
# Prunes where the search does not, and cuts at the wrong node.
WRONG_PRUNING = {"value": 99, "move": "D", "evaluated_count": 4, "pruned_leaves": ["B2", "D3"],
                 "cutoffs": [{"node": "D", "pruned": ["D3"]}],
                 "windows": {"C": {"alpha": -50, "beta": 50}}}
WRONG_NODE_VALUES = {"value": 99, "move": "D", "node_values": {"B": 50, "C": 40}}


def atoms(value: Any, *, with_names: bool, with_lengths: bool = True) -> set[str]:
    """Return every value of an answer (or key), list length and (if asked) mapping key, as
    feedback could spell them."""
    found: set[str] = set()
    if isinstance(value, Mapping):
        for name, entry in value.items():
            if with_names:
                found.add(str(name))
            found |= atoms(entry, with_names=with_names, with_lengths=with_lengths)
    elif isinstance(value, list | tuple):
        if with_lengths:
            found.add(str(len(value)))
        for entry in value:
            found |= atoms(entry, with_names=with_names, with_lengths=with_lengths)
    elif value is not None:
        found |= {str(value), format_number(value)}
    return found


def secrets_of(variant_item: VariantItem, answer: Mapping[str, Any]) -> set[str]:
    """Return what of the key the student did not write and the problem does not show.

    Mapping keys of the key (asked node names, record fields) are public: the prompt asks them.
    """
    asked = atoms(variant_item.problem.get("ask") or {}, with_names=True, with_lengths=False)
    given = atoms(dict(answer), with_names=True)
    return atoms(variant_item.answer_key, with_names=False) - given - asked


def template_tokens(code: str) -> set[str]:
    """Return the words a message's own template writes (not its parameters)."""
    template = MESSAGES.get(code) or CODE_MESSAGES.get(code) or WITHHELD_MESSAGES.get(code)
    return set(TOKEN.findall(re.sub(r"%\(\w+\)s", " ", str(template or ""))))


def param_atoms(value: Any) -> set[str]:
    """Return a message parameter's atoms (strings that join names are split back)."""
    if isinstance(value, Mapping):
        return atoms(value, with_names=True)
    if isinstance(value, list | tuple):  # names the student's answer lists, not a count
        return set().union(*(param_atoms(entry) for entry in value))
    return {str(value), *(part.strip() for part in str(value).split(","))}


def leaks(messages: Iterable[Mapping[str, Any]], secrets: set[str]) -> list[tuple[str, str]]:
    """Return (message code, secret) for every secret a message's params or text show."""
    found = []
    for message in messages:
        code = str(message["code"])
        shown = set()
        for value in (message.get("params") or {}).values():
            shown |= param_atoms(value)
        shown |= set(TOKEN.findall(message.get("text", ""))) - template_tokens(code)
        found += [(code, secret) for secret in sorted(shown & secrets)]
    return found


def every_message(results: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [message for result in results for message in result.get("messages", [])]


@pytest.fixture
def graded(celery_eager: None, django_capture_on_commit_callbacks: Any) -> Any:
    """Submit ``answer`` to item 1 of ``variant`` as ``client``, graded inline; return the
    submission as the API then shows it."""

    def submit(client: Any, variant: Any, answer: Any) -> dict[str, Any]:
        url = f"/api/v1/assignments/{variant.pk}/items/1/submissions/"
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(url, {"answer": answer}, format="json")
        assert response.status_code == 202, response.content
        detail = client.get(f"/api/v1/submissions/{response.json()['id']}/")
        assert detail.status_code == 200 and detail.json()["status"] == "graded"
        return dict(detail.json())

    return submit


def hidden_set(course: Any, instructor: Any, student: Any, kind: str, problem: dict[str, Any],
               policy: str | None) -> Any:
    """Return the student's variant of a set with attempts left and the due date ahead."""
    settings: dict[str, Any] = {"max_attempts": 3, "due_at": timezone.now() + timedelta(days=1)}
    if policy is not None:
        settings["feedback_policy"] = policy
    problem_set = make_problem_set(course, instructor[0], [(kind, {}, "6")], **settings)
    return give_variant(problem_set, student[0], [problem])


CASES = [("alphabeta", ALPHABETA_PROBLEM, EMPTY_ALPHABETA),
         ("alphabeta", ALPHABETA_PROBLEM, WRONG_PRUNING),
         ("minimax", MINIMAX_PROBLEM, WRONG_NODE_VALUES)]


@pytest.mark.parametrize(("kind", "problem", "answer"), CASES)
def test_the_checker_finds_the_key_in_full_feedback(
    course: Any, instructor: Any, student: Any, graded: Any,
    kind: str, problem: dict[str, Any], answer: dict[str, Any],
) -> None:
    variant = hidden_set(course, instructor, student, kind, problem, "full")
    detail = graded(student[1], variant, answer)
    assert detail["feedback_policy"] == "full"
    secrets = secrets_of(VariantItem.objects.get(variant=variant), answer)
    assert leaks(every_message(detail["results"]), secrets)


@pytest.mark.parametrize(("kind", "problem", "answer"), CASES)
def test_verdicts_by_default_name_no_value_of_the_key(
    course: Any, instructor: Any, student: Any, graded: Any,
    kind: str, problem: dict[str, Any], answer: dict[str, Any],
) -> None:
    variant = hidden_set(course, instructor, student, kind, problem, None)
    assert variant.problem_set.feedback_policy == "verdicts"
    variant_item = VariantItem.objects.get(variant=variant)
    secrets = secrets_of(variant_item, answer)
    submission_id = graded(student[1], variant, answer)["id"]
    for lang in ("en", "pt", "ca"):
        detail = student[1].get(f"/api/v1/submissions/{submission_id}/",
                                HTTP_ACCEPT_LANGUAGE=lang).json()
        assert detail["feedback_policy"] == "verdicts" and not detail["answers_visible"]
        with translation.override(lang):
            assert leaks(every_message(detail["results"]), secrets) == []
        for result in detail["results"]:
            assert "expected" not in result and result["trace_step"] is None
            assert result["verdict"] in ("correct", "partial", "wrong", "missing")
            assert all(message["text"] != message["code"] for message in result["messages"])
    assert any(result["messages"] for result in detail["results"])
    stored = Submission.objects.get(pk=submission_id).results
    assert any("expected" in result for result in stored)  # kept whole for regrades


def test_score_only_shows_the_score_alone(
    course: Any, instructor: Any, student: Any, graded: Any,
) -> None:
    variant = hidden_set(course, instructor, student, "alphabeta", ALPHABETA_PROBLEM,
                         "score_only")
    detail = graded(student[1], variant, EMPTY_ALPHABETA)
    assert detail["feedback_policy"] == "score_only"
    assert detail["results"] == [] and detail["score"] is not None


@pytest.mark.parametrize("reader", ["instructor", "grader"])
def test_instructors_and_graders_read_the_full_feedback(
    course: Any, instructor: Any, student: Any, graded: Any, reader: str,
) -> None:
    from accounts.models import Enrollment, Role
    from tests.conftest import make_account

    client = instructor[1]
    if reader == "grader":
        grader, client = make_account("gil", "student")
        Enrollment.objects.create(user=grader, course=course, role=Role.GRADER)
    variant = hidden_set(course, instructor, student, "alphabeta", ALPHABETA_PROBLEM, None)
    detail = graded(student[1], variant, EMPTY_ALPHABETA)
    assert detail["feedback_policy"] == "verdicts"
    seen = client.get(f"/api/v1/submissions/{detail['id']}/").json()
    assert seen["feedback_policy"] == "full"
    codes = {message["code"] for message in every_message(seen["results"])}
    assert "missed_cutoff" in codes and "cutoff_count" in codes


def test_answers_show_in_full_once_the_last_attempt_is_used(
    course: Any, instructor: Any, student: Any, graded: Any,
) -> None:
    variant = hidden_set(course, instructor, student, "alphabeta", ALPHABETA_PROBLEM, None)
    ProblemSet.objects.filter(pk=variant.problem_set_id).update(max_attempts=1)
    detail = graded(student[1], variant, EMPTY_ALPHABETA)
    assert detail["answers_visible"] and detail["feedback_policy"] == "full"
    pruned = next(p for p in detail["results"] if p["part"] == "pruned_leaves")
    assert pruned["expected"] == ["C2", "C3"]
    assert "missed_cutoff" in {message["code"] for message in pruned["messages"]}


def test_answers_show_in_full_once_the_due_date_passes(
    course: Any, instructor: Any, student: Any, graded: Any,
) -> None:
    variant = hidden_set(course, instructor, student, "alphabeta", ALPHABETA_PROBLEM,
                         "score_only")
    detail = graded(student[1], variant, EMPTY_ALPHABETA)
    ProblemSet.objects.filter(pk=variant.problem_set_id).update(
        due_at=timezone.now() - timedelta(minutes=1))
    after = student[1].get(f"/api/v1/submissions/{detail['id']}/").json()
    assert after["answers_visible"] and after["feedback_policy"] == "full"
    cutoffs = next(p for p in after["results"] if p["part"] == "cutoffs")
    # A cut at a node's last child skips nothing and is in the key as optional.
    assert [c for c in cutoffs["expected"] if not c.get("optional")] == [
        {"node": "C", "pruned": ["C2", "C3"]}
    ]


def test_webhook_events_carry_what_the_student_is_served(
    course: Any, instructor: Any, student: Any, graded: Any,
) -> None:
    variant = hidden_set(course, instructor, student, "alphabeta", ALPHABETA_PROBLEM, None)
    detail = graded(student[1], variant, EMPTY_ALPHABETA)
    data = submission_event_data(Submission.objects.get(pk=detail["id"]))
    assert data["feedback_policy"] == "verdicts"
    secrets = secrets_of(VariantItem.objects.get(variant=variant), EMPTY_ALPHABETA)
    assert leaks(every_message(data["results"]), secrets) == []
    assert all("expected" not in result for result in data["results"])


def test_the_policy_is_shown_to_students_and_chosen_by_instructors(
    course: Any, instructor: Any, student: Any, celery_eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    _, client = instructor
    body = {"course": course.pk, "title": "t", "items": [{"kind": "minimax"}],
            "feedback_policy": "score_only"}
    created = client.post("/api/v1/problem-sets/", body, format="json")
    assert created.status_code == 201 and created.json()["feedback_policy"] == "score_only"
    refused = client.post("/api/v1/problem-sets/", {**body, "feedback_policy": "keys"},
                          format="json")
    assert refused.status_code == 400 and "feedback_policy" in refused.json()["error"]["details"]
    del body["feedback_policy"]
    assert client.post("/api/v1/problem-sets/", body, format="json").json()[
        "feedback_policy"] == "verdicts"
    body["feedback_policy"] = "score_only"
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/api/v1/problem-sets/{created.json()['id']}/publish/")
    listed = student[1].get("/api/v1/assignments/").json()
    assert [a["feedback_policy"] for a in listed] == ["score_only"]
    shown = student[1].get(f"/api/v1/assignments/{listed[0]['id']}/").json()
    assert shown["feedback_policy"] == "score_only"


def test_every_message_code_is_classified() -> None:
    # A new message must be classified, or verdicts feedback leaves it out.
    assert set(MESSAGES) | set(CODE_MESSAGES) <= (SAFE_MESSAGES | set(WITHHELD_PARAMS)
                                                  | CLOSE_BUT_INEXACT)
    assert not CLOSE_BUT_INEXACT & (SAFE_MESSAGES | set(WITHHELD_PARAMS))
    assert {withheld + "_withheld" for withheld, _ in WITHHELD_PARAMS.values()} == set(
        WITHHELD_MESSAGES)


def copied_from_feedback(results: Iterable[Mapping[str, Any]], tree: set[str],
                         answer: dict[str, Any]) -> dict[str, Any]:
    """Return the next answer of a student who only copies what feedback names: every cutoff
    a message describes, and the leaves it says are skipped."""
    cutoffs = list(answer["cutoffs"])
    pruned = set(answer["pruned_leaves"])
    for message in every_message(results):
        params = message.get("params") or {}
        skipped = [name for name in params.get("pruned") or [] if name in tree]
        if isinstance(params.get("pruned"), list) and params.get("node") in tree:
            cut = {"node": params["node"], "pruned": skipped}
            if cut not in cutoffs:
                cutoffs.append(cut)
        pruned |= set(skipped)
    leaves = {name for name in pruned if any(char.isdigit() for char in name)}
    return {**answer, "cutoffs": cutoffs, "pruned_leaves": sorted(leaves)}


@pytest.mark.parametrize(("policy", "copied_to_full_marks"), [("full", True),
                                                               ("verdicts", False)])
def test_copying_feedback_reaches_full_pruning_marks_only_under_full(
    course: Any, instructor: Any, student: Any, graded: Any, policy: str,
    copied_to_full_marks: bool,
) -> None:
    variant = hidden_set(course, instructor, student, "alphabeta", ALPHABETA_PROBLEM, policy)
    tree = {"A", "B", "C", "D", *(f"{p}{i}" for p in "BCD" for i in (1, 2, 3))}
    answer = dict(EMPTY_ALPHABETA)
    for _attempt in range(3):
        detail = graded(student[1], variant, answer)
        parts = {result["part"]: result for result in detail["results"]}
        if all(parts[name]["verdict"] == "correct" for name in ("pruned_leaves", "cutoffs")):
            break
        answer = copied_from_feedback(detail["results"], tree, answer)
    reached = all(parts[name]["verdict"] == "correct" for name in ("pruned_leaves", "cutoffs"))
    assert reached is copied_to_full_marks


def test_verdicts_leave_out_what_they_do_not_know() -> None:
    from grading.feedback_policy import served_results, served_tests

    stored = [{"part": "value", "type": "number", "verdict": "wrong", "points": 0.0,
               "max_points": 1.0, "misconception": None, "trace_step": {"index": 3},
               "expected": 7, "reference_value": 7,
               "messages": [{"code": "value_wrong", "params": {"given": "9"}},
                            {"code": "a_new_message", "params": {"expected": 7}}]}]
    served = served_results(stored, "verdicts", all_or_nothing=())
    assert served == [{"part": "value", "type": "number", "verdict": "wrong", "points": 0.0,
                       "max_points": 1.0, "misconception": None, "trace_step": None,
                       "messages": [{"code": "value_wrong", "params": {"given": "9"}}]}]
    tests = [{"test": "t", "verdict": "wrong", "score": 0.4, "max_score": 1.0,
              "misconceptions": [], "reference_move": "B",
              "messages": [{"code": "decision_differs",
                            "params": {"yours": "A", "reference": "B"}}]}]
    assert served_tests(tests, "verdicts") == [{
        "test": "t", "verdict": "wrong", "score": 0.4, "max_score": 1.0, "misconceptions": [],
        "messages": [{"code": "decision_differs_withheld", "params": {"yours": "A"}}]}]
    assert served_results(stored, "full", all_or_nothing=()) == stored
    assert served_tests(tests, "full") == tests


def test_listing_every_leaf_as_pruned_does_not_name_the_searched_ones_under_verdicts(
    course: Any, instructor: Any, student: Any, graded: Any,
) -> None:
    # The key is the leaves not named as wrongly listed: naming them would hand it over.
    variant = hidden_set(course, instructor, student, "alphabeta", ALPHABETA_PROBLEM, None)
    leaves = [f"{p}{i}" for p in "BCD" for i in (1, 2, 3)]
    answer = {**EMPTY_ALPHABETA, "pruned_leaves": leaves,
              "cutoffs": [{"node": node, "pruned": [f"{node}{i}" for i in (2, 3)]}
                          for node in "BCD"]}
    detail = graded(student[1], variant, answer)
    parts = {result["part"]: result for result in detail["results"]}
    assert parts["pruned_leaves"]["verdict"] == "wrong"
    served = [message for name in ("pruned_leaves", "cutoffs")
              for message in parts[name]["messages"]]
    assert "cutoff_pruned_withheld" in {message["code"] for message in served}, served
    assert not {"set_extra", "cutoff_pruned_extra"} & {message["code"] for message in served}
    # At most the first wrong step is named (one leaf per attempt), never the searched ones.
    named = {str(value) for message in served for value in message["params"].values()}
    assert len(named & set(leaves)) <= 1, served


def test_verdicts_hide_which_states_a_code_search_should_not_generate_and_the_counts() -> None:
    # A search without pruning, graded against alpha-beta: naming the extra states names the
    # pruned ones, the extra evaluation's position is the reference's count plus one, and
    # the checks' shares are fractions of the reference's counts.
    from grading.code.feedback import render_tests
    from grading.feedback_policy import VERDICTS, served_tests

    stored = [{
        "test": "textbook tree", "verdict": "wrong", "score": 0.7, "max_score": 1.0,
        "checks": {"decision": True, "value": True, "generated": 0.6667, "evaluated": 0.5},
        "misconceptions": ["no_pruning"],
        "messages": [
            {"code": "evaluated_too_many", "params": {"count": 5, "n": 6, "yours": "C2"}},
            {"code": "generated_extra", "params": {"states": "B2, B3, C2, C3"}},
        ],
    }]
    [served] = served_tests(stored, VERDICTS)
    assert served["checks"] == {"decision": True, "value": True}
    assert served["messages"] == [{"code": "evaluated_too_many_withheld", "params": {}},
                                  {"code": "generated_extra_withheld", "params": {}}]
    text = str(render_tests([served]))
    for leaked in ("B2", "C2", "5", "6", "0.6667"):
        assert leaked not in text.replace("0.7", "").replace("1.0", ""), leaked


@pytest.mark.parametrize("policy", ["verdicts", "full"])
def test_verdicts_do_not_say_that_a_wrong_number_is_close_to_the_key(
    course: Any, instructor: Any, student: Any, graded: Any, policy: str,
) -> None:
    from tests.grading.test_part_messages import THIRDS_PROBLEM

    # A is worth 19/3: 6.3333 and 6.33 are within a unit of their last digit, 6.5 is not.
    variant = hidden_set(course, instructor, student, "expectiminimax", THIRDS_PROBLEM, policy)
    codes = {}
    for label, answer in (("close", {"value": "6.3333", "node_values": {"A": "6.33"}}),
                          ("far", {"value": "6.5", "node_values": {"A": "6.5"}})):
        detail = graded(student[1], variant, answer)
        results = {result["part"]: result for result in detail["results"]}
        codes[label] = {part: [m["code"] for m in results[part]["messages"]]
                        for part in ("value", "node_values")}
        if policy == "verdicts":
            assert results["value"]["messages"][0]["params"] == {"given": answer["value"]}
    close_words = {"value_inexact", "node_values_inexact"}
    assert not close_words & {code for found in codes["far"].values() for code in found}
    if policy == "verdicts":
        assert codes["close"] == codes["far"]
        assert codes["close"]["value"] == ["value_wrong"]
    else:
        assert codes["close"]["value"] == ["value_inexact"]
        assert "node_values_inexact" in codes["close"]["node_values"]


def test_verdicts_do_not_say_which_listed_cutoffs_or_asked_values_are_right(
    course: Any, instructor: Any, student: Any, graded: Any,
) -> None:
    # Listing every inner node as a cutoff skipping nothing: only C really cuts (D's cut at
    # its last child skips nothing). Naming C as "skipping more children", or the wrong ones
    # of the asked values, handed over which entries were right in one attempt.
    variant = hidden_set(course, instructor, student, "alphabeta", ALPHABETA_PROBLEM, None)
    answer = {**EMPTY_ALPHABETA, "cutoffs": [{"node": node, "pruned": []} for node in "ABC"]}
    cutoffs = {result["part"]: result for result in graded(student[1], variant, answer)[
        "results"]}["cutoffs"]
    assert cutoffs["verdict"] == "partial"
    assert [(m["code"], m["params"]) for m in cutoffs["messages"]] == [
        ("missed_cutoff_withheld", {}),
        ("cutoff_wrong_node", {"number": 1, "given": "A"}),
        ("cutoff_count_withheld", {"given": 3}),
        ("cutoff_pruned_withheld", {})]

    variant = hidden_set(course, instructor, student, "minimax", MINIMAX_PROBLEM, None)
    # B is worth 3 and C 2: one of the two values is right.
    for node_values in ({"B": 3, "C": 40}, {"B": 50, "C": 2}):
        detail = graded(student[1], variant, {"value": 3, "move": "B", "node_values": node_values})
        values = {result["part"]: result for result in detail["results"]}["node_values"]
        assert values["verdict"] == "partial"
        codes = [m["code"] for m in values["messages"]]
        assert "node_values_wrong_withheld" in codes and "node_values_wrong" not in codes
        assert {str(v) for m in values["messages"] if m["code"] == "node_values_wrong_withheld"
                for v in m["params"].values()} == set()


@pytest.mark.parametrize("rule", ["all_or_nothing", "net_correct"])
def test_an_all_or_nothing_set_is_said_to_be_not_exact_under_verdicts(
    course: Any, instructor: Any, student: Any, graded: Any, rule: str,
) -> None:
    # The key prunes C2 and C3. The first two answers wrongly prune B3 first; the second also
    # misses C3; the third only misses C3. Saying so, or naming B3 as pruned too early (the
    # first wrong step), told an all-or-nothing answer whether its guess held the key.
    problem_set = make_problem_set(
        course, instructor[0], [("alphabeta", {"set_scoring": rule}, "6")], max_attempts=4,
        due_at=timezone.now() + timedelta(days=1))
    variant = give_variant(problem_set, student[0], [ALPHABETA_PROBLEM])
    served = []
    for leaves in (["B3", "C2", "C3"], ["B3", "C2"], ["C2"]):
        detail = graded(student[1], variant, {**EMPTY_ALPHABETA, "pruned_leaves": leaves})
        [part] = [result for result in detail["results"] if result["part"] == "pruned_leaves"]
        served.append([(m["code"], m["params"]) for m in part["messages"]])
    if rule == "all_or_nothing":
        assert served[0] == served[1] == served[2] == [("set_not_exact_withheld", {})]
    else:
        assert served[0][0] == ("pruned_too_early_withheld", {"pruned": "B3"})
        assert served[2][0] == ("missed_cutoff_withheld", {})
        assert ("set_missing_withheld", {}) in served[1]
        assert ("set_missing_withheld", {}) not in served[0]


def test_results_graded_before_the_cutoff_messages_split_name_no_cutoff_under_verdicts() -> None:
    from grading.feedback_policy import served_results

    stored = [{"part": "cutoffs", "type": "cutoffs", "verdict": "partial", "points": 0.5,
               "max_points": 1.0, "misconception": None, "trace_step": None,
               "messages": [{"code": "cutoff_wrong_pruned", "params": {"node": "C"}}]}]
    assert served_results(stored, "verdicts", all_or_nothing=())[0]["messages"] == [
        {"code": "cutoff_pruned_withheld", "params": {}}]
