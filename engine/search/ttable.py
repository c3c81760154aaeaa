"""A transposition table for alpha-beta: what a previous search proved about a state.

Entries are keyed by the full state, which must therefore include the player to move (the
:class:`engine.game.Game` protocol requires hashable states that do). An entry records how
deep the state was searched, the value, whether it is EXACT or only a LOWER/UPPER bound, and
the best move found, which later searches try first.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from enum import Enum
from typing import Generic

from engine.game import ActionT, Utility
from engine.search.trace import Bound


class Flag(Enum):
    """Say what an entry's value is: the exact value, or a bound on it."""

    EXACT = "exact"
    LOWER = "lower"
    UPPER = "upper"


@dataclass(frozen=True)
class Entry(Generic[ActionT]):
    """Hold what one search proved about a state.

    ``remaining`` is the number of plies searched below the state (``None``: to the end of
    the game, so the entry is good for any depth).
    """

    value: Utility
    flag: Flag
    remaining: int | None
    move: ActionT | None

    def covers(self, remaining: int | None) -> bool:
        """Return whether this entry was searched at least ``remaining`` plies deep."""
        if self.remaining is None:
            return True
        return remaining is not None and self.remaining >= remaining

    @property
    def bounds(self) -> tuple[Bound, Bound]:
        """Return ``(lower, upper)`` on the state's value."""
        if self.flag is Flag.EXACT:
            return self.value, self.value
        if self.flag is Flag.LOWER:
            return self.value, float("inf")
        return float("-inf"), self.value


class TranspositionTable(Generic[ActionT]):
    """Store entries by state; a deeper (or equally deep, newer) search replaces an entry."""

    def __init__(self) -> None:
        self._entries: dict[Hashable, Entry[ActionT]] = {}
        self.hits = 0

    def __len__(self) -> int:
        return len(self._entries)

    def probe(self, key: Hashable) -> Entry[ActionT] | None:
        """Return the entry stored for ``key``, if any."""
        return self._entries.get(key)

    def store(self, key: Hashable, entry: Entry[ActionT]) -> None:
        """Keep ``entry`` for ``key`` unless the stored one was searched deeper."""
        old = self._entries.get(key)
        if old is None or entry.covers(old.remaining):
            self._entries[key] = entry
