"""Check an answer's format part by part before it is stored, naming the part and the rule.

A malformed answer is refused with a 400 and never uses an attempt; an answer that is well
formed but wrong is stored and graded. Names must exist in the student's tree, so a typo is
caught here rather than costing an attempt.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from exercises.kinds.base import AnswerPart, PartType
from grading.scoring import to_number

MAX_LIST_LENGTH = 1000
MAX_NAME_LENGTH = 100


class AnswerFormatError(Exception):
    """An answer part breaks a format rule; ``part`` and ``rule`` say which and how."""

    def __init__(self, part: str, rule: str) -> None:
        super().__init__(f"{part}: {rule}")
        self.part = part
        self.rule = rule


@dataclass(frozen=True)
class TreeNames:
    """The node names of a problem's tree: every node, and the leaves."""

    nodes: frozenset[str]
    leaves: frozenset[str]

    @classmethod
    def of(cls, problem: Mapping[str, Any]) -> TreeNames:
        """Return the names found in ``problem["tree"]`` (empty for kinds without a tree)."""
        nodes, leaves = set(), set()
        for node in _walk(problem.get("tree")):
            nodes.add(node["name"])
            if not node.get("children"):
                leaves.add(node["name"])
        for child in problem.get("params", {}).get("children", []) or []:
            if isinstance(child, Mapping) and isinstance(child.get("name"), str):
                nodes.add(child["name"])
        for step in problem.get("params", {}).get("path", []) or []:
            if isinstance(step, Mapping) and isinstance(step.get("name"), str):
                nodes.add(step["name"])
        return cls(frozenset(nodes), frozenset(leaves))


def _walk(node: Any) -> Iterator[Mapping[str, Any]]:
    stack = [node] if isinstance(node, Mapping) else []
    while stack:
        current = stack.pop()
        if isinstance(current.get("name"), str):
            yield current
        stack.extend(c for c in current.get("children", []) or [] if isinstance(c, Mapping))


def check_number(part: str, value: Any) -> None:
    """Refuse anything but a number or a number string ("3", "-2.5", "7/2", "inf")."""
    try:
        to_number(value)
    except ValueError:
        raise AnswerFormatError(
            part, _('must be a number such as 3, -2.5 or "7/2", got %(value)s')
            % {"value": _shown(value)}
        ) from None


def check_name(part: str, value: Any, known: frozenset[str]) -> None:
    """Refuse anything but the name of a node of this tree."""
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_NAME_LENGTH:
        raise AnswerFormatError(part, _("must be a node name (a non-empty string)"))
    if known and value.strip() not in known:
        raise AnswerFormatError(
            part, _('"%(name)s" is not a node of this tree') % {"name": value[:MAX_NAME_LENGTH]}
        )


def check_names(part: str, value: Any, known: frozenset[str], *, unique: bool) -> None:
    """Refuse anything but a list of node names (each at most once when ``unique``)."""
    check_list(part, value)
    for name in value:
        check_name(part, name, known)
    if unique and len(set(value)) != len(value):
        raise AnswerFormatError(part, _("must list each name at most once"))


def check_list(part: str, value: Any) -> None:
    """Refuse anything but a JSON list of bounded length."""
    if not isinstance(value, list):
        raise AnswerFormatError(part, _("must be a list"))
    if len(value) > MAX_LIST_LENGTH:
        raise AnswerFormatError(
            part, _("must have at most %(count)d entries") % {"count": MAX_LIST_LENGTH}
        )


def check_node_values(part: str, value: Any, names: TreeNames) -> None:
    """Refuse anything but an object mapping node names to numbers (or payoff vectors)."""
    if not isinstance(value, Mapping):
        raise AnswerFormatError(part, _('must be an object of node name → value, e.g. {"B": 3}'))
    if len(value) > MAX_LIST_LENGTH:
        raise AnswerFormatError(
            part, _("must have at most %(count)d entries") % {"count": MAX_LIST_LENGTH}
        )
    for name, node_value in value.items():
        check_name(part, name, names.nodes)
        if isinstance(node_value, list):
            check_vector(f"{part}.{name}", node_value)
        else:
            check_number(f"{part}.{name}", node_value)


def check_vector(part: str, value: Any) -> None:
    """Refuse anything but a non-empty list of numbers."""
    check_list(part, value)
    if not value:
        raise AnswerFormatError(part, _("must be a non-empty list of numbers"))
    for index, entry in enumerate(value):
        check_number(f"{part}[{index}]", entry)


def check_cutoffs(part: str, value: Any, names: TreeNames) -> None:
    """Refuse anything but a list of ``{"node": name, "pruned": [names]}``."""
    check_list(part, value)
    for index, entry in enumerate(value):
        where = f"{part}[{index}]"
        if not isinstance(entry, Mapping) or "node" not in entry:
            raise AnswerFormatError(
                where, _('must be an object {"node": name, "pruned": [names]}')
            )
        check_name(f"{where}.node", entry["node"], names.nodes)
        check_names(f"{where}.pruned", entry.get("pruned", []), names.nodes, unique=True)


def check_records(part: str, value: Any, names: TreeNames) -> None:
    """Refuse anything but rows ``[{"name": n, field: number}]`` or name → fields (or null)."""
    rows: Iterable[tuple[Any, Any]] | None = value.items() if isinstance(value, Mapping) else None
    if rows is not None and len(value) > MAX_LIST_LENGTH:
        raise AnswerFormatError(
            part, _("must have at most %(count)d entries") % {"count": MAX_LIST_LENGTH}
        )
    if rows is None:
        check_list(part, value)
        if not all(isinstance(row, Mapping) and "name" in row for row in value):
            raise AnswerFormatError(part, _('must be a list of rows {"name": n, field: number}'))
        rows = [(row["name"], {k: v for k, v in row.items() if k != "name"}) for row in value]
    for name, fields in rows:
        check_name(part, name, names.nodes)
        if fields is None:
            continue
        if not isinstance(fields, Mapping):
            raise AnswerFormatError(f"{part}.{name}", _("must be an object of field → number"))
        for field_name, number in fields.items():
            check_number(f"{part}.{name}.{field_name}", number)


def check_choice(part: AnswerPart, value: Any, problem: Mapping[str, Any]) -> None:
    """Refuse anything but the id of one of the problem's options."""
    choices = [
        str(option.get("id")) for option in problem.get("options") or []
        if isinstance(option, Mapping)
    ]
    if not isinstance(value, str) or value not in choices:
        raise AnswerFormatError(
            part.name, _("must be one of: %(choices)s") % {"choices": ", ".join(choices)}
        )


def validate_answer(
    answer: Any, parts: Sequence[AnswerPart], problem: Mapping[str, Any]
) -> dict[str, Any]:
    """Return the answer's parts once every one is well formed; raise AnswerFormatError if not.

    Parts may be left out (they score nothing), but at least one must be given and no unknown
    part may appear.
    """
    if not isinstance(answer, Mapping) or not answer:
        raise AnswerFormatError(
            "answer",
            _("must be an object with at least one of the parts: %(parts)s")
            % {"parts": ", ".join(p.name for p in parts)},
        )
    by_name = {part.name: part for part in parts}
    unknown = [name for name in answer if name not in by_name]
    if unknown:
        raise AnswerFormatError(
            str(unknown[0])[:MAX_NAME_LENGTH],
            _("is not a part of this item; its parts are: %(parts)s")
            % {"parts": ", ".join(by_name)},
        )
    names = TreeNames.of(problem)
    for name, value in answer.items():
        check_part(by_name[name], value, names, problem)
    return dict(answer)


def check_part(
    part: AnswerPart, value: Any, names: TreeNames, problem: Mapping[str, Any]
) -> None:
    """Check one part's value against the rule for its type."""
    match part.type:
        case PartType.NUMBER:
            check_number(part.name, value)
        case PartType.NAME:
            check_name(part.name, value, names.nodes)
        case PartType.CHOICE:
            check_choice(part, value, problem)
        case PartType.SET:
            check_names(part.name, value, names.nodes, unique=True)
        case PartType.SEQUENCE:
            check_names(part.name, value, names.nodes, unique=False)
        case PartType.NODE_VALUES:
            check_node_values(part.name, value, names)
        case PartType.VECTOR:
            check_vector(part.name, value)
        case PartType.CUTOFFS:
            check_cutoffs(part.name, value, names)
        case PartType.RECORDS:
            check_records(part.name, value, names)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
