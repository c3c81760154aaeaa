"""The registry of exercise kinds: every kind module registers one :class:`Kind` instance.

Grading, pages and the API look kinds up here by name; nothing else lists them. For a stored
item and one student's generated copy of it (``Item``, ``VariantItem``):

* ``kind = get_kind(item.kind)``; ``kind.answer_parts(item.params)`` lists the parts to
  answer (name, :class:`~exercises.kinds.base.PartType`, label, default weight, tolerance);
  ``item.part_points`` holds each part's share of the item's points.
* ``variant_item.answer_key[part.name]`` is the expected value of each part, projected by
  ``kind.project(problem, answer)`` from the engine's answer, which is kept whole in
  ``variant_item.trace["answer"]`` (for alpha-beta with the engine's event trace).
* ``kind.misconception_answers(problem)`` asks the engine what each applicable named
  misconception answers; ``kind.project`` turns each into part values comparable with a
  student's. Multiple-choice items store ``trace["option_misconceptions"]`` (option id →
  misconception code, ``None`` for the key and for fallback distractors, which name no
  misconception) and ``trace["option_sources"]`` (option id → ``key``, ``misconception``
  or the fallback it came from: ``kind.near_misses`` such as ``other_convention``, or
  ``near_key``); ``kind.max_options(params)`` caps the ``options`` param.
* ``kind.convention_names()`` are the params that change keys but not problems;
  ``exercises.services.update_problem_set`` lets them change once variants exist, and the
  regrade it queues recomputes the keys (``resolve_item``).
"""

from __future__ import annotations

from exercises.kinds.base import Kind
from exercises.kinds.params import ParamError

_REGISTRY: dict[str, Kind] = {}


def register(kind: Kind) -> Kind:
    """Add ``kind`` to the registry under its name and return it."""
    if kind.name in _REGISTRY:
        raise ValueError(f"exercise kind {kind.name!r} is registered twice")
    _REGISTRY[kind.name] = kind
    return kind


def get_kind(name: object) -> Kind:
    """Return the kind called ``name``; raise :class:`ParamError` on the ``kind`` field if none."""
    kind = _REGISTRY.get(name) if isinstance(name, str) else None
    if kind is None:
        known = ", ".join(kind_names())
        raise ParamError("kind", f"unknown kind {name!r}; known kinds are {known}")
    return kind


def kind_names() -> list[str]:
    """Return the registered kind names, sorted."""
    return sorted(_REGISTRY)


def all_kinds() -> list[Kind]:
    """Return every registered kind, sorted by name."""
    return [_REGISTRY[name] for name in kind_names()]


# Importing the kind modules registers them; kept last because they import ``register``.
from exercises.kinds import (  # noqa: E402,F401
    alphabeta,
    bandit,
    chance,
    code_items,
    concept_quiz,
    deepening,
    eval_function,
    games,
    minimax,
    move_ordering,
    price_war,
    star1,
    transposition_table,
    tree_size,
    vector,
)
