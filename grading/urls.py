"""URLs of the grading API (mounted under /api/v1/)."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
