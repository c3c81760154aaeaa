"""The problem-set builder's inputs, drawn from each kind's declared params, and read back.

Each registered kind gets a fieldset: how many items of it, their points, and one input per
declared param (number, tick box, menu, list of tick boxes or JSON) holding its default.
What is posted becomes the ``items`` list :func:`exercises.services.create_problem_set`
validates, so every rule about params lives in the kinds, not here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from django.http import QueryDict
from django.utils.translation import gettext as _

from config import jsonsafe
from exercises.kinds import all_kinds, get_kind
from exercises.kinds.base import Kind
from exercises.kinds.params import (
    BoolParam,
    ChoiceListParam,
    ChoiceParam,
    IntParam,
    JsonParam,
    Param,
)

MAX_ITEMS_PER_KIND = 10
MAX_POINTS = 1000


class BuilderError(ValueError):
    """A builder input cannot be read; ``field`` names the input."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(f"{field_name}: {message}")
        self.field = field_name
        self.message = message


@dataclass
class ParamInput:
    """One param's input: its widget, bounds or choices, and the value shown."""

    param: Param
    input_name: str
    widget: str  # number, checkbox, select, checkboxes, json, text
    value: Any

    @property
    def choices(self) -> tuple[str, ...]:
        """Return the choices of a menu or list of tick boxes."""
        return tuple(getattr(self.param, "choices", ()))



@dataclass
class KindInputs:
    """A kind's fieldset: how many items, their points and the param inputs."""

    kind: Kind
    count: int
    points: str
    params: list[ParamInput]

    @property
    def prefix(self) -> str:
        """Return the prefix of this kind's input names."""
        return f"item-{self.kind.name}"


def _widget(param: Param) -> str:
    if isinstance(param, BoolParam):
        return "checkbox"
    if isinstance(param, IntParam):
        return "number"
    if isinstance(param, ChoiceParam):
        return "select"
    if isinstance(param, ChoiceListParam):
        return "checkboxes"
    if isinstance(param, JsonParam):
        return "json"
    return "text"


def kind_inputs(data: QueryDict | None = None) -> list[KindInputs]:
    """Return every kind's fieldset, showing ``data`` when re-displayed, else the defaults."""
    fieldsets = []
    for index, kind in enumerate(all_kinds()):
        prefix = f"item-{kind.name}"
        params = []
        for param in kind.declared_params():
            name = f"{prefix}-{param.name}"
            widget = _widget(param)
            # A JSON param shows its default as JSON text, as the instructor will edit it.
            value: Any = json.dumps(param.default) if widget == "json" else param.default
            if data is not None:
                if widget == "checkbox":
                    value = name in data
                elif widget == "checkboxes":
                    value = data.getlist(name)
                else:
                    value = data.get(name, "")
            params.append(ParamInput(param, name, widget, value))
        default_count = "1" if index == 0 else "0"
        count = data.get(f"{prefix}-count", default_count) if data is not None else default_count
        points = data.get(f"{prefix}-points", "1") if data is not None else "1"
        fieldsets.append(KindInputs(kind, _as_count(count), points, params))
    return fieldsets


def _as_count(text: str) -> int:
    try:
        return max(0, min(MAX_ITEMS_PER_KIND, int(text)))
    except ValueError:
        return 0


def read_params(kind: Kind, data: QueryDict) -> dict[str, Any]:
    """Return the raw params of ``kind`` posted in ``data`` (validation is the kind's job)."""
    params: dict[str, Any] = {}
    prefix = f"item-{kind.name}"
    for param in kind.declared_params():
        name = f"{prefix}-{param.name}"
        widget = _widget(param)
        if widget == "checkbox":
            params[param.name] = name in data
            continue
        if widget == "checkboxes":
            params[param.name] = data.getlist(name)
            continue
        text = data.get(name, "").strip()
        if text == "":
            continue
        if widget == "number":
            try:
                params[param.name] = int(text)
            except ValueError:
                raise BuilderError(name, _("must be a whole number")) from None
        elif widget == "json":
            try:
                params[param.name] = jsonsafe.loads(text)
            except jsonsafe.UnsafeJson as error:
                raise BuilderError(name, error.rule) from None
            except ValueError:
                raise BuilderError(name, _("must be valid JSON")) from None
        else:
            params[param.name] = text
    return params


def read_items(data: QueryDict) -> list[dict[str, Any]]:
    """Return the ``items`` (kind, params, points) the builder's posted ``data`` asks for."""
    items = []
    for kind in all_kinds():
        prefix = f"item-{kind.name}"
        count = _as_count(data.get(f"{prefix}-count", "0"))
        if not count:
            continue
        try:
            points = Decimal(data.get(f"{prefix}-points", "1") or "1")
        except InvalidOperation:
            raise BuilderError(f"{prefix}-points", _("must be a number")) from None
        if not points.is_finite() or not 0 <= points <= MAX_POINTS:
            raise BuilderError(f"{prefix}-points",
                               _("must be between 0 and %(most)d") % {"most": MAX_POINTS})
        params = read_params(kind, data)
        items += [{"kind": kind.name, "params": params, "points": points}] * count
    return items


def preview_kind(data: QueryDict) -> Kind:
    """Return the kind whose preview is asked for in ``data``."""
    return get_kind(data.get("kind", ""))
