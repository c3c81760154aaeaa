"""The two-dice distribution and dice draft under expectiminimax."""

from fractions import Fraction

import pytest

from engine.errors import GameError
from engine.game import CHANCE
from engine.games.dice import MAX, MIN, START, DiceDraft, DiceState, two_dice_rolls
from engine.search.chance import expectiminimax, expectiminimax_alphabeta
from engine.search.trace import NodeCounter


def test_21_unordered_rolls_sum_to_one() -> None:
    rolls = two_dice_rolls()
    assert len(rolls) == 21
    assert len({roll for roll, _ in rolls}) == 21
    assert sum(p for _, p in rolls) == 1
    assert all(isinstance(p, Fraction) for _, p in rolls)


def test_doubles_are_1_in_36_and_others_1_in_18() -> None:
    for (low, high), p in two_dice_rolls():
        assert low <= high
        assert p == (Fraction(1, 36) if low == high else Fraction(1, 18))
    assert two_dice_rolls()[0] == ((1, 1), Fraction(1, 36))
    assert two_dice_rolls()[1] == ((1, 2), Fraction(1, 18))


def test_turn_structure() -> None:
    game = DiceDraft()
    assert game.to_move(START) == CHANCE
    assert game.chance_outcomes(START) == two_dice_rolls()
    rolled = game.result(START, (2, 5))
    assert game.to_move(rolled) == MAX
    assert list(game.actions(rolled)) == [5, 2]
    assert game.chance_outcomes(rolled) == ()
    assert game.result(rolled, 2) == DiceState(1, 2, 5)
    assert game.to_move(game.result(game.result(rolled, 2), (3, 3))) == MIN
    assert list(game.actions(game.result(START, (4, 4)))) == [4]


def test_busting_and_final_comparison() -> None:
    game = DiceDraft(rounds=3, limit=12)
    assert game.utility(DiceState(3, 10, 9), MAX) == 1
    assert game.utility(DiceState(3, 10, 9), MIN) == -1
    assert game.utility(DiceState(3, 9, 9), MAX) == 0
    bust = DiceState(2, 13, 4)
    assert game.is_terminal(bust)
    assert game.utility(bust, MAX) == -1
    assert game.utility(DiceState(2, 13, 13), MAX) == 0
    assert not game.is_terminal(DiceState(2, 12, 12))


def test_illegal_rolls_and_picks() -> None:
    game = DiceDraft()
    with pytest.raises(GameError, match="not a roll"):
        game.result(START, (5, 2))
    with pytest.raises(GameError, match="keep one of the rolled dice"):
        game.result(game.result(START, (2, 5)), 3)
    with pytest.raises(GameError, match="game is over"):
        game.result(DiceState(3, 1, 1), (1, 1))
    with pytest.raises(GameError, match="must be positive"):
        DiceDraft(rounds=0)


def test_one_round_by_hand() -> None:
    # MAX keeps the high die and wins unless the roll is a double (a draw): 30/36.
    result = expectiminimax(DiceDraft(rounds=1), START, max_player=MAX)
    assert result.value == Fraction(5, 6)
    assert result.move is None  # the root is a chance node


def test_keeping_the_low_die_can_be_right() -> None:
    # After rolling (1, 6), keeping the 6 leaves MAX at 6 and MIN at 1 with two rounds to go
    # under a limit of 12; keeping the 1 is worth more.
    game = DiceDraft()
    counter = NodeCounter()
    result = expectiminimax(game, game.result(START, (1, 6)), max_player=MAX, tracer=counter)
    assert result.move == 1
    assert result.value == Fraction(545, 1296)


def test_full_game_value_and_pruning_at_chance_nodes() -> None:
    game = DiceDraft()
    full, pruned = NodeCounter(), NodeCounter()
    exact = expectiminimax(game, START, max_player=MAX, tracer=full)
    star = expectiminimax_alphabeta(
        game, START, max_player=MAX, utility_bounds=(-1, 1), tracer=pruned
    )
    assert exact.value == Fraction(4177, 11664)
    assert full.nodes == 75981
    assert star.value == exact.value
    assert pruned.nodes < full.nodes
