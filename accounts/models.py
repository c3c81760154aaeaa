"""Users, courses and who is enrolled in which course, in which role."""

from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.db import models


class Role(models.TextChoices):
    """The role a person has in Cutoff or in one course.

    ``grader`` is a course role only (an LMS teaching assistant): it reads the course's
    submissions and edits nothing; the account itself stays a student account.
    """

    STUDENT = "student", "Student"
    INSTRUCTOR = "instructor", "Instructor"
    GRADER = "grader", "Grader"


ACCOUNT_ROLES = (Role.STUDENT, Role.INSTRUCTOR)
"""The roles an account (rather than one enrolment) may have."""


class User(AbstractUser):
    """A person (or an LMS client) using Cutoff; ``role`` says what they may create."""

    role = models.CharField(
        max_length=16,
        choices=[(role.value, role.label) for role in ACCOUNT_ROLES],
        default=Role.STUDENT,
    )

    @property
    def is_instructor(self) -> bool:
        """Return whether this account may create courses and problem sets."""
        return self.role == Role.INSTRUCTOR


class Course(models.Model):
    """A course: instructors build problem sets for the students enrolled in it."""

    slug = models.SlugField(max_length=64, unique=True)
    title = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.slug


class Enrollment(models.Model):
    """One user's membership of one course, as student or instructor."""

    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="enrollments")
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="enrollments")
    role = models.CharField(max_length=16, choices=Role.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["course", "user"], name="one_enrollment_per_course"),
        ]

    def __str__(self) -> str:
        return f"{self.user.username} in {self.course.slug} as {self.role}"
