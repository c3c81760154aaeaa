"""Turn an item's answer parts into inputs, and the posted inputs back into an answer.

Which input a part gets follows from its :class:`~exercises.kinds.base.PartType` and from
what the problem shows: on a tree the root's value is typed at the root, the decision is
picked on the root's children, pruned leaves are ticked on the leaves and asked node values
are typed beside their nodes; everything else gets a field below the tree. The answer built
here is checked and graded by grading's services, exactly as an API answer is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.http import QueryDict
from django.utils.translation import gettext_lazy as _

from exercises.kinds.base import AnswerPart, PartType
from grading.answers import SPACED_BAR
from grading.scoring import format_number
from pages.boards import legal_moves
from pages.tree_drawing import TreeDrawing

FIELD_PREFIX = "answer"
NAME_SEPARATORS = re.compile(r"[\s,;]+")
FACT_ORDER = ("moved_by", "wins", "visits", "reward")
COLUMN_LABELS = {
    "alpha": "α", "beta": "β", "value": _("value"), "wins": _("wins"), "visits": _("visits"),
    "reward": _("reward"), "moved_by": _("moved by"), "flag": _("flag (exact, lower or upper)"),
}


@dataclass
class PartField:
    """How one answer part is asked on the page, and what the student last gave for it."""

    part: AnswerPart
    widget: str
    rows: list[str] = field(default_factory=list)  # node names (node values, records)
    columns: Sequence[str] = ()  # record fields
    options: list[tuple[str, str]] = field(default_factory=list)  # (value, shown text)
    given: Any = None
    info: dict[str, dict[str, Any]] = field(default_factory=dict)  # row → facts shown beside it

    @property
    def name(self) -> str:
        """Return the form field name (or prefix) of this part."""
        return f"{FIELD_PREFIX}-{self.part.name}"

    @property
    def none_box(self) -> str:
        """Return the name of the tick box answering "none" (an empty list), or "".

        A list part typed in a text box may have the empty list as its key (no cutoff, no
        name); a blank box means "not answered", so "none" is a box of its own.
        """
        if self.widget == "cutoffs" or (self.widget == "names" and self.part.type is PartType.SET):
            return f"{self.name}-none"
        return ""

    @property
    def given_none(self) -> bool:
        """Return whether the last given value was "none" (its tick box shows ticked)."""
        return self.given == []

    @property
    def on_tree(self) -> bool:
        """Return whether the part is answered on the tree drawing itself."""
        return self.widget.startswith("tree_")

    @property
    def given_text(self) -> str:
        """Return the last given value as it goes back into a text input."""
        if self.given is None:
            return ""
        if self.widget == "names":
            return ", ".join(str(name) for name in self.given)
        if self.widget == "vector":
            return ", ".join(format_number(v) for v in self.given)
        if self.widget == "cutoffs":
            return "\n".join(
                f"{row.get('node', '')}: {' '.join(row.get('pruned', []))}" for row in self.given
            )
        return str(self.given)

    @property
    def word_columns(self) -> list[str]:
        """Return the answer columns that take a word (an entry's flag), not a number."""
        return list(self.part.options.get("choices", {}))

    @property
    def info_headings(self) -> list[str]:
        """Return the headings of the facts' columns, in the reader's language."""
        return [str(COLUMN_LABELS.get(column, column)) for column in self.info_columns]

    @property
    def column_headings(self) -> list[str]:
        """Return the headings of the answer columns; "(answer)" marks them beside the facts."""
        headings = [str(COLUMN_LABELS.get(column, column)) for column in self.columns]
        if self.info:
            return [_("%(column)s (your answer)") % {"column": h} for h in headings]
        return headings

    @property
    def info_columns(self) -> list[str]:
        """Return the names of the facts shown beside each row (e.g. wins and visits).

        Stored JSON objects may come back with their keys reordered (PostgreSQL's jsonb), so
        the usual facts come first in reading order.
        """
        names = list(next(iter(self.info.values()), {}))
        return sorted(names, key=lambda name: (FACT_ORDER.index(name)
                                               if name in FACT_ORDER else len(FACT_ORDER), name))

    @property
    def cells(self) -> list[tuple[str, list[str], list[tuple[str, str, str, str]]]]:
        """Return the rows as (row name, [facts], [(field, its heading, input name, given)])."""
        given = self.given if isinstance(self.given, Mapping) else {}
        return [
            (row,
             [format_number(self.info.get(row, {}).get(column)) for column in self.info_columns],
             [(column, str(COLUMN_LABELS.get(column, column)), f"{self.name}-{row}-{column}",
               str((given.get(row) or {}).get(column, "")))
              for column in self.columns])
            for row in self.rows
        ]


def asked_names(problem: Mapping[str, Any], part: AnswerPart, drawing: TreeDrawing | None
                ) -> list[str]:
    """Return the nodes a node-values or records part asks about, in tree order."""
    asked = (problem.get("ask") or {}).get(part.name)
    if asked:
        return [str(name) for name in asked]
    names = list(listed_facts(problem))
    if names:
        return names
    return [node.name for node in drawing.inner_nodes] if drawing else []


def listed_facts(problem: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Return the facts the problem lists per row (UCB1 children, an MCTS path), by name."""
    params = problem.get("params") or {}
    listed = params.get("children") or params.get("path") or []
    return {
        str(row["name"]): {key: value for key, value in row.items() if key != "name"}
        for row in listed if isinstance(row, Mapping) and "name" in row
    }


def move_names(problem: Mapping[str, Any], drawing: TreeDrawing | None) -> list[str]:
    """Return what a "pick one" part chooses from: root children, listed rows or legal moves."""
    if drawing is not None:
        return list(drawing.nodes[0].children)
    return list(listed_facts(problem)) or legal_moves(problem)


def option_text(option: Mapping[str, Any]) -> str:
    """Return what a multiple-choice option shows: its text, or its value as a number."""
    shown = str(option["text"]) if "text" in option else format_number(option.get("value"))
    return f"({option['id']}) {shown}"


def part_fields(
    parts: Sequence[AnswerPart],
    problem: Mapping[str, Any],
    drawing: TreeDrawing | None,
    given: Mapping[str, Any] | None = None,
) -> list[PartField]:
    """Return one :class:`PartField` per part, placing on the tree what belongs there."""
    given = given or {}
    fields = []
    leaves_taken = False
    for part in parts:
        previous = given.get(part.name)
        match part.type:
            case PartType.NUMBER if part.name == "value" and drawing is not None:
                fields.append(PartField(part, "tree_value", given=previous))
            case PartType.NUMBER:
                fields.append(PartField(part, "number", given=previous))
            case PartType.NAME if part.name == "move" and drawing is not None:
                fields.append(PartField(part, "tree_move", given=previous))
            case PartType.NAME:
                names = move_names(problem, drawing)
                fields.append(PartField(part, "select" if names else "number",
                                        options=[(n, n) for n in names], given=previous))
            case PartType.CHOICE:
                options = [
                    (str(option["id"]), option_text(option))
                    for option in problem.get("options") or []
                ]
                fields.append(PartField(part, "choice", options=options, given=previous))
            case PartType.SET if drawing is not None and not leaves_taken:
                leaves_taken = True
                fields.append(PartField(part, "tree_leaves", given=previous))
            case PartType.SET | PartType.SEQUENCE:
                fields.append(PartField(part, "names", given=previous))
            case PartType.NODE_VALUES if drawing is not None:
                fields.append(PartField(part, "tree_node_values",
                                        rows=asked_names(problem, part, drawing), given=previous))
            case PartType.NODE_VALUES:
                fields.append(PartField(part, "records", rows=asked_names(problem, part, None),
                                        columns=("value",), given=_as_rows(previous),
                                        info=listed_facts(problem)))
            case PartType.VECTOR:
                fields.append(PartField(part, "vector", given=previous))
            case PartType.CUTOFFS:
                fields.append(PartField(part, "cutoffs", given=previous))
            case PartType.RECORDS:
                fields.append(PartField(part, "records", rows=asked_names(problem, part, drawing),
                                        columns=part.fields, given=_records_given(previous),
                                        info=listed_facts(problem)))
    return fields


def _as_rows(values: Any) -> dict[str, dict[str, Any]] | None:
    if not isinstance(values, Mapping):
        return None
    return {name: {"value": value} for name, value in values.items()}


def _records_given(value: Any) -> dict[str, Any] | None:
    if isinstance(value, Mapping):
        return {str(name): fields for name, fields in value.items()}
    if isinstance(value, list):
        return {
            str(row["name"]): {k: v for k, v in row.items() if k != "name"}
            for row in value if isinstance(row, Mapping) and "name" in row
        }
    return None


def decorate_tree(drawing: TreeDrawing, fields: Sequence[PartField]) -> None:
    """Put the on-tree inputs of ``fields`` onto the drawing's nodes."""
    root = drawing.nodes[0]
    for part_field in fields:
        match part_field.widget:
            case "tree_value":
                root.value_input = part_field.name
                root.value_given = part_field.given_text
            case "tree_move":
                for name in root.children:
                    child = drawing.by_name[name]
                    child.move_input = part_field.name
                    child.move_given = part_field.given == name
            case "tree_leaves":
                chosen = set(part_field.given or [])
                for leaf in drawing.leaves:
                    leaf.pruned_input = part_field.name
                    leaf.pruned_given = leaf.name in chosen
            case "tree_node_values":
                values = part_field.given if isinstance(part_field.given, Mapping) else {}
                for name in part_field.rows:
                    node = drawing.by_name.get(name)
                    if node is not None and not node.value_input:
                        node.value_input = f"{part_field.name}-{name}"
                        node.value_given = str(values.get(name, ""))


def read_answer(fields: Sequence[PartField], data: QueryDict) -> dict[str, Any]:
    """Return the answer (part name → value) the posted ``data`` gives; blank parts left out."""
    answer: dict[str, Any] = {}
    for part_field in fields:
        value = _read_part(part_field, data)
        if value is not None:
            answer[part_field.part.name] = value
    return answer


def _read_part(part_field: PartField, data: QueryDict) -> Any:
    name = part_field.name
    match part_field.widget:
        case "tree_value" | "number" | "tree_move" | "select" | "choice":
            return data.get(name, "").strip() or None
        case "tree_leaves":
            # A tick box cannot say "unanswered": no ticks means "nothing is pruned".
            return [leaf for leaf in data.getlist(name) if leaf]
        case "names":
            if part_field.none_box and data.get(part_field.none_box):
                return []
            return split_names(data.get(name, "")) or None
        case "vector":
            entries = split_vector(data.get(name, ""))
            return [entry for entry in entries if entry] or None
        case "tree_node_values":
            values = {row: data.get(f"{name}-{row}", "").strip() for row in part_field.rows}
            return {row: value for row, value in values.items() if value} or None
        case "cutoffs":
            if data.get(part_field.none_box):
                return []
            return parse_cutoffs(data.get(name, "")) or None
        case "records":
            return _read_records(part_field, data)
    return None


def _read_records(part_field: PartField, data: QueryDict) -> Any:
    rows: dict[str, dict[str, str]] = {}
    for row, _facts, cells in part_field.cells:
        values = {
            column: data.get(input_name, "").strip() for column, _label, input_name, _ in cells
        }
        if any(values.values()):
            rows[row] = values
    if not rows:
        return None
    if part_field.part.type is PartType.NODE_VALUES:
        return {row: values["value"] for row, values in rows.items()}
    return rows


def split_names(text: str) -> list[str]:
    """Return the node names in ``text``, separated by commas, semicolons or spaces."""
    return [name for name in NAME_SEPARATORS.split(text.strip()) if name]


def split_vector(text: str) -> list[str]:
    """Return the entries of a typed vector: semicolons separate them when there is one (so
    "2,5; 1" keeps its decimal comma), else commas, else spaces ("5 8 7"; a fraction may
    keep spaces around its bar, "7 / 2 1 3")."""
    if ";" in text or "," in text:
        return [entry.strip() for entry in text.split(";" if ";" in text else ",")]
    return SPACED_BAR.sub("/", text).split() or [text.strip()]


def parse_cutoffs(text: str) -> list[dict[str, Any]]:
    """Return cutoffs from lines like ``B: B2 B3`` (node, a colon, the skipped children)."""
    cutoffs = []
    for line in text.splitlines():
        if not line.strip():
            continue
        node, _colon, pruned = line.partition(":")
        cutoffs.append({"node": node.strip(), "pruned": split_names(pruned)})
    return cutoffs


WIDGET_HELP = {
    "number": _("Type numbers as 3, -2.5 or 7/2, and infinity as ∞, inf or -inf."),
    "names": _("Names separated by commas, e.g. A1, B2."),
    "vector": _("One number per player, separated by commas, e.g. 3, 1, 2."),
    "cutoffs": _("One cutoff per line, in the order they happen: the node, a colon, then the "
                 "children it skips, e.g. B: B2 B3."),
}
