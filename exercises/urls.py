"""URLs of the exercises API (mounted under /api/v1/)."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
