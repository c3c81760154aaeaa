"""Three-player take-away under max^n."""

import itertools

import pytest

from engine.errors import GameError
from engine.games.threeplayer import PLAYERS, TakeAway, TakeAwayState
from engine.search.multiplayer import maxn


def test_moves_and_payoffs() -> None:
    game = TakeAway(pile=3)
    assert game.initial == TakeAwayState(3, (0, 0, 0), 0)
    assert game.to_move(game.initial) == "A"
    assert list(game.actions(game.initial)) == [1, 2]
    after = game.result(game.initial, 2)
    assert after == TakeAwayState(1, (2, 0, 0), 1)
    assert list(game.actions(after)) == [1]
    end = game.result(after, 1)
    assert game.is_terminal(end)
    # B took the last stone: 1 kept + bonus 2.
    assert game.utilities(end) == (2, 3, 0)
    assert [game.utility(end, p) for p in PLAYERS] == [2, 3, 0]


def test_payoffs_always_sum_to_pile_plus_bonus() -> None:
    game = TakeAway(pile=5, max_take=2, bonus=2)
    for takes in itertools.product((1, 2), repeat=5):
        state = game.initial
        for take in takes:
            if game.is_terminal(state):
                break
            state = game.result(state, min(take, state.pile))
        if game.is_terminal(state):
            assert sum(game.utilities(state)) == 5 + 2


def test_illegal_takes() -> None:
    game = TakeAway(pile=1)
    with pytest.raises(GameError, match="may take 1..1 stones"):
        game.result(game.initial, 2)
    with pytest.raises(GameError, match="must be positive"):
        TakeAway(pile=0)


def test_maxn_by_hand_on_three_stones() -> None:
    # A takes 1: B then takes 2 (1 + bonus 2 = 4 for B), giving (1, 4, 0).
    # A takes 2: B must take the last one, giving (2, 3, 0). A prefers 2.
    result = maxn(TakeAway(pile=3), TakeAway(pile=3).initial, players=PLAYERS)
    assert result.value == (2, 3, 0)
    assert result.move == 2
    assert result.principal_variation == (2, 1)


def test_maxn_on_the_default_game() -> None:
    # Cross-checked against a separate, direct max^n over the same rules.
    game = TakeAway()
    result = maxn(game, game.initial, players=PLAYERS)
    assert sum(result.value) == 7 + 2
    assert result.value == (5, 2, 2)
