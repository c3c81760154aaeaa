"""Grading's statements as a worker process warms them up: found and changed nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection

from exercises.models import VariantItem
from grading.models import Submission
from grading.services import grading_statements
from tests.config.test_warmup import warmed_on_a_new_connection
from tests.grading.conftest import correct_answer


@pytest.mark.django_db(transaction=True)
def test_grading_s_warm_up_leaves_every_submission_as_it_was(alphabeta_set: Any,
                                                             student: Any) -> None:
    _, variant = alphabeta_set
    variant_item = VariantItem.objects.get(variant=variant)
    # Stored without its grading task: a worker of an earlier test would grade it.
    submission = Submission.objects.create(
        variant_item=variant_item, student=student[0], attempt_number=1,
        kind=Submission.Kind.ANSWER, answer=correct_answer(variant_item))
    before = Submission.objects.values().get(pk=submission.pk)

    _, prepared = warmed_on_a_new_connection(grading_statements)

    assert Submission.objects.values().get(pk=submission.pk) == before
    # Starting, recording, and the webhook and LMS questions of every grade.
    if connection.vendor == "postgresql":
        assert prepared == 4
