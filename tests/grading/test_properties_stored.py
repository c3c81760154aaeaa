"""Issue 13 through the stored path: submit, grade with the Celery task's body, read the API.

For every kind and answer format, 50 seeds are stored as one student's variant (one item per
seed, generated exactly as in the in-process properties). Each seed gets a wrong answer (and
the first seeds also the key) submitted via
:func:`grading.services.submit_answer` (the API's write path), graded by calling
``grade_submission_task`` in-process (no broker: the task body is the service). Checked:

* the stored grade equals the in-process grade the other property tests rely on, and the key
  earns full marks (on the first :data:`STORED_KEYS` seeds);
* before the answers are visible, under the set's default feedback policy (``verdicts``), no
  message the API returns for a wrong answer carries an expected value of a part the student
  got wrong that the student did not write themselves, and no ``expected`` is returned.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Mapping
from decimal import Decimal
from typing import Any

import pytest

from exercises.generation import derive_seed
from exercises.models import Item, ProblemSet, Variant, VariantItem
from exercises.services import split_points
from grading.grader import grade_answer
from grading.models import Submission
from grading.services import submit_answer
from grading.tasks import grade_submission_task
from tests.grading.property_cases import (
    ITEM_POINTS,
    SEEDS,
    Checker,
    case_seed,
    cases,
    context_of,
    format_params,
    generated,
    kind_formats,
    number,
    outcome,
    register_figures,
    wrong_values,
)
from tests.grading.property_cases import option_ids as options_of

STORED_KEYS = 10
"""Seeds whose key is also submitted through the stored path (every seed's key is graded
in-process by ``test_properties_grading``)."""
ORDINAL_PARAMS = {"position", "number"}
"""Message params that count places in the student's own list, not values of the tree."""
PROBLEM_PARAMS = {"probabilities"}
"""Message params copied from the problem the student sees (a chance node's probabilities,
printed in the tree): a key value equal to one of them (a child worth 1/2) is not told."""


@pytest.fixture(autouse=True, scope="module")
def _figures(request: pytest.FixtureRequest) -> None:
    register_figures(request.config)


def stored_variant(course: Any, instructor: Any, student: Any, kind_name: str,
                   answer_format: str) -> tuple[Variant, list[int]]:
    """Store one problem set with an item per seed that generates, and the student's variant.

    Return the variant and the seed index of each position (1-based positions).
    """
    params = format_params(kind_name, answer_format)
    problem_set = ProblemSet.objects.create(
        course=course, title=f"{kind_name} {answer_format}", seed="issue-13",
        created_by=instructor, status=ProblemSet.Status.READY)
    variant = Variant.objects.create(problem_set=problem_set, student=student, seed="issue-13")
    indexes = []
    for index in range(SEEDS):
        try:
            made = generated(kind_name, answer_format, index)
        except Exception:  # noqa: BLE001 - generation is a property of its own; skipped here
            continue
        indexes.append(index)
        item = Item.objects.create(
            problem_set=problem_set, position=len(indexes), kind=kind_name, params=params,
            points=ITEM_POINTS, part_points=split_points(kind_name, params, ITEM_POINTS))
        VariantItem.objects.create(
            variant=variant, item=item, position=len(indexes),
            seed=case_seed(kind_name, answer_format, index), problem=made.problem,
            prompt=made.prompt, answer_key=made.answer_key, trace=made.trace,
            engine_version=made.engine_version)
    return variant, indexes


def every_part_wrong(context: Any, index: int) -> dict[str, Any]:
    """Return an answer with every part set to a valid wrong value (the most feedback)."""
    rng = random.Random(derive_seed("stored", index))
    answer = {}
    for part in context.parts:
        values = wrong_values(part, context.expected[part.name], context.problem, rng,
                              options_of(context))
        answer[part.name] = values[0][1] if values else context.expected[part.name]
    return answer


def graded_submission(student: Any, variant: Variant, position: int,
                      answer: Mapping[str, Any]) -> Submission:
    submission, _created = submit_answer(student=student, variant_id=variant.pk,
                                         position=position, answer=answer)
    grade_submission_task(submission.pk)
    submission.refresh_from_db()
    return submission


def atoms(value: Any) -> Iterator[str]:
    """Yield the names and numbers a value is made of, numbers in one canonical form."""
    if isinstance(value, Mapping):
        for key, inner in value.items():
            yield from atoms(key)
            yield from atoms(inner)
    elif isinstance(value, list | tuple):
        for inner in value:
            yield from atoms(inner)
    elif value is not None:
        for token in re.split(r"[=,;\s\[\]()]+", str(value)):
            if token:
                try:
                    yield f"#{number(token)}"
                except (ValueError, ZeroDivisionError):
                    yield token


def leaks(results: list[dict[str, Any]], expected: Mapping[str, Any],
          answer: Mapping[str, Any]) -> list[str]:
    """Return what the rendered results tell of the key of the parts the student got wrong."""
    written = set(atoms(answer))
    wrong = {r["part"] for r in results if r["verdict"] != "correct"}
    secret = {a for part in wrong for a in atoms(expected.get(part))} - written
    found = [f"{r['part']}: expected shown" for r in results if "expected" in r]
    for result in results:
        for message in result.get("messages") or []:
            shown = {a for key, value in (message.get("params") or {}).items()
                     if key not in ORDINAL_PARAMS | PROBLEM_PARAMS for a in atoms(value)}
            if shown & secret:
                found.append(f"{result['part']}: {message.get('code')} "
                             f"shows {sorted(shown & secret)}: {message.get('text')}")
    return found


@pytest.mark.parametrize(("kind_name", "answer_format"),
                         cases("stored", kind_formats()))
def test_stored_grades_match_and_feedback_hides_the_key(
        kind_name: str, answer_format: str, course: Any, instructor: Any, student: Any) -> None:
    checker = Checker("stored_feedback_hides_key", kind_name, answer_format)
    same_grade = Checker("stored_grade_matches", kind_name, answer_format)
    variant, indexes = stored_variant(course, instructor[0], student[0], kind_name,
                                      answer_format)
    user, client = student
    for position, index in enumerate(indexes, start=1):
        variant_item = VariantItem.objects.select_related("item").get(variant=variant,
                                                                      position=position)
        context = context_of(kind_name, answer_format, index)
        if position <= STORED_KEYS:
            key = graded_submission(user, variant, position, dict(variant_item.answer_key))
            same_grade.check(key.raw_score == key.max_score == ITEM_POINTS,
                             f"seed {index} key: {key.raw_score}/{key.max_score} "
                             f"{outcome(key.results)}", "key")
        answer = every_part_wrong(context, index)
        wrong = graded_submission(user, variant, position, answer)
        in_process = grade_answer(context, answer)
        same_grade.check(wrong.results == in_process.results
                         and wrong.raw_score == round(Decimal(in_process.raw_score.numerator)
                                                      / in_process.raw_score.denominator, 4),
                         f"seed {index}: stored {outcome(wrong.results)}, "
                                 f"in-process {outcome(in_process.results)}", "wrong answer")
        shown = client.get(f"/api/v1/submissions/{wrong.pk}/").json()
        found = ([] if shown.get("answers_visible") is False
                 else ["answers are visible before the due date and the last attempt"])
        found += leaks(shown.get("results") or [], context.expected, answer)
        checker.check(not found, f"seed {index} answer {answer}: {found[:3]}",
                      found[0].split(":")[1].split()[0] if found and ":" in found[0] else "")
    failed = []
    for figures in (same_grade, checker):
        try:
            figures.finish(len(indexes))
        except AssertionError as error:
            failed.append(str(error))
    assert not failed, "\n".join(failed)

