"""Check an answer's format part by part before it is stored, naming the part and the rule.

A malformed answer is refused with a 400 and never uses an attempt; an answer that is well
formed but wrong is stored and graded. Names must exist in the student's tree, so a typo is
caught here rather than costing an attempt.

Checking also normalises: every name (node names, option ids, the keys of node → value maps
and of records) is stripped of surrounding spaces, so ``" C2"`` from an API client is the
node ``C2``. The normalised answer is what is stored and graded.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.utils.translation import get_language
from django.utils.translation import gettext as _

from exercises.kinds.base import AnswerPart, PartType
from grading.scoring import to_number

MAX_LIST_LENGTH = 1000
MAX_NAME_LENGTH = 100
MAX_NUMBER_LENGTH = 64
DECIMAL_COMMA_LANGUAGES = frozenset({"pt", "ca"})
"""Languages whose pages write (and whose readers type) a decimal comma: 0,89."""
DECIMAL_COMMA = re.compile(r"^\s*[+\-\u2212]?\d*,\d+\s*$")


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
            # Transposition tables are asked by position: the key rows of repeated positions.
            if isinstance(node.get("position"), str):
                nodes.add(node["position"])
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


def writes_decimal_comma(language: str | None = None) -> bool:
    """Return whether ``language`` (default: the active one) writes 2,5 for two and a half."""
    return (language or get_language() or "").split("-")[0] in DECIMAL_COMMA_LANGUAGES


SPACED_BAR = re.compile(r"\s*/\s*")
SPACED_SIGN = re.compile(r"^([+\-\u2212])\s+")
SPACE_BETWEEN_DIGITS = re.compile(r"\S\s+\S")
"""Spaces may stand around a fraction's bar and after a sign; any other between characters
makes two numbers of one."""


def check_number(part: str, value: Any) -> Any:
    """Refuse anything but a number or a number string ("3", "-2.5", "7/2", "inf"); return it.

    Where the reader's language writes a decimal comma, "0,89" is read (and stored) as
    "0.89", exactly; the point is accepted in every language. Infinity may be typed as any of
    scoring.INFINITIES (∞, +∞, -∞, −∞, inf, infinity, +inf, -inf, in any case).
    """
    if isinstance(value, str) and len(value) > MAX_NUMBER_LENGTH:
        raise AnswerFormatError(
            part, _("must be a number of at most %(count)d characters")
            % {"count": MAX_NUMBER_LENGTH}
        )
    if isinstance(value, str) and writes_decimal_comma() and DECIMAL_COMMA.match(value):
        value = value.strip().replace(",", ".")
    try:
        if isinstance(value, str) and SPACE_BETWEEN_DIGITS.search(
                SPACED_SIGN.sub(r"\1", SPACED_BAR.sub("/", value.strip()))):
            # "1 2" would be read as 12, "5 8 7" as 587: two numbers glued into another.
            raise ValueError(value)
        to_number(value)
    except ValueError:
        raise AnswerFormatError(
            part, _('must be a number such as 3, -2.5 or "7/2", got %(value)s')
            % {"value": _shown(value)}
        ) from None
    return value


def check_name(part: str, value: Any, known: frozenset[str], *, moves: bool = False) -> str:
    """Refuse anything but the name of a node of this tree (a legal move of the position
    with ``moves``); return it without outer spaces."""
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_NAME_LENGTH:
        raise AnswerFormatError(part, _("must be a node name (a non-empty string)"))
    name = value.strip()
    if known and name not in known:
        if moves:
            raise AnswerFormatError(part, _('"%(name)s" is not a legal move here; the legal '
                                            'moves are %(moves)s') % {
                "name": name, "moves": ", ".join(sorted(known, key=_move_order))})
        raise AnswerFormatError(part, _('"%(name)s" is not a node of this tree') % {"name": name})
    return name


def _move_order(move: str) -> tuple[int, str]:
    return (int(move), "") if move.isascii() and move.isdigit() else (0, move)


def check_names(part: str, value: Any, known: frozenset[str], *, unique: bool,
                moves: bool = False) -> list[str]:
    """Refuse anything but a list of node names (each at most once when ``unique``; legal
    moves with ``moves``).

    Return the names stripped; names equal once stripped count as the same name.
    """
    check_list(part, value)
    names = [check_name(part, name, known, moves=moves) for name in value]
    if unique and len(set(names)) != len(names):
        raise AnswerFormatError(part, _("must list each name at most once"))
    return names


def check_decision(part: str, value: Any, known: frozenset[str], *, moves: bool = False
                   ) -> str | list[str]:
    """Refuse anything but a name, or a non-empty list of names (several equally good moves).

    A list is right only when every name in it is accepted (see grading.scoring), so the
    key, which lists every equally good move, is itself a full-marks answer. With ``moves``
    the names are a position's legal moves.
    """
    if not isinstance(value, list):
        return check_name(part, value, known, moves=moves)
    names = check_names(part, value, known, unique=True, moves=moves)
    if not names:
        raise AnswerFormatError(part, _("must be a node name or a non-empty list of names"))
    return names


def check_list(part: str, value: Any) -> None:
    """Refuse anything but a JSON list of bounded length."""
    if not isinstance(value, list):
        raise AnswerFormatError(part, _("must be a list"))
    if len(value) > MAX_LIST_LENGTH:
        raise AnswerFormatError(
            part, _("must have at most %(count)d entries") % {"count": MAX_LIST_LENGTH}
        )


def check_node_values(part: str, value: Any, names: TreeNames) -> dict[str, Any]:
    """Refuse anything but an object mapping node names to numbers (or payoff vectors).

    Return it with the names stripped; two keys naming the same node are refused.
    """
    if not isinstance(value, Mapping):
        raise AnswerFormatError(part, _('must be an object of node name → value, e.g. {"B": 3}'))
    if len(value) > MAX_LIST_LENGTH:
        raise AnswerFormatError(
            part, _("must have at most %(count)d entries") % {"count": MAX_LIST_LENGTH}
        )
    cleaned: dict[str, Any] = {}
    for raw_name, node_value in value.items():
        name = _unique_name(part, raw_name, names.nodes, cleaned)
        if isinstance(node_value, list):
            cleaned[name] = check_vector(f"{part}.{name}", node_value)
        else:
            cleaned[name] = check_number(f"{part}.{name}", node_value)
    return cleaned


def _unique_name(part: str, raw: Any, known: frozenset[str], seen: Mapping[str, Any]) -> str:
    """Return a checked name that is not yet among ``seen`` (e.g. " B" after "B")."""
    name = check_name(part, raw, known)
    if name in seen:
        raise AnswerFormatError(part, _("must list each name at most once"))
    return name


def check_vector(part: str, value: Any, length: int | None = None) -> list[Any]:
    """Refuse anything but a non-empty list of numbers, of ``length`` numbers when the part
    says how many (one per player, per iteration): a list of another length cannot be the
    answer, so it is a format error rather than a wrong answer; return it."""
    check_list(part, value)
    if not value:
        raise AnswerFormatError(part, _("must be a non-empty list of numbers"))
    if length is not None and len(value) != length:
        raise AnswerFormatError(part, _("must be a list of %(count)d numbers (got %(given)d)")
                                % {"count": length, "given": len(value)})
    return [check_number(f"{part}[{index}]", entry) for index, entry in enumerate(value)]


def check_cutoffs(part: str, value: Any, names: TreeNames) -> list[dict[str, Any]]:
    """Refuse anything but a list of ``{"node": name, "pruned": [names]}``; return it cleaned.

    A cutoff written without ``pruned`` is stored with an empty list.
    """
    check_list(part, value)
    cleaned = []
    for index, entry in enumerate(value):
        where = f"{part}[{index}]"
        if not isinstance(entry, Mapping) or "node" not in entry:
            raise AnswerFormatError(
                where, _('must be an object {"node": name, "pruned": [names]}')
            )
        cleaned.append({
            "node": check_name(f"{where}.node", entry["node"], names.nodes),
            "pruned": check_names(
                f"{where}.pruned", entry.get("pruned", []), names.nodes, unique=True
            ),
        })
    return cleaned


def check_records(
    part: str, value: Any, names: TreeNames, known: Sequence[str] = (),
    choices: Mapping[str, Sequence[str]] | None = None,
) -> Any:
    """Refuse anything but rows ``[{"name": n, field: number}]`` or name → fields (or null),
    with only the ``known`` fields (when the part declares them); a field in ``choices``
    holds one of its listed words instead of a number (e.g. an entry's flag).

    Return them in the form given, every name and word stripped.
    """
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
    cleaned: dict[str, Any] = {}
    for raw_name, fields in rows:
        name = _unique_name(part, raw_name, names.nodes, cleaned)
        if fields is not None and not isinstance(fields, Mapping):
            raise AnswerFormatError(f"{part}.{name}", _("must be an object of field → number"))
        unknown = [
            str(field_name) for field_name in fields or {} if known and field_name not in known
        ]
        if unknown:
            raise AnswerFormatError(
                f"{part}.{name}.{unknown[0][:MAX_NAME_LENGTH]}",
                _("is not a field of these rows; their fields are: %(fields)s")
                % {"fields": ", ".join(known)},
            )
        cleaned[name] = None if fields is None else {
            field_name: (
                check_word(f"{part}.{name}.{field_name}", cell, choices[field_name])
                if choices and field_name in choices
                else check_number(f"{part}.{name}.{field_name}", cell)
            )
            for field_name, cell in fields.items()
        }
    if isinstance(value, Mapping):
        return cleaned
    return [{"name": name, **(fields or {})} for name, fields in cleaned.items()]


def check_word(part: str, value: Any, words: Sequence[str]) -> str:
    """Refuse anything but one of ``words``; return it stripped."""
    word = value.strip() if isinstance(value, str) else value
    if word not in words:
        raise AnswerFormatError(
            part, _("must be one of: %(choices)s") % {"choices": ", ".join(words)}
        )
    return str(word)


def check_choice(part: AnswerPart, value: Any, problem: Mapping[str, Any]) -> str:
    """Refuse anything but the id of one of the problem's options; return it stripped."""
    choices = [
        str(option.get("id")) for option in problem.get("options") or []
        if isinstance(option, Mapping)
    ]
    choice = value.strip() if isinstance(value, str) else value
    if choice not in choices:
        raise AnswerFormatError(
            part.name, _("must be one of: %(choices)s") % {"choices": ", ".join(choices)}
        )
    return str(choice)


def validate_answer(
    answer: Any, parts: Sequence[AnswerPart], problem: Mapping[str, Any],
    moves: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """Return the answer normalised once every part is well formed; raise AnswerFormatError if not.

    Parts may be left out (they score nothing), but at least one must be given and no unknown
    part may appear. Names come back stripped of surrounding spaces (see the module's doc).
    ``moves`` are the legal moves of a pictured position (a kind without a tree): a decision
    must be one of them.
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
    return {
        name: check_decision(name, value, moves, moves=True)
        if moves and by_name[name].type is PartType.NAME
        else check_part(by_name[name], value, names, problem)
        for name, value in answer.items()
    }


def check_part(
    part: AnswerPart, value: Any, names: TreeNames, problem: Mapping[str, Any]
) -> Any:
    """Check one part's value against the rule for its type; return it normalised."""
    match part.type:
        case PartType.NUMBER:
            return check_number(part.name, value)
        case PartType.NAME:
            return check_decision(part.name, value, names.nodes)
        case PartType.CHOICE:
            return check_choice(part, value, problem)
        case PartType.SET:
            return check_names(part.name, value, names.nodes, unique=True)
        case PartType.SEQUENCE:
            return check_names(part.name, value, names.nodes, unique=False)
        case PartType.NODE_VALUES:
            return check_node_values(part.name, value, names)
        case PartType.VECTOR:
            return check_vector(part.name, value, part.options.get("length"))
        case PartType.CUTOFFS:
            return check_cutoffs(part.name, value, names)
        case PartType.RECORDS:
            return check_records(part.name, value, names, part.fields,
                                 part.options.get("choices"))
    raise AssertionError(f"part type {part.type} has no check")


def check_draft_part(part: AnswerPart, value: Any) -> None:
    """Refuse a draft value whose JSON shape cannot be shown in the part's inputs.

    A draft keeps what was typed, so the values themselves are not checked ("7/" is a fine
    draft); only their shape is: text or a number for one value, a list of them for names
    and vectors, name → value objects for node values and record rows.
    """
    scalar = (str, int, float)
    match part.type:
        case PartType.NUMBER | PartType.NAME | PartType.CHOICE:
            ok = isinstance(value, scalar) or (
                part.type is PartType.NAME and isinstance(value, list)
                and all(isinstance(v, scalar) for v in value))
        case PartType.SET | PartType.SEQUENCE | PartType.VECTOR:
            ok = isinstance(value, list) and all(isinstance(v, scalar) for v in value)
        case PartType.NODE_VALUES:
            ok = isinstance(value, Mapping) and all(
                isinstance(v, scalar) or (isinstance(v, list)
                                          and all(isinstance(e, scalar) for e in v))
                for v in value.values())
        case PartType.CUTOFFS:
            ok = isinstance(value, list) and all(
                isinstance(row, Mapping) and isinstance(row.get("node", ""), str)
                and isinstance(row.get("pruned", []), list)
                and all(isinstance(name, str) for name in row.get("pruned", []))
                for row in value)
        case PartType.RECORDS:
            rows = value.values() if isinstance(value, Mapping) else value
            ok = isinstance(rows, Iterable) and not isinstance(rows, str | Mapping) and all(
                row is None or (isinstance(row, Mapping) and all(
                    isinstance(cell, scalar) or cell is None for cell in row.values()))
                for row in rows)
        case _:
            ok = False
    if not ok or isinstance(value, bool):
        raise AnswerFormatError(part.name, _("has the wrong shape for this part"))


PATH_STEP = re.compile(r"\.([^.\[]+)|\[(\d+)\]")
FIELD_SYMBOLS = {"alpha": "α", "beta": "β"}


def part_label(path: str, parts: Sequence[AnswerPart]) -> str:
    """Return how a reader names the answer part at ``path`` ("scores.A" → "node values: A").

    The path is an AnswerFormatError's ``part``: a part name, then ``.name`` for a node or
    field and ``[i]`` for the i-th entry of a list. An unknown part keeps its path.
    """
    name, _dot, _rest = path.partition(".")
    name = name.split("[")[0]
    labels = {part.name: str(part.label) for part in parts}
    if name not in labels:
        return path
    steps = []
    for node_or_field, index in PATH_STEP.findall(path[len(name):]):
        if index:
            steps.append(_("entry %(number)d") % {"number": int(index) + 1})
        else:
            steps.append(FIELD_SYMBOLS.get(node_or_field, node_or_field))
    return ", ".join([labels[name], *steps])


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
