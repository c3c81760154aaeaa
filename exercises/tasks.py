"""Celery tasks of the exercises app: thin wrappers that fetch ids and call a service."""

from __future__ import annotations

from celery import shared_task

from exercises import services


@shared_task(name="exercises.generate_variants")
def generate_variants_task(problem_set_id: int, student_ids: list[int]) -> int:
    """Generate the missing variants of ``student_ids`` for a problem set."""
    return services.generate_variants(problem_set_id, student_ids)

