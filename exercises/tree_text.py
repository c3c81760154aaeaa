"""Read and write game trees in the compact text form teachers write on a board.

``MAX(A: MIN(3, 5), B: MIN(2, 9))`` is the tree of ``gametree/1`` JSON whose MAX root has
two MIN children ``A`` and ``B`` with leaves 3, 5 and 2, 9. The grammar (docs/tree-text.md)::

    tree   := node
    node   := [name ":"] body
    body   := number | "(" number {"," number} ")"      leaf: a value, or a payoff vector
            | type "(" branch {"," branch} ")"          inner node, children left to right
    type   := MAX | MIN | CHANCE | player               keywords in any case; any other
                                                        identifier (or quoted name) is the
                                                        player who moves at the node
    branch := ["[" number "]"] node                     [p]: the probability of a chance
                                                        node's child; none at all: uniform
    number := -12 | 3.5 | 7/2                           integers, decimals, exact fractions
    name   := identifier | "JSON string"

Unnamed nodes are named the classroom way (:func:`exercises.kinds.trees.child_name`): the
root ``root``, its children ``A``, ``B``…, theirs ``A1``, ``A2``…; :func:`print_tree_text`
leaves those names out, so ``parse_tree_text(print_tree_text(tree)) == tree``. Errors are
:class:`TreeTextError`, carrying the position and the rule broken.
"""

from __future__ import annotations

import json
import re
import string
from decimal import Decimal
from fractions import Fraction
from typing import Any

MAX_TEXT = 20_000
"""Longest text read: a 200-node tree (the page limit) takes well under this."""
MAX_NESTING = 200
"""Deepest nesting read, as deep as the engine searches."""
KEYWORDS = {"MAX": "max", "MIN": "min", "CHANCE": "chance"}
ROOT = "root"

NUMBER_TEXT = re.compile(r"-?\d+(?:\.\d+)?(?:/\d+)?")
_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<number>-?\d+(?:\.\d+)?(?:/\d+)?)(?![\w.])
  | (?P<ident>[^\W\d]\w*)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<punct>[():,\[\]])
""", re.VERBOSE)


class TreeTextError(ValueError):
    """Signal that a tree's text breaks the grammar; ``position`` is the 0-based offset."""

    def __init__(self, text: str, position: int, rule: str) -> None:
        line = text.count("\n", 0, position) + 1
        column = position - (text.rfind("\n", 0, position) + 1) + 1
        where = f"column {column}" if line == 1 else f"line {line}, column {column}"
        super().__init__(f"{where}: {rule}")
        self.position = position
        self.line = line
        self.column = column
        self.rule = rule


def auto_name(parent: str, index: int, depth: int) -> str:
    """Return the name an unnamed ``index``-th child at ``depth`` gets (as random trees)."""
    if depth == 1:
        return string.ascii_uppercase[index] if index < 26 else f"N{index + 1}"
    if depth % 2 == 0:
        return f"{parent}{index + 1}"
    return f"{parent}{string.ascii_lowercase[index]}" if index < 26 else f"{parent}_{index + 1}"


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, str, int]] = []
        position = 0
        while position < len(text):
            match = _TOKEN.match(text, position)
            if match is None and text[position] in "-0123456789":
                raise TreeTextError(text, position, "a number is written like 3, -2, 3.5 or "
                                    "7/2 (no exponents, no trailing dot)")
            if match is None:
                raise TreeTextError(text, position, f"unexpected character {text[position]!r}")
            if match.lastgroup != "space":
                self.tokens.append((str(match.lastgroup), match.group(), position))
            position = match.end()
        self.index = 0
        self.positions: list[tuple[str, int]] = []  # (name, where it was given), tree order

    def peek(self, offset: int = 0) -> tuple[str, str, int]:
        if self.index + offset < len(self.tokens):
            return self.tokens[self.index + offset]
        return ("end", "", len(self.text))

    def take(self, value: str, rule: str) -> None:
        kind, text, position = self.peek()
        if text != value or kind != "punct":
            found = "the end of the text" if kind == "end" else repr(text)
            raise TreeTextError(self.text, position, f"{rule}, found {found}")
        self.index += 1

    def error(self, rule: str) -> TreeTextError:
        kind, text, position = self.peek()
        found = "the end of the text" if kind == "end" else repr(text)
        return TreeTextError(self.text, position, f"{rule}, found {found}")

    def node(self, name: str, depth: int) -> dict[str, Any]:
        if depth > MAX_NESTING:
            raise self.error(f"trees may be at most {MAX_NESTING} levels deep")
        kind, text, start = self.peek()
        if kind in ("ident", "string") and self.peek(1)[1] == ":":
            name = json.loads(text) if kind == "string" else text
            self.index += 2
        self.positions.append((name, start))
        kind, text, _position = self.peek()
        if kind == "number":
            return {"name": name, "value": self.number("a leaf is a number")}
        if text == "(" and kind == "punct":
            self.index += 1
            values = [self.number("a payoff vector lists numbers")]
            while self.peek()[1] == ",":
                self.index += 1
                values.append(self.number("a payoff vector lists numbers"))
            self.take(")", "a payoff vector ends with ')'")
            return {"name": name, "value": values}
        if kind in ("ident", "string") and self.peek(1)[1] == "(":
            self.index += 2
            return self.inner(name, depth, text if kind == "ident" else json.loads(text),
                              quoted=kind == "string")
        raise self.error("expected a node: a number, a payoff vector like (3, 1, 2), or "
                         "MAX(...), MIN(...), CHANCE(...) or a player's name with (...)")

    def inner(self, name: str, depth: int, word: str, *, quoted: bool) -> dict[str, Any]:
        node_type = None if quoted else KEYWORDS.get(word.upper())
        node: dict[str, Any] = {"name": name, "type": node_type or "player"}
        if node_type is None:
            node["player"] = word
        children: list[dict[str, Any]] = []
        probabilities: list[Any] = []
        while True:
            if self.peek()[1] == "[":
                if node_type != "chance":
                    raise self.error("only a CHANCE node's branches carry a probability [p]")
                if len(probabilities) < len(children):
                    raise self.error("give every branch of a CHANCE node a probability [p], "
                                     "or none")
                self.index += 1
                probabilities.append(self.number("a probability is a number like 1/3 or 0.5"))
                self.take("]", "a probability ends with ']'")
            elif probabilities:
                raise self.error("give every branch of a CHANCE node a probability [p], or none")
            start = len(children)
            children.append(self.node(auto_name(name, start, depth + 1), depth + 1))
            if self.peek()[1] != ",":
                break
            self.index += 1
        self.take(")", "expected ',' before the next child or ')' after the last one")
        node["children"] = children
        if node_type == "chance":
            uniform = str(Fraction(1, len(children)))
            node["probabilities"] = probabilities or [uniform] * len(children)
        return node

    def number(self, rule: str) -> Any:
        kind, text, position = self.peek()
        if kind != "number":
            raise self.error(rule)
        self.index += 1
        if len(text) > MAX_NUMBER_CHARACTERS:
            raise TreeTextError(self.text, position, f"a number may have at most "
                                f"{MAX_NUMBER_CHARACTERS} characters")
        return number(text)


MAX_NUMBER_CHARACTERS = 64
"""Longest number token: far past what a tree's values need (checked again in digits)."""


def number(text: str) -> Any:
    """Return a number token as JSON: an int, a float for a decimal a float holds exactly as
    written, a string otherwise (the engine reads "0.30000000000000001" exactly), a string
    for fractions."""
    if "/" in text:
        return text
    if "." in text:
        as_float = float(text)
        return as_float if Fraction(str(as_float)) == Fraction(text) else text
    return int(text)


def parse_tree_text(text: str) -> dict[str, Any]:
    """Return the ``gametree/1`` tree written as ``text``; raise :class:`TreeTextError`."""
    if len(text) > MAX_TEXT:
        raise TreeTextError(text[:0], 0, f"a tree's text may be at most {MAX_TEXT} characters")
    parser = _Parser(text)
    tree = parser.node(ROOT, 0)
    if parser.peek()[0] != "end":
        raise parser.error("the tree has ended; nothing may follow it")
    seen: set[str] = set()
    for name, position in parser.positions:
        if name in seen:
            raise TreeTextError(text, position, f'the name "{name}" is used twice; node names '
                                "must be unique (unnamed nodes are named A, B, A1, A2…)")
        seen.add(name)
    return tree


def _name_text(name: str) -> str:
    if name.isidentifier() and name.upper() not in KEYWORDS:
        return name
    return json.dumps(name, ensure_ascii=False)


def _number_text(value: Any) -> str:
    if isinstance(value, float):
        return format(Decimal(repr(value)), "f")
    return str(value)


def print_tree_text(tree: dict[str, Any]) -> str:
    """Return ``tree`` (``gametree/1`` JSON) in the text form, automatic names left out.

    Raise :class:`ValueError` for what the text form cannot say: a value that is not a
    number the grammar reads (such as "3.50" or 1e-3 written as a string), or an inner
    node's ``value`` estimate.
    """
    return _print(tree, ROOT, 0)


def _print(node: dict[str, Any], auto: str, depth: int) -> str:
    prefix = "" if node["name"] == auto else f"{_name_text(node['name'])}: "
    if "children" not in node:
        value = node["value"]
        body = ("(" + ", ".join(_checked(v) for v in value) + ")" if isinstance(value, list)
                else _checked(value))
        return prefix + body
    if "value" in node:
        raise ValueError(f'node "{node["name"]}": inner node estimates have no text form')
    children = node["children"]
    parts = [_print(child, auto_name(node["name"], i, depth + 1), depth + 1)
             for i, child in enumerate(children)]
    if node["type"] == "chance":
        uniform = str(Fraction(1, len(children)))
        if any(p != uniform for p in node["probabilities"]):
            parts = [f"[{_checked(p)}] {part}" for p, part in zip(node["probabilities"], parts,
                                                                   strict=True)]
        word = "CHANCE"
    elif node["type"] == "player":
        word = node["player"]
        if not (word.isidentifier() and word.upper() not in KEYWORDS):
            word = json.dumps(word, ensure_ascii=False)
    else:
        word = node["type"].upper()
    return f"{prefix}{word}({', '.join(parts)})"


def _checked(value: Any) -> str:
    text = _number_text(value)
    if isinstance(value, bool) or not NUMBER_TEXT.fullmatch(text) or number(text) != value:
        raise ValueError(f"{value!r} has no exact text form; write it as 7/2, 3.5 or 3")
    return text
