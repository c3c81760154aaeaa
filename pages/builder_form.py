"""The problem-set builder's inputs, drawn from each kind's declared params, and read back.

The builder is a list of items in the order the instructor arranges them, several of one
kind allowed, each with its own kind, points and one input per declared param (number, tick
box, menu, list of tick boxes, JSON, or the tree editor for ``params.tree``) holding its
default. Each row posts ``item`` (its index, so the rows' order is the items' order) and
``item-<index>-<name>`` inputs; submit buttons add, remove and move rows without scripts.
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
    ParamError,
)
from exercises.tree_library import LibraryTree, library_trees
from pages.param_labels import choice_label, param_label

MAX_ITEMS = 50
MAX_POINTS = 1000
FIRST_KIND = "alphabeta"
"""The kind of the one item a new builder starts with."""


class BuilderError(ValueError):
    """A builder input cannot be read; ``field`` names the input."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(f"{field_name}: {message}")
        self.field = field_name
        self.message = message


@dataclass
class ParamInput:
    """One param's input: its widget, human label, bounds or choices, and the value shown."""

    param: Param
    input_name: str
    widget: str  # number, checkbox, select, checkboxes, json, tree, text
    value: Any
    error: str = ""  # the rule the posted value broke, shown beside the input

    @property
    def described_by(self) -> str:
        """Return the ids of the help and of the error (if any) that describe the input."""
        return f"{self.input_name}-help" + (f" {self.input_name}-error" if self.error else "")

    @property
    def label(self) -> str:
        """Return the param's label in the active language."""
        return param_label(self.param.name)

    @property
    def choices(self) -> list[tuple[str, str]]:
        """Return (value, label) of each choice of a menu or list of tick boxes."""
        return [(choice, choice_label(choice)) for choice in getattr(self.param, "choices", ())]


@dataclass
class ItemInputs:
    """One item's row: its index in the form, kind, points and param inputs."""

    index: int
    kind: Kind
    points: str
    params: list[ParamInput]
    points_error: str = ""

    @property
    def prefix(self) -> str:
        """Return the prefix of this row's input names."""
        return f"item-{self.index}"

    @property
    def library(self) -> list[LibraryTree]:
        """Return the library's named trees this row's kind can pose."""
        return library_trees(self.kind.name)


def param_widget(param: Param) -> str:
    if param.name == "tree" and isinstance(param, JsonParam):
        return "tree"
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


def _shown_value(widget: str, value: Any) -> Any:
    if widget == "tree":
        return "" if value is None else json.dumps(value)  # no tree: random trees
    # A JSON param shows its value as JSON text, as the instructor will edit it.
    return json.dumps(value) if widget == "json" else value


def item_inputs(
    index: int, kind: Kind, data: QueryDict | None = None, *,
    stored: dict[str, Any] | None = None, points: str = "1",
) -> ItemInputs:
    """Return the row ``index`` of ``kind``, showing ``data`` when re-displayed, else the
    ``stored`` params and ``points`` of a saved item, else the defaults."""
    prefix = f"item-{index}"
    params = []
    for param in kind.declared_params():
        name = f"{prefix}-{param.name}"
        widget = param_widget(param)
        value: Any = _shown_value(widget, (stored or {}).get(param.name, param.default))
        if data is not None:
            if widget == "checkbox":
                value = name in data
            elif widget == "checkboxes":
                value = data.getlist(name)
            else:
                value = data.get(name, "")
        params.append(ParamInput(param, name, widget, value))
    if data is not None:
        points = data.get(f"{prefix}-points", points)
    return ItemInputs(index, kind, points, params)


def _row_indices(data: QueryDict) -> list[int]:
    indices: list[int] = []
    for text in data.getlist("item")[:MAX_ITEMS]:
        try:
            index = int(text)
        except ValueError:
            raise BuilderError("item", _("must be a whole number")) from None
        if index not in indices and 0 <= index < 10 * MAX_ITEMS:
            indices.append(index)
    return indices


def row_kind(data: QueryDict, index: int) -> Kind:
    """Return the kind row ``index`` of the posted builder asks for."""
    try:
        return get_kind(data.get(f"item-{index}-kind", ""))
    except ParamError as error:
        raise BuilderError(f"item-{index}-kind", error.message) from None


def builder_rows(data: QueryDict | None = None) -> list[ItemInputs]:
    """Return the builder's rows: one alpha-beta item at first, else the posted ones.

    The posted row actions apply here: ``add_item`` appends a row of the ``add_kind`` kind,
    ``remove_item``, ``move_up`` and ``move_down`` (a row's index) drop or move that row.
    """
    if data is None:
        return [item_inputs(0, get_kind(FIRST_KIND))]
    indices = _row_indices(data)
    rows = [item_inputs(index, row_kind(data, index), data) for index in indices]
    if "add_item" in data and len(rows) < MAX_ITEMS:
        try:
            kind = get_kind(data.get("add_kind", ""))
        except ParamError as error:
            raise BuilderError("add_kind", error.message) from None
        rows.append(item_inputs(max(indices, default=-1) + 1, kind))
    position = {row.index: number for number, row in enumerate(rows)}
    for action, step in (("move_up", -1), ("move_down", 1)):
        index = _int_or_none(data.get(action))
        moved = position.get(index) if index is not None else None
        if moved is not None and 0 <= moved + step < len(rows):
            rows[moved], rows[moved + step] = rows[moved + step], rows[moved]
    removed = _int_or_none(data.get("remove_item"))
    return [row for row in rows if row.index != removed]


def row_action(data: QueryDict) -> bool:
    """Return whether ``data`` asks to rearrange rows rather than to create the set."""
    return any(name in data for name in ("add_item", "remove_item", "move_up", "move_down"))


def _int_or_none(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def read_param(param: Param, data: QueryDict, name: str) -> Any:
    """Return the raw value of ``param`` posted as input ``name`` in ``data`` (the kind
    validates it), its default when the input is left empty.

    The tree editor's text is JSON when it starts with ``{`` (or is ``null``, the API's "no
    tree", as the param's help says), else the board text form, which ``params.tree`` reads.
    """
    widget = param_widget(param)
    if widget == "checkbox":
        return name in data
    if widget == "checkboxes":
        return data.getlist(name)
    text = data.get(name, "").strip()
    if text == "":
        return param.default
    if widget == "number":
        try:
            return int(text)
        except ValueError:
            raise BuilderError(name, _("must be a whole number")) from None
    if widget == "json" or (widget == "tree" and (text.startswith("{") or text == "null")):
        try:
            return jsonsafe.loads(text)
        except jsonsafe.UnsafeJson as error:
            raise BuilderError(name, error.rule) from None
        except ValueError:
            raise BuilderError(name, _("must be valid JSON")) from None
    return text


def read_params(kind: Kind, data: QueryDict, prefix: str) -> dict[str, Any]:
    """Return the raw params of the row ``prefix`` posted in ``data`` (the kind validates)."""
    return {param.name: read_param(param, data, f"{prefix}-{param.name}")
            for param in kind.declared_params()}


def read_items(data: QueryDict) -> list[dict[str, Any]]:
    """Return the ``items`` (kind, params, points) of the posted rows, in their order."""
    items = []
    for index in _row_indices(data):
        kind = row_kind(data, index)
        prefix = f"item-{index}"
        try:
            points = Decimal(data.get(f"{prefix}-points", "1") or "1")
        except InvalidOperation:
            raise BuilderError(f"{prefix}-points", _("must be a number")) from None
        if not points.is_finite() or not 0 <= points <= MAX_POINTS:
            raise BuilderError(f"{prefix}-points",
                               _("must be between 0 and %(most)d") % {"most": MAX_POINTS})
        items.append({"kind": kind.name, "params": read_params(kind, data, prefix),
                      "points": points})
    return items


def preview_row(data: QueryDict) -> tuple[Kind, str]:
    """Return the kind and input prefix of the row whose preview ``data`` asks for."""
    index = _int_or_none(data.get("preview_item"))
    if index is None:
        raise BuilderError("preview_item", _("must be a whole number"))
    return row_kind(data, index), f"item-{index}"


def kind_choices() -> list[Kind]:
    """Return the kinds a row can be, as the "add an item" menu lists them."""
    return all_kinds()
