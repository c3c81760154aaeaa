"""The item page records that its student was shown an item's key only when it shows one: the
expected answers beside a graded attempt, or the replay. Such an item takes no more of their
attempts, whatever an extension allows later (grading/README.md, "Answer keys")."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from exercises.models import VariantItem
from grading.models import Submission
from tests.grading.conftest import (
    ALPHABETA_PROBLEM,
    MINIMAX_PROBLEM,
    correct_answer,
    give_variant,
    make_problem_set,
    prompted,
)

pytestmark = pytest.mark.django_db


def seen_after_visiting(user: Any, variant_item: VariantItem) -> bool:
    """Open the item's page as ``user``; return whether its key is now noted as seen."""
    browser = Client()
    browser.force_login(user)
    url = f"/assignments/{variant_item.variant_id}/items/{variant_item.position}/"
    assert browser.get(url).status_code == 200
    variant_item.refresh_from_db()
    return variant_item.keys_seen_at is not None


def test_the_page_notes_a_key_only_when_it_shows_one(course: Any, instructor: Any,
                                                     student: Any) -> None:
    # Due, late answers refused: keys and replays are open.
    problem_set = make_problem_set(course, instructor[0],
                                   [("minimax", {}, "2"), ("alphabeta", {}, "6")],
                                   due_at=timezone.now() - timedelta(hours=1))
    minimax, alphabeta = prompted(give_variant(problem_set, student[0],
                                               [MINIMAX_PROBLEM, ALPHABETA_PROBLEM])).items.all()
    # No attempt to show expected answers beside, and no replay: nothing shown, nothing noted.
    VariantItem.objects.filter(pk=minimax.pk).update(trace={"answer": {}})
    assert not seen_after_visiting(student[0], minimax)
    Submission.objects.create(
        variant_item=minimax, student=student[0], attempt_number=1,
        answer=correct_answer(minimax), status=Submission.Status.GRADED,
        score=Decimal(2), max_score=Decimal(2), results=[{
            "part": "value", "verdict": "correct", "points": 1, "max_points": 1,
            "expected": 3, "misconception": None, "messages": []}])
    assert seen_after_visiting(student[0], minimax)
    # The alpha-beta item's replay is shown at the due date: the search, so the key.
    assert seen_after_visiting(student[0], alphabeta)
