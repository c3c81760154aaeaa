"""Instructor pages to edit a problem set (also after publishing), archive or unarchive it,
copy it into another course, export its portable definition and import one.

Each form is read with the REST API's own input serializer and written through the same
service (:mod:`exercises.services`), so a page refuses exactly what the API refuses and
names the same field.
"""

from __future__ import annotations

import json
from decimal import Decimal, InvalidOperation
from typing import Any

from django.contrib import messages
from django.http import HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.requests import AuthenticatedHttpRequest
from accounts.selectors import courses_taught_by
from config import jsonsafe
from config.api import ApiError, whole_number
from exercises.apis import (
    DefinitionSerializer,
    ProblemSetDetailApi,
    first_error_path,
    taught_course,
)
from exercises.kinds import get_kind
from exercises.kinds.params import Param
from exercises.models import Item
from exercises.services import (
    archive_problem_set,
    copy_problem_set,
    export_definition,
    frozen_changes,
    import_definition,
    update_problem_set,
)
from pages.builder_form import BuilderError, ItemInputs, item_inputs, param_widget, read_param
from pages.param_labels import param_label
from pages.views.instructor import (
    FEEDBACK_POLICY_LABELS,
    LATE_POLICY_LABELS,
    SCORE_POLICY_LABELS,
    _taught_set,
    instructor_required,
)

MAX_DEFINITION_BYTES = 1_000_000
"""The largest definition file the import form reads (a 50-item set is far smaller)."""

SETTING_LABELS = {
    "title": gettext_lazy("Title"),
    "due_at": gettext_lazy("Due date (UTC)"),
    "max_attempts": gettext_lazy("Attempts per item"),
    "late_policy": gettext_lazy("Answers after the due date"),
    "late_penalty": gettext_lazy("Late penalty"),
    "score_policy": gettext_lazy("Score of an item"),
    "time_limit_minutes": gettext_lazy("Time limit in minutes"),
    "feedback_policy": gettext_lazy("Feedback before the answers are shown"),
    "archived": gettext_lazy("Archived"),
}
"""The edit form's field labels, by the PATCH API's field names."""

NULLABLE = ("due_at", "max_attempts", "time_limit_minutes")
"""Settings whose empty input means none (no due date, unlimited, no time limit)."""

SHAPE_PARAMS_OFFERED = "shape_params"
"""The edit form's hidden input saying that it offers every param, those that shape the
problems included (no student had a generated problem when it was drawn): they are read
then, and refused naming the field should problems have been generated since."""


def field_label(path: str) -> str:
    """Return the words for an API field path: ``items[0].params.cut_on_equality`` is
    "Item 1 · Cut on equality", ``due_at`` is "Due date (UTC)"."""
    if path.startswith("items["):
        index, _sep, rest = path[len("items["):].partition("]")
        zero_based = whole_number(index)
        number = zero_based + 1 if zero_based is not None else index
        name = rest.rsplit(".", 1)[-1] or "position"
        label = _("Points") if name == "points" else param_label(name)
        return _("Item %(number)s · %(field)s") % {"number": number, "field": label}
    return str(SETTING_LABELS.get(path, path))


def _item_rows(
    items: list[Item], data: QueryDict | None, *, shape: bool, errors: dict[str, str]
) -> list[ItemInputs]:
    """Return each item's inputs: points and conventions, every param when ``shape``; the
    posted ``data`` when re-displayed, each input with the ``errors`` of its field."""
    rows = []
    for index, item in enumerate(items):
        row = item_inputs(item.position, get_kind(item.kind), data, stored=item.params,
                          points=str(item.points))
        row.params = [field for field in row.params if _offered(field.param, item, shape)]
        for field in row.params:
            field.error = _errors_within(errors, f"items[{index}].params.{field.param.name}")
        row.points_error = _errors_within(errors, f"items[{index}].points")
        rows.append(row)
    return rows


def _offered(param: Param, item: Item, shape: bool) -> bool:
    """Return whether the form offers ``param`` of ``item``: every param when ``shape``,
    else the ones that may change once problems exist (see ``frozen_changes``)."""
    return shape or not frozen_changes(item.kind, item.params, [param.name])


def _errors_within(errors: dict[str, str], path: str) -> str:
    """Return the errors of the field ``path`` and of the fields inside it (a tree's node)."""
    return "; ".join(why for where, why in errors.items()
                     if where == path or where.startswith((f"{path}.", f"{path}[")))


def _posted_change(data: QueryDict, items: list[Item]) -> dict[str, Any]:
    """Return the PATCH body the edit form's ``data`` stands for (not yet validated)."""
    change: dict[str, Any] = {
        name: data.get(name, "").strip() for name in SETTING_LABELS if name != "archived"
    }
    for name in NULLABLE:
        change[name] = change[name] or None
    change["late_penalty"] = _fraction(change["late_penalty"])
    shape = SHAPE_PARAMS_OFFERED in data
    item_changes = []
    for index, item in enumerate(items):
        params: dict[str, Any] = {}
        for param in get_kind(item.kind).declared_params():
            name = f"item-{item.position}-{param.name}"
            # Unticked boxes post nothing; any other input the form lacks keeps its value.
            posted = name in data or param_widget(param) in ("checkbox", "checkboxes")
            if not posted or not _offered(param, item, shape):
                continue
            try:
                params[param.name] = read_param(param, data, name)
            except BuilderError as error:
                raise _refusal(f"items[{index}].params.{param.name}", error.message) from None
        item_changes.append({"position": item.position, "params": params,
                             "points": data.get(f"item-{item.position}-points", "").strip()})
    change["items"] = item_changes
    return change


def _fraction(percent_text: str) -> str:
    """Return the API's late-penalty fraction for the percentage typed on the page, as the
    builder asks it; raise a refusal naming ``late_penalty`` unless it is 0 to 100."""
    try:
        percent = Decimal(percent_text or "0")
    except InvalidOperation:
        raise _refusal("late_penalty", _("must be a number")) from None
    if not percent.is_finite() or not 0 <= percent <= 100:
        raise _refusal("late_penalty", _("must be between 0 and %(most)d") % {"most": 100})
    return str((percent / 100).quantize(Decimal("0.001")))


def _percent(fraction: Decimal) -> str:
    text = f"{fraction * 100:f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _refusal(path: str, message: str) -> ApiError:
    return ApiError(f"{field_label(path)}: {message}", details={path: [message]})


@instructor_required
@require_http_methods(["GET", "POST"])
def edit_page(request: AuthenticatedHttpRequest, problem_set_id: int) -> HttpResponse:
    """Show a set's settings and its items' points and conventions in a form, every param
    while no student has a generated problem; POST saves them through the PATCH service,
    reporting the fields regraded or the refused ones beside their inputs."""
    problem_set = _taught_set(request, problem_set_id)
    items = list(problem_set.items.all())
    has_variants = problem_set.variants.exists()
    errors: dict[str, str] = {}
    if request.method == "POST":
        try:
            data = ProblemSetDetailApi.UpdateInputSerializer(
                data=_posted_change(request.POST, items))
            if not data.is_valid():
                path, message = first_error_path(data.errors, "")
                raise _refusal(path.lstrip("."), message)
            _updated, regraded, regrade_id = update_problem_set(
                problem_set, changed_by=request.user, **data.validated_data)
        except ApiError as refused:
            details = refused.details if isinstance(refused.details, dict) else {}
            errors = {path: "; ".join(map(str, why)) for path, why in details.items()}
            messages.error(request, refused.message if not errors else "; ".join(
                f"{field_label(path)}: {why}" for path, why in errors.items()))
        else:
            if regraded:
                messages.success(request, _(
                    "Saved. Regrade %(regrade)s queued for: %(fields)s.") % {
                    "regrade": regrade_id,
                    "fields": ", ".join(field_label(path) for path in regraded)})
            else:
                messages.success(request, _("Saved. Nothing needed regrading."))
            return redirect("pages:edit_problem_set", problem_set.pk)
    values = request.POST if request.method == "POST" else None
    return render(request, "pages/edit_problem_set.html", {
        "problem_set": problem_set, "errors": errors, "values": values,
        "rows": _item_rows(items, values, shape=not has_variants, errors=errors),
        "has_variants": has_variants, "shape_params_offered": SHAPE_PARAMS_OFFERED,
        "late_policies": LATE_POLICY_LABELS,
        "score_policies": SCORE_POLICY_LABELS,
        "feedback_policies": FEEDBACK_POLICY_LABELS,
        "late_percent": _percent(problem_set.late_penalty),
        "regrades": problem_set.regrades.order_by("-pk")[:5],
    })


@instructor_required
@require_POST
def archive_page(request: AuthenticatedHttpRequest, problem_set_id: int) -> HttpResponse:
    """Archive the set (``action=archive``) or bring it back (``action=unarchive``)."""
    problem_set = _taught_set(request, problem_set_id)
    if request.POST.get("action") == "unarchive":
        update_problem_set(problem_set, changed_by=request.user, archived=False)
        messages.success(request, _("Unarchived: the students see the set again."))
    else:
        archive_problem_set(problem_set)
        messages.success(request, _(
            "Archived: the students no longer see the set; their grades are kept."))
    return redirect("pages:problem_set", problem_set.pk)


@instructor_required
@require_POST
def copy_page(request: AuthenticatedHttpRequest, problem_set_id: int) -> HttpResponse:
    """Copy the set as a draft into one of my courses and open the copy."""
    problem_set = _taught_set(request, problem_set_id)
    course_id = whole_number(request.POST.get("course", "").strip())
    try:
        if course_id is None:
            raise _refusal("course", _("choose one of your courses"))
        course = taught_course(request.user, course_id)
        copy = copy_problem_set(problem_set, course=course, creator=request.user,
                                title=request.POST.get("title", "").strip()[:200])
    except ApiError as refused:
        messages.error(request, refused.message)
        return redirect("pages:problem_set", problem_set.pk)
    messages.success(request, _("Copied into %(course)s as a draft.") % {
        "course": course.title})
    return redirect("pages:problem_set", copy.pk)


@instructor_required
@require_GET
def export_page(request: AuthenticatedHttpRequest, problem_set_id: int) -> HttpResponse:
    """Download the set's portable definition as a JSON file."""
    problem_set = _taught_set(request, problem_set_id)
    response = HttpResponse(
        json.dumps(export_definition(problem_set), ensure_ascii=False, indent=1),
        content_type="application/json; charset=utf-8",
    )
    response["Content-Disposition"] = (
        f'attachment; filename="problem-set-{problem_set.pk}.json"')
    return response


def _read_definition(request: AuthenticatedHttpRequest) -> dict[str, Any]:
    upload = request.FILES.get("definition")
    if upload is None:
        raise _refusal("definition", _("choose a definition file (.json)"))
    if upload.size is not None and upload.size > MAX_DEFINITION_BYTES:
        raise _refusal("definition", _("the file is larger than 1 MB"))
    try:
        definition = jsonsafe.loads(upload.read().decode("utf-8"))
    except jsonsafe.UnsafeJson as error:
        raise _refusal("definition", error.rule) from None
    except ValueError:
        raise _refusal("definition", _("not a JSON file")) from None
    checked = DefinitionSerializer(data=definition)
    if not checked.is_valid():
        path, message = first_error_path(checked.errors, "definition")
        raise ApiError(f"{path}: {message}", details={path: [message]})
    return dict(checked.validated_data)


@instructor_required
@require_http_methods(["GET", "POST"])
def import_page(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Show the import form; POST reads an uploaded definition into a draft in my course."""
    courses = courses_taught_by(request.user).order_by("title")
    if request.method == "POST":
        course_id = whole_number(request.POST.get("course", "").strip())
        try:
            if course_id is None:
                raise _refusal("course", _("choose one of your courses"))
            course = taught_course(request.user, course_id)
            created = import_definition(course=course, creator=request.user,
                                        definition=_read_definition(request))
        except ApiError as refused:
            messages.error(request, refused.message)
        else:
            messages.success(request, _("Imported into %(course)s as a draft.") % {
                "course": course.title})
            return redirect("pages:problem_set", created.pk)
    return render(request, "pages/import_problem_set.html", {"courses": courses})
