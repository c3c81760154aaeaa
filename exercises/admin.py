"""Admin pages for problem sets, items and variants (read-mostly: generation writes them)."""

from typing import Any

from django.contrib import admin

from exercises.models import Item, ProblemSet, Variant, VariantItem


class ItemInline(admin.TabularInline):
    """Show a problem set's items on its page; their params change only through the API or
    the edit page, which validate them (exercises.services.validate_item)."""

    model = Item
    extra = 0
    readonly_fields = ["position", "kind", "params", "part_points"]

    def has_add_permission(self, request: Any, obj: Any = None) -> bool:
        """Refuse adding items here: they would skip validation, as changing params would."""
        return False


@admin.register(ProblemSet)
class ProblemSetAdmin(admin.ModelAdmin):
    """List problem sets with their generation status."""

    list_display = ["title", "course", "status", "progress_done", "progress_total", "due_at"]
    list_filter = ["status", "course"]
    inlines = [ItemInline]


@admin.register(Variant)
class VariantAdmin(admin.ModelAdmin):
    """List variants by problem set and student."""

    list_display = ["id", "problem_set", "student", "opened_at", "created_at"]
    list_filter = ["problem_set"]
    raw_id_fields = ["student"]


@admin.register(VariantItem)
class VariantItemAdmin(admin.ModelAdmin):
    """List generated items with the engine version of their keys."""

    list_display = ["id", "variant", "position", "engine_version", "generation_attempt"]
    raw_id_fields = ["variant", "item"]
