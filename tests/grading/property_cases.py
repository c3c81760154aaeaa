"""Cases for the grading property suite (issue 13): every kind, each answer format, many seeds.

Kinds and their formats come from the registry, so a new kind is covered without editing this
module. Each case is one generated variant item graded in-process through
:func:`grading.services.grading_context` and :func:`grading.grader.grade_answer`, exactly
what the Celery task's :func:`grading.services.grade_submission` calls;
``test_properties_stored`` proves on a slice that the stored path grades the same.

The expectations here are written for the fixed behaviour; :data:`KNOWN_FAILURES` lists the
(property, kind, format) cases that still fail on today's code, each with the defect and the
helper fixing it. They run as ``xfail(strict=True)``: once the fix is merged they pass, which
fails the run until their row is removed.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from functools import lru_cache
from typing import Any

import pytest

from exercises.generation import derive_seed, generate_item
from exercises.kinds import all_kinds, get_kind
from exercises.kinds.base import AnswerPart, PartType
from exercises.models import Item, VariantItem
from exercises.services import split_points
from grading.answers import TreeNames
from grading.grader import GradingContext
from grading.services import grading_context

SEEDS = 50
"""Seeds per kind and answer format (the issue asks for at least 50)."""
ITEM_POINTS = Decimal(10)
EXAMPLES_KEPT = 3
DESCRIPTION_CHARS = 600


# --- kinds and formats, from the registry -----------------------------------------------


def formats_of(kind_name: str) -> list[str]:
    """Return the answer formats a kind offers with its default params: open, multiple choice."""
    kind = get_kind(kind_name)
    if kind.choice_part is None:
        return ["open"]
    return ["open", "multiple_choice"]


def format_params(kind_name: str, answer_format: str) -> dict[str, Any]:
    """Return the kind's default params for ``answer_format``, every default explicit."""
    raw = {} if answer_format == "open" else {"answer_format": answer_format}
    return get_kind(kind_name).clean_params(raw)


def answered_kinds() -> list[str]:
    """Return the kinds answered with typed parts (code kinds are graded in the sandbox)."""
    return [kind.name for kind in all_kinds() if kind.answer_parts(kind.clean_params({}))]


def kind_formats(kinds: list[str] | None = None) -> list[tuple[str, str]]:
    """Return (kind, answer format) for every answered kind and each format it offers."""
    return [(name, fmt) for name in kinds or answered_kinds() for fmt in formats_of(name)]


def case_seed(kind_name: str, answer_format: str, index: int) -> str:
    """Return the deterministic seed of case ``index`` of a kind and format."""
    return derive_seed("issue-13/properties", kind_name, answer_format, index)


# --- known failures: one table ----------------------------------------------------------

KNOWN_FAILURES: dict[tuple[str, str, str], str] = {}
"""THE TABLE of known failures: (property, kind, format) → the defect and who fixes it.

Each is marked ``xfail(strict=True)``: when the fix is merged the case passes, which fails
the run (XPASS strict) until its row here is removed. Empty since helpers A, B and C were
merged (padded names, cutoffs' children, ties, diagnosis consistency, multiple-choice and
tic-tac-toe generation, feedback hiding the key under the default ``verdicts`` policy)."""


def cases(prop: str, pairs: list[tuple[str, str]], seeds: int = SEEDS) -> list[Any]:
    """Return pytest params for ``prop`` over (kind, format), ids like ``minimax-open-50-seeds``.

    A pair listed in :data:`KNOWN_FAILURES` is marked ``xfail(strict=True)``.
    """
    params = []
    for kind_name, answer_format in pairs:
        reason = KNOWN_FAILURES.get((prop, kind_name, answer_format))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params.append(pytest.param(kind_name, answer_format, marks=marks,
                                   id=f"{kind_name}-{answer_format}-{seeds}-seeds"))
    return params


# --- generated cases --------------------------------------------------------------------


@lru_cache(maxsize=4096)
def generated(kind_name: str, answer_format: str, index: int) -> Any:
    """Return the generated item of one case (cached: several properties read each)."""
    params = format_params(kind_name, answer_format)
    return generate_item(kind_name, params, case_seed(kind_name, answer_format, index))


def unsaved_variant_item(kind_name: str, answer_format: str, index: int) -> VariantItem:
    """Return the case as an (unsaved) variant item of an item worth :data:`ITEM_POINTS`."""
    params = format_params(kind_name, answer_format)
    item = Item(kind=kind_name, params=params, points=ITEM_POINTS, position=1,
                part_points=split_points(kind_name, params, ITEM_POINTS))
    made = generated(kind_name, answer_format, index)
    return VariantItem(item=item, position=1, seed=case_seed(kind_name, answer_format, index),
                       problem=made.problem, prompt=made.prompt, answer_key=made.answer_key,
                       trace=made.trace, engine_version=made.engine_version)


def first_context(kind_name: str, answer_format: str) -> GradingContext:
    """Return the grading context of the first seed of a kind and format that generates."""
    for index in range(SEEDS):
        try:
            return context_of(kind_name, answer_format, index)
        except Exception:  # noqa: BLE001 - generation is checked by its own property
            continue
    raise AssertionError(f"no seed of {kind_name}/{answer_format} generates")


def context_of(kind_name: str, answer_format: str, index: int) -> GradingContext:
    """Return the grading context the Celery task would build for the case."""
    return grading_context(unsaved_variant_item(kind_name, answer_format, index))


# --- figures ----------------------------------------------------------------------------


@dataclass
class Tally:
    """Cases run and failures of one property, with a few failing examples."""

    cases: int = 0
    failures: int = 0
    examples: list[str] = field(default_factory=list)


FIGURES: dict[str, Tally] = {}
"""Property → tally over the whole run, printed at the end of the session."""


class Checker:
    """Count one property's cases for a kind and format, and fail with figures at the end."""

    def __init__(self, prop: str, kind_name: str, answer_format: str) -> None:
        self.prop, self.label = prop, f"{kind_name}/{answer_format}"
        self.cases = 0
        self.failures: list[str] = []
        self.categories: Counter[str] = Counter()
        self.skipped = 0
        self.tally = FIGURES.setdefault(prop, Tally())

    def contexts(self, kind_name: str, answer_format: str
                 ) -> Iterator[tuple[int, GradingContext]]:
        """Yield (seed index, grading context) for each seed whose item generates.

        A seed whose generation raises is skipped and counted here; generating is a property
        of its own (``test_properties_generation``), so grading is still checked on the rest.
        """
        for index in range(SEEDS):
            try:
                context = context_of(kind_name, answer_format, index)
            except Exception:  # noqa: BLE001 - any generation failure is counted, not hidden
                self.skipped += 1
                continue
            yield index, context

    def check(self, ok: bool, why: str, category: str = "") -> bool:
        """Count one case; remember it as a failure, ``why`` and in ``category``, if not ``ok``."""
        self.cases += 1
        self.tally.cases += 1
        if not ok:
            text = why if len(why) <= DESCRIPTION_CHARS else why[:DESCRIPTION_CHARS] + "…"
            self.tally.failures += 1
            self.failures.append(text)
            self.categories[category] += 1
            if len(self.tally.examples) < EXAMPLES_KEPT:
                self.tally.examples.append(f"{self.label}: {text}")
        return ok

    def finish(self, minimum: int = 1) -> None:
        """Fail when any case failed (or fewer than ``minimum`` ran), printing the figures."""
        summary = f"{self.prop} {self.label}: {self.cases} cases, {len(self.failures)} failures"
        if self.categories:
            summary += " (" + ", ".join(f"{c or 'other'}: {n}"
                                        for c, n in sorted(self.categories.items())) + ")"
        if self.skipped:
            summary += f"; {self.skipped} of {SEEDS} seeds skipped: their generation raised"
        print(summary)
        assert self.skipped < SEEDS, f"{summary}; no seed generates"
        assert self.cases >= minimum, f"{summary}; expected at least {minimum} cases"
        assert not self.failures, summary + "; e.g.\n  " + "\n  ".join(self.failures[:3])


def outcome(results: list[dict[str, Any]]) -> str:
    """Describe graded parts briefly: each part's verdict, points, message codes, misconception."""
    return "; ".join(
        f"{r['part']} {r['verdict']} {r['points']}/{r['max_points']}"
        + (f" {[m['code'] for m in r['messages']]}" if r["messages"] else "")
        + (f" ({r['misconception']})" if r.get("misconception") else "")
        for r in results)


class FiguresReporter:
    """Print cases run and failures per property at the end of the session."""

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """Write one line per property."""
        if not FIGURES:
            return
        terminalreporter.section("grading properties (issue 13)")
        for prop, tally in sorted(FIGURES.items()):
            terminalreporter.write_line(
                f"{prop}: {tally.cases} cases run, {tally.failures} failures")
            for example in tally.examples:
                terminalreporter.write_line(f"    e.g. {example[:300]}")


def register_figures(config: Any) -> None:
    """Register the end-of-session figures once per session."""
    if not config.pluginmanager.has_plugin("issue13-figures"):
        config.pluginmanager.register(FiguresReporter(), "issue13-figures")


# --- what a value means, independent of grading.scoring ---------------------------------


def number(raw: Any) -> Fraction | float:
    """Return a number as written in keys and answers: int, float, "7/2", "3.5", "inf"."""
    if isinstance(raw, bool):
        raise ValueError(raw)
    if isinstance(raw, int):
        return Fraction(raw)
    if isinstance(raw, float):
        return raw if math.isinf(raw) else Fraction(str(raw))
    text = str(raw).strip()
    lowered = text.lower().lstrip("+")
    if lowered in ("inf", "∞"):
        return math.inf
    if lowered in ("-inf", "-∞"):
        return -math.inf
    return Fraction(text)


def numbers_same(a: Any, b: Any, tolerance: Fraction | None) -> bool:
    """Return whether two written numbers are the same value (within ``tolerance``)."""
    x, y = number(a), number(b)
    if isinstance(x, float) or isinstance(y, float) or tolerance is None:
        return x == y
    return abs(x - y) <= tolerance


def name(raw: Any) -> str:
    """Return a written name without its padding."""
    return str(raw).strip()


def rows(raw: Any) -> dict[str, dict[str, Any] | None]:
    """Return records written as name → fields or as ``[{"name", ...}]``, by name."""
    if isinstance(raw, Mapping):
        return {name(k): None if v is None else dict(v) for k, v in raw.items()}
    return {name(r["name"]): {k: v for k, v in r.items() if k != "name"} for r in raw}


def names_of(raw: Any) -> list[str]:
    """Return the names of a decision: one name, or a list of equally good ones."""
    return [name(n) for n in raw] if isinstance(raw, list) else [name(raw)]


def same(part: AnswerPart, a: Any, b: Any) -> bool:
    """Return whether two values of ``part`` say the same thing (two keys, or two answers).

    A decision is its set of names; cutoffs compare with their ``optional`` marks.
    """
    tol = part.tolerance
    match part.type:
        case PartType.NUMBER:
            return numbers_same(a, b, tol)
        case PartType.NAME | PartType.CHOICE:
            return sorted(set(names_of(a))) == sorted(set(names_of(b)))
        case PartType.SET:
            return sorted(map(name, a)) == sorted(map(name, b)) and len(set(map(name, a))) == len(a)
        case PartType.SEQUENCE:
            return [name(x) for x in a] == [name(x) for x in b]
        case PartType.VECTOR:
            return len(a) == len(b) and all(
                numbers_same(x, y, tol) for x, y in zip(a, b, strict=True))
        case PartType.NODE_VALUES:
            da = {name(k): v for k, v in a.items()}
            db = {name(k): v for k, v in b.items()}
            return da.keys() == db.keys() and all(
                (da[k] is None) == (db[k] is None)
                and (da[k] is None or _values_same(da[k], db[k], tol)) for k in da)
        case PartType.CUTOFFS:
            def norm(cuts: Any) -> list[tuple[str, list[str], bool]]:
                return [(name(c["node"]), sorted(map(name, c.get("pruned", []))),
                         bool(c.get("optional"))) for c in cuts]
            return norm(a) == norm(b)
        case PartType.RECORDS:
            ra, rb = rows(a), rows(b)
            words = part.options.get("choices", {})
            return ra.keys() == rb.keys() and all(
                _row_same(ra[k], rb[k], tol, words) for k in ra)
    raise AssertionError(part.type)


def _values_same(a: Any, b: Any, tol: Fraction | None) -> bool:
    if isinstance(a, list) or isinstance(b, list):
        return (isinstance(a, list) and isinstance(b, list) and len(a) == len(b)
                and all(numbers_same(x, y, tol) for x, y in zip(a, b, strict=True)))
    return numbers_same(a, b, tol)


def _row_same(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None,
              tol: Fraction | None, words: Mapping[str, Any]) -> bool:
    if a is None or b is None:
        return not a and not b
    return a.keys() == b.keys() and all(
        name(a[k]) == name(b[k]) if k in words else numbers_same(a[k], b[k], tol) for k in a)


def accepted(part: AnswerPart, given: Any, key: Any) -> bool:
    """Return whether ``given`` earns full marks against ``key`` by the documented rules.

    Written from grading/README.md, not from grading.scoring: a decision is right when every
    name given is in the key (one of several equally good moves, or several of them); a
    cutoff the key marks ``optional`` (a cut at a node's last child) may be listed with no
    children or left out. Every other part is right when it says what the key says.
    """
    match part.type:
        case PartType.NAME | PartType.CHOICE:
            chosen = names_of(given)
            return (bool(chosen) and len(set(chosen)) == len(chosen)
                    and set(chosen) <= set(names_of(key)))
        case PartType.CUTOFFS:
            optional = {name(c["node"]) for c in key if c.get("optional")}
            listed = [c for c in given
                      if not (name(c["node"]) in optional and not c.get("pruned"))]
            required = [c for c in key if not c.get("optional")]
            return same(part, listed, required)
    return same(part, given, key)


def informative(part: AnswerPart, value: Any) -> bool:
    """Return whether a projected value says something (kinds project what they lack as null).

    A node value left null is one the misconception gives no exact value for; a null row of
    records is a claim (the node is never reached, so it has no window).
    """
    if part.type is PartType.NODE_VALUES and isinstance(value, Mapping):
        return any(entry is not None for entry in value.values())
    return value is not None


def agrees(part: AnswerPart, predicted: Any, given: Any) -> bool:
    """Return whether a misconception's predicted value agrees with a given answer part.

    Agreeing is earning full marks with the prediction as the key (:func:`accepted`). On node
    values a misconception may not reach every asked node; it agrees when it agrees on
    every node it reaches (given answers name every asked node).
    """
    if not informative(part, predicted):
        return True
    if part.type is PartType.NODE_VALUES:
        given_by_name = {name(k): v for k, v in given.items()}
        return all(
            value is None or (name(node) in given_by_name
                              and _values_same(value, given_by_name[name(node)], part.tolerance))
            for node, value in predicted.items())
    return accepted(part, given, predicted)


# --- the key, written in other ways that mean the same ----------------------------------


def _map_names(part: AnswerPart, value: Any, f: Callable[[str], str]) -> Any:
    match part.type:
        case PartType.NAME:
            return [f(v) for v in value] if isinstance(value, list) else f(value)
        case PartType.SET | PartType.SEQUENCE:
            return [f(v) for v in value]
        case PartType.NODE_VALUES:
            return {f(k): v for k, v in value.items()}
        case PartType.CUTOFFS:
            return [{**c, "node": f(c["node"]), "pruned": [f(p) for p in c.get("pruned", [])]}
                    for c in value]
        case PartType.RECORDS:
            return {f(k): v for k, v in rows(value).items()}
    return value


def _map_numbers(part: AnswerPart, value: Any, f: Callable[[Any], Any]) -> Any:
    def one(v: Any) -> Any:
        return [f(x) for x in v] if isinstance(v, list) else f(v)

    match part.type:
        case PartType.NUMBER:
            return f(value)
        case PartType.VECTOR:
            return [f(v) for v in value]
        case PartType.NODE_VALUES:
            return {k: None if v is None else one(v) for k, v in value.items()}
        case PartType.RECORDS:
            words = part.options.get("choices", {})  # word fields (a flag) are no numbers
            return {k: None if r is None else {
                        field_name: v if field_name in words else f(v)
                        for field_name, v in r.items()}
                    for k, r in rows(value).items()}
    return value


def _as_fraction_text(raw: Any) -> Any:
    """Write a number as an unreduced fraction ("6/2" for 3), infinity as "∞"."""
    x = number(raw)
    if isinstance(x, float):
        return "∞" if x > 0 else "-∞"
    if isinstance(raw, float):
        return repr(raw)  # a float key carries a tolerance; its shortest repr is the same number
    return f"{x.numerator * 2}/{x.denominator * 2}"


def _as_decimal_text(raw: Any) -> Any:
    """Write a number as a decimal ("3.0", "3.5") when it has one, else as a reduced fraction."""
    x = number(raw)
    if isinstance(x, float):
        return "+inf" if x > 0 else "-inf"
    if isinstance(raw, float):
        return raw
    denominator = x.denominator
    for p in (2, 5):
        while denominator % p == 0:
            denominator //= p
    if denominator != 1:
        return str(x)
    return f"{Decimal(x.numerator) / Decimal(x.denominator):f}" + (
        ".0" if x.denominator == 1 else "")


def _nudged(raw: Any, tolerance: Fraction) -> Any:
    """Move a number by less than the tolerance, written as a float (what students type)."""
    x = number(raw)
    return raw if isinstance(x, float) else float(x + tolerance / 2)


def _reordered(part: AnswerPart, value: Any) -> Any:
    match part.type:
        case PartType.SET:
            return list(reversed(value))
        case PartType.NODE_VALUES:
            return dict(reversed(list(value.items())))
        case PartType.CUTOFFS:
            return [{**c, "pruned": list(reversed(c.get("pruned", [])))} for c in value]
        case PartType.RECORDS:
            by_name = rows(value)
            if any(r is None for r in by_name.values()):
                return dict(reversed(list(by_name.items())))
            # The other accepted layout: a list of rows, in reverse order.
            return [{"name": k, **r} for k, r in reversed(list(by_name.items()))]
    return value


KEY_FORMS: dict[str, Callable[[AnswerPart, Any], Any]] = {
    "as_is": lambda part, value: value,
    "padded_names": lambda part, value: _map_names(part, value, lambda n: f"  {n} "),
    "reordered_sets": _reordered,
    "fraction_numbers": lambda part, value: _map_numbers(part, value, _as_fraction_text),
    "decimal_numbers": lambda part, value: _map_numbers(part, value, _as_decimal_text),
    "within_tolerance": lambda part, value: value if part.tolerance is None else _map_numbers(
        part, value, lambda v: _nudged(v, part.tolerance)),
}
"""Ways to write the key that mean the key: each must earn full marks."""


def key_forms(context: GradingContext) -> Iterator[tuple[str, dict[str, Any]]]:
    """Yield (form, answer) for each way of writing the key that changes something."""
    for form, rewrite in KEY_FORMS.items():
        answer = {part.name: rewrite(part, context.expected[part.name])
                  for part in context.parts if part.name in context.expected}
        if form == "as_is" or answer != context.expected:
            yield form, answer


# --- valid values that are wrong ---------------------------------------------------------


def written(x: Fraction | float) -> Any:
    """Write a number as keys do: an int, or "p/q", or "inf"/"-inf"."""
    if isinstance(x, float):
        return "inf" if x > 0 else "-inf"
    return x.numerator if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def other_numbers(raw: Any, rng: random.Random) -> list[Any]:
    """Return numbers different from ``raw`` by more than any tolerance a kind states."""
    x = number(raw)
    if isinstance(x, float):
        return [0, "-inf" if x > 0 else "inf"]
    return [written(x + 1), written(x - rng.randint(2, 5)), written(x + Fraction(1, 2))]


class Names:
    """The names a student may write for a case: the tree's nodes (and squares of a board)."""

    def __init__(self, problem: Mapping[str, Any]) -> None:
        known = TreeNames.of(problem)
        self.nodes = sorted(known.nodes)
        self.leaves = sorted(known.leaves)
        tree = problem.get("tree")
        self.root_children = [c["name"] for c in (tree or {}).get("children", [])]
        self.children: dict[str, list[str]] = {}
        self.inner: list[str] = []
        stack = [tree] if tree else []
        while stack:
            node = stack.pop()
            kids = [c["name"] for c in node.get("children", [])]
            if kids:
                self.children[node["name"]] = kids
                self.inner.append(node["name"])
            stack.extend(node.get("children", []))
        board = problem.get("board")
        self.moves = [str(i) for i, square in enumerate(board or "") if square == " "]


def wrong_values(part: AnswerPart, key: Any, problem: Mapping[str, Any],
                 rng: random.Random, options: list[str]) -> list[tuple[str, Any]]:
    """Return (how, value) pairs: valid answers to ``part`` that differ from its ``key``."""
    names = Names(problem)
    found: list[tuple[str, Any]] = []
    match part.type:
        case PartType.NUMBER:
            found += [(f"number {v}", v) for v in other_numbers(key, rng)]
            exact_key = number(key)
            if part.tolerance is None and isinstance(exact_key, Fraction) and (
                    exact_key.denominator != 1):
                # Close is not enough where the key is exact: 7/3 is not 2.33.
                found.append(("number rounded", round(float(exact_key), 2)))
        case PartType.NAME:
            pool = names.root_children or names.nodes or names.moves
            keyed = names_of(key)
            others = [n for n in pool if n not in keyed] or [
                n for n in names.nodes if n not in keyed]
            found += [(f"name {n}", n) for n in others[:3]]
        case PartType.CHOICE:
            found += [(f"option {o}", o) for o in options if o != key]
        case PartType.SET:
            outside = [n for n in names.leaves if n not in key] or [
                n for n in names.nodes if n not in key]
            if key:
                found.append(("dropped one", key[:-1]))
            if key and outside:
                found.append(("swapped one", [*key[:-1], rng.choice(outside)]))
            if outside:
                found.append(("added one", [*key, rng.choice(outside)]))
        case PartType.SEQUENCE:
            swaps = [i for i in range(len(key) - 1) if key[i] != key[i + 1]]
            if swaps:
                i = rng.choice(swaps)
                found.append(("swapped neighbours", [*key[:i], key[i + 1], key[i], *key[i + 2:]]))
            if key:
                found.append(("dropped last", key[:-1]))
            outside = [n for n in names.leaves if n not in key]
            if outside:
                found.append(("added one", [*key, rng.choice(outside)]))
        case PartType.NODE_VALUES:
            for node in list(key)[:2]:
                value = key[node]
                if value is None:
                    continue
                new = ([*value[:-1], written(number(value[-1]) + 1)] if isinstance(value, list)
                       else other_numbers(value, rng)[0])
                found.append((f"{node} changed", {**key, node: new}))
        case PartType.VECTOR:
            i = rng.randrange(len(key))
            found.append((f"entry {i} changed",
                          [*key[:i], other_numbers(key[i], rng)[0], *key[i + 1:]]))
        case PartType.CUTOFFS:
            found += _wrong_cutoffs(key, names, rng)
        case PartType.RECORDS:
            found += _wrong_records(part, key, rng)
    return found


def _wrong_cutoffs(key: list[dict[str, Any]], names: Names,
                   rng: random.Random) -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []
    if key:
        found.append(("dropped last cutoff", key[:-1]))
        index = rng.randrange(len(key))
        cut = key[index]
        kids = names.children.get(cut["node"], [])
        unpruned = [k for k in kids if k not in cut.get("pruned", [])]
        if cut.get("pruned") and unpruned:
            # Skips one child fewer: the cutoff is the same node, with other children.
            found.append((f"cutoff at {cut['node']} skips fewer",
                          [*key[:index], {"node": cut["node"], "pruned": cut["pruned"][1:]},
                           *key[index + 1:]]))
        elsewhere = [n for n in names.inner if n not in {c["node"] for c in key}]
        if elsewhere:
            other = rng.choice(elsewhere)
            found.append((f"cutoff moved to {other}",
                          [*key[:index], {"node": other, "pruned": names.children[other][-1:]},
                           *key[index + 1:]]))
    else:
        node = rng.choice(names.inner)
        found.append(("added a cutoff", [{"node": node, "pruned": names.children[node][-1:]}]))
    return found


def _wrong_records(part: AnswerPart, key: Any, rng: random.Random) -> list[tuple[str, Any]]:
    by_name = rows(key)
    words = part.options.get("choices", {})
    found: list[tuple[str, Any]] = []
    for row_name, fields in list(by_name.items())[:2]:
        if fields is None:
            row = {name: words[name][0] if name in words else 0
                   for name in part.fields} if part.fields else {"alpha": 0, "beta": 1}
            found.append((f"{row_name} given a row", {**by_name, row_name: row}))
            continue
        field_name = rng.choice(sorted(fields))
        new = (rng.choice([w for w in words[field_name] if w != fields[field_name]])
               if field_name in words else other_numbers(fields[field_name], rng)[0])
        found.append((f"{row_name}.{field_name} changed",
                      {**by_name, row_name: {**fields, field_name: new}}))
    return found


def option_ids(context: GradingContext) -> list[str]:
    """Return the multiple-choice option ids of a case."""
    return [str(o["id"]) for o in context.problem.get("options") or []]


def one_part_changes(context: GradingContext, rng: random.Random
                     ) -> Iterator[tuple[AnswerPart, str, dict[str, Any]]]:
    """Yield (part, how, answer): the key with exactly one part set to another valid value."""
    for part in context.parts:
        key = context.expected[part.name]
        for how, value in wrong_values(part, key, context.problem, rng, option_ids(context)):
            if not accepted(part, value, key):
                yield part, how, {**context.expected, part.name: value}


# --- misconceptions ---------------------------------------------------------------------


def misconception_answer(context: GradingContext, code: str) -> tuple[dict[str, Any], set[str]]:
    """Return the answer a student holding misconception ``code`` gives, and the parts it changes.

    The student writes the misconception's own value on every part it speaks of (it changes
    the parts where that value would not earn full marks); parts the misconception says
    nothing about (null) keep the key; on node values it may reach only some asked nodes, and
    keeps the key's value on the others.
    """
    produced = context.misconception_expectations[code]
    answer = dict(context.expected)
    changed = set()
    for part in context.parts:
        value = produced.get(part.name)
        if not informative(part, value):
            continue
        if part.type is PartType.NODE_VALUES:
            value = {**answer[part.name], **{k: v for k, v in value.items() if v is not None}}
        answer[part.name] = value
        if not accepted(part, value, context.expected[part.name]):
            changed.add(part.name)
    return answer, changed


def consistent_codes(context: GradingContext, answer: Mapping[str, Any],
                     right: set[str]) -> set[str]:
    """Return the misconceptions that agree with ``answer`` on every part in ``right``."""
    parts = {part.name: part for part in context.parts}
    return {
        code for code, produced in context.misconception_expectations.items()
        if all(agrees(parts[p], produced.get(p), answer[p]) for p in right)
    }


def verdicts(results: list[dict[str, Any]]) -> Counter[str]:
    """Return how many parts got each verdict."""
    return Counter(r["verdict"] for r in results)
