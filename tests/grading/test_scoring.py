"""Scoring each part type: exact numbers, tolerances, sets, sequences, maps, vectors, rows."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from exercises.kinds.base import AnswerPart, PartType
from grading.answers import AnswerFormatError, check_number
from grading.scoring import (
    ALL_OR_NOTHING,
    NET_CORRECT,
    lcs_length,
    part_points,
    score_part,
    to_number,
)


def part(kind: PartType, tolerance: Fraction | None = None) -> AnswerPart:
    return AnswerPart("p", kind, "p", tolerance=tolerance)


def fraction(kind: PartType, given, expected, *, rule: str = NET_CORRECT,
             tolerance: Fraction | None = None) -> Fraction:
    return score_part(part(kind, tolerance), given, expected, set_rule=rule).fraction


@pytest.mark.parametrize("written", ["7/2", "3.5", 3.5, " 7 / 2 ", "14/4"])
def test_exact_numbers_accept_fractions_and_decimals(written) -> None:
    assert fraction(PartType.NUMBER, written, "7/2") == 1


def test_exact_numbers_refuse_near_misses() -> None:
    assert fraction(PartType.NUMBER, "3.4999", "7/2") == 0
    assert fraction(PartType.NUMBER, 0.333, "1/3") == 0


def test_floats_are_compared_within_the_stated_tolerance() -> None:
    tolerance = Fraction(1, 100)
    assert fraction(PartType.NUMBER, 1.414, math.sqrt(2), tolerance=tolerance) == 1
    assert fraction(PartType.NUMBER, 1.4, math.sqrt(2), tolerance=tolerance) == 0


@pytest.mark.parametrize(("typed", "value"), [
    (" 7/2 ", Fraction(7, 2)), ("7 / 2", Fraction(7, 2)), ("- 3", -3), ("+ 3.5", Fraction(7, 2)),
    ("\u2212 1/4", Fraction(-1, 4)),
])
def test_spaces_around_a_fraction_bar_and_after_a_sign_are_read(typed, value) -> None:
    assert to_number(check_number("value", typed)) == value


@pytest.mark.parametrize("typed", ["1 2", "3 1 2", "2 / 3 5", "1\u00a0000", "- 1 2", "5 8 7"])
def test_a_space_between_digits_is_refused_as_two_numbers_glued(typed) -> None:
    with pytest.raises(AnswerFormatError, match="must be a number"):
        check_number("value", typed)
    # An answer stored before the refusal keeps the reading it was graded under (a regrade
    # must not change its grade).
    assert to_number(typed.replace("\u00a0", " ")) == Fraction(typed.replace(" ", "")
                                                              .replace("\u00a0", ""))


def test_infinite_bounds_are_numbers() -> None:
    assert to_number("inf") == math.inf and to_number("-∞") == -math.inf
    assert fraction(PartType.NUMBER, "∞", "inf") == 1
    assert fraction(PartType.NUMBER, "-inf", "inf") == 0


@pytest.mark.parametrize("bad", [True, None, "three", "1/0", float("nan"), [1]])
def test_non_numbers_are_refused(bad) -> None:
    with pytest.raises(ValueError):
        to_number(bad)


def test_names_score_all_or_nothing() -> None:
    assert fraction(PartType.NAME, "B", "B") == 1
    assert fraction(PartType.NAME, " B ", "B") == 1
    assert fraction(PartType.NAME, "C", "B") == 0


@pytest.mark.parametrize(("given", "net", "all_or_nothing"), [
    (["C2", "C3", "D3"], Fraction(1), 1),
    (["C2", "D3"], Fraction(2, 3), 0),
    (["C2", "D3", "B1"], Fraction(1, 3), 0),  # 2 right − 1 wrong
    (["B1", "B2", "C2"], Fraction(0), 0),  # floored at 0
    ([], Fraction(0), 0),
])
def test_sets_are_net_correct_or_all_or_nothing(given, net, all_or_nothing) -> None:
    expected = ["C2", "C3", "D3"]
    assert fraction(PartType.SET, given, expected, rule=NET_CORRECT) == net
    assert fraction(PartType.SET, given, expected, rule=ALL_OR_NOTHING) == all_or_nothing


def test_an_empty_set_is_right_only_when_left_empty() -> None:
    assert fraction(PartType.SET, [], []) == 1
    assert fraction(PartType.SET, ["B1"], []) == 0


def test_sequences_earn_their_longest_common_subsequence() -> None:
    expected = ["B1", "B2", "B3", "C1", "D1"]
    assert fraction(PartType.SEQUENCE, expected, expected) == 1
    assert fraction(PartType.SEQUENCE, ["B1", "B3", "B2", "C1", "D1"], expected) == Fraction(4, 5)
    # Extra names cost like missing ones: the longer list is the denominator.
    assert fraction(PartType.SEQUENCE, [*expected, "C2"], expected) == Fraction(5, 6)
    assert fraction(PartType.SEQUENCE, [], expected) == 0
    assert lcs_length("ABCBDAB", "BDCABA") == 4


def test_node_values_are_scored_per_node() -> None:
    expected = {"B": 3, "C": "7/2", "D": 2}
    assert fraction(PartType.NODE_VALUES, {"B": 3, "C": 3.5, "D": 2}, expected) == 1
    assert fraction(PartType.NODE_VALUES, {"B": 3, "C": 4}, expected) == Fraction(1, 3)
    scored = score_part(part(PartType.NODE_VALUES), {"B": 3, "E": 1}, expected,
                        set_rule=NET_CORRECT)
    assert scored.facts == {"wrong": [], "missing": ["C", "D"], "extra": ["E"], "inexact": []}


def test_vector_node_values_compare_whole_vectors() -> None:
    expected = {"A": [1, 2], "B": ["1/2", 3]}
    assert fraction(PartType.NODE_VALUES, {"A": [1, 2], "B": [0.5, 3]}, expected) == 1
    assert fraction(PartType.NODE_VALUES, {"A": [2, 1], "B": [0.5, 3]}, expected) == Fraction(1, 2)


def test_payoff_vectors_score_all_or_nothing() -> None:
    assert fraction(PartType.VECTOR, [3, "1/2", 0], [3, 0.5, 0]) == 1
    assert fraction(PartType.VECTOR, [3, 0], [3, 0.5, 0]) == 0


def test_cutoffs_earn_the_lcs_of_their_nodes_and_report_wrong_skips() -> None:
    expected = [{"node": "C", "pruned": ["C2", "C3"]}, {"node": "D", "pruned": ["D3"]}]
    assert fraction(PartType.CUTOFFS, expected, expected) == 1
    scored = score_part(part(PartType.CUTOFFS), [{"node": "C", "pruned": ["C3"]}], expected,
                        set_rule=NET_CORRECT)
    # One cutoff of two, at the right node but skipping the wrong children: half of a half.
    assert scored.fraction == Fraction(1, 4)
    assert scored.facts["wrong_pruned"] == [{"node": "C", "extra": [], "missing": 1}]


@pytest.mark.parametrize(("pruned", "earned"), [
    (["A3b", "A3c"], Fraction(1)),
    (["A3c", "A3b"], Fraction(1)),
    ([], Fraction(1, 2)),
    (["A3a"], Fraction(1, 2)),
    (["A3b"], Fraction(1, 2)),
    (["A3b", "A3c", "A3a"], Fraction(1, 2)),
])
def test_a_cutoff_earns_half_for_its_node_and_half_for_the_children_it_skips(
    pruned: list[str], earned: Fraction
) -> None:
    expected = [{"node": "A3", "pruned": ["A3b", "A3c"]}]
    assert fraction(PartType.CUTOFFS, [{"node": "A3", "pruned": pruned}], expected) == earned


def test_a_wrong_cutoff_names_the_child_it_does_not_skip() -> None:
    expected = [{"node": "A3", "pruned": ["A3b", "A3c"]}]
    scored = score_part(part(PartType.CUTOFFS), [{"node": "A3", "pruned": ["A3a", "A3b"]}],
                        expected, set_rule=NET_CORRECT)
    assert scored.facts["wrong_pruned"] == [{"node": "A3", "extra": ["A3a"], "missing": 1}]


def test_a_cut_at_a_last_child_may_be_listed_or_left_out() -> None:
    expected = [{"node": "B", "pruned": [], "optional": True}, {"node": "C", "pruned": ["C2"]}]
    assert fraction(PartType.CUTOFFS, [{"node": "C", "pruned": ["C2"]}], expected) == 1
    assert fraction(PartType.CUTOFFS, [{"node": "B", "pruned": []},
                                       {"node": "C", "pruned": ["C2"]}], expected) == 1
    # Listing it changes nothing: it earns nothing where C is left out either.
    assert fraction(PartType.CUTOFFS, [{"node": "B", "pruned": []}], expected) == 0
    assert fraction(PartType.CUTOFFS, [], expected) == 0
    assert fraction(PartType.CUTOFFS, [{"node": "B", "pruned": []},
                                       {"node": "C", "pruned": []}], expected) == Fraction(1, 2)


def test_a_name_key_listing_equally_good_moves_accepts_each_of_them() -> None:
    assert fraction(PartType.NAME, "6", ["4", "6", "7"]) == 1
    assert fraction(PartType.NAME, " 7", ["4", "6", "7"]) == 1
    assert fraction(PartType.NAME, "5", ["4", "6", "7"]) == 0
    # Naming several moves is right when each is accepted: the key itself is a right answer.
    assert fraction(PartType.NAME, ["4", "6", "7"], ["4", "6", "7"]) == 1
    assert fraction(PartType.NAME, ["6", "4"], ["4", "6", "7"]) == 1
    assert fraction(PartType.NAME, ["4", "5"], ["4", "6", "7"]) == 0
    assert fraction(PartType.NAME, [], ["4", "6", "7"]) == 0


@pytest.mark.parametrize("written", ["6.3333", 6.3333, "6.33", "6.3", 6.34])
def test_a_rounded_decimal_is_wrong_but_flagged_inexact(written) -> None:
    scored = score_part(part(PartType.NUMBER), written, "19/3", set_rule=NET_CORRECT)
    assert scored.fraction == 0 and scored.facts["inexact"] is True


@pytest.mark.parametrize("written", ["6", "19/4", 6.5, "7.3333", "6.30001e0"])
def test_other_wrong_numbers_are_not_flagged_inexact(written) -> None:
    scored = score_part(part(PartType.NUMBER), written, "19/3", set_rule=NET_CORRECT)
    assert scored.fraction == 0 and scored.facts["inexact"] is False


def test_a_part_with_a_tolerance_never_asks_for_exact_values() -> None:
    scored = score_part(part(PartType.NUMBER, Fraction(1, 1000)), "6.3", "19/3",
                        set_rule=NET_CORRECT)
    assert scored.facts["inexact"] is False


def test_rounded_node_values_and_cells_are_flagged_inexact() -> None:
    values = score_part(part(PartType.NODE_VALUES), {"B": "6.33", "C": 1}, {"B": "19/3", "C": 2},
                        set_rule=NET_CORRECT)
    assert values.facts["inexact"] == ["B"]
    rows = score_part(part(PartType.RECORDS), {"n": {"visits": 3, "reward": 0.67}},
                      {"n": {"visits": 3, "reward": "2/3"}}, set_rule=NET_CORRECT)
    assert rows.facts["inexact"] == [{"name": "n", "field": "reward"}]


def test_records_are_scored_cell_by_cell_including_unreached_rows() -> None:
    expected = {"C": {"alpha": 3, "beta": "inf"}, "D": None}
    assert fraction(PartType.RECORDS, {"C": {"alpha": 3, "beta": "∞"}, "D": None}, expected) == 1
    assert fraction(PartType.RECORDS, [{"name": "C", "alpha": 3, "beta": 2}], expected) == \
        Fraction(2, 3)
    assert fraction(PartType.RECORDS, {"C": {"alpha": 3, "beta": "inf"},
                                       "D": {"alpha": 1, "beta": 2}}, expected) == Fraction(2, 3)


def test_mcts_rows_accept_a_list_of_named_rows() -> None:
    expected = [{"name": "n1", "visits": 5, "reward": "7/2"}, {"name": "n2", "visits": 3,
                                                               "reward": 1}]
    given = [{"name": "n1", "visits": 5, "reward": 3.5}, {"name": "n2", "visits": 3, "reward": 2}]
    assert fraction(PartType.RECORDS, given, expected) == Fraction(3, 4)


def test_part_points_use_the_items_stored_points_per_part() -> None:
    parts = [AnswerPart("a", PartType.NUMBER, "a"), AnswerPart("b", PartType.SET, "b", points=3)]
    assert part_points(parts, Fraction(8), {"a": "2.5", "b": "5.5"}) == {
        "a": Fraction(5, 2), "b": Fraction(11, 2)}
    # Parts missing from the stored split: the item's points, split by declared weights.
    assert part_points(parts, Fraction(8), {"a": "1"}) == {"a": Fraction(2), "b": Fraction(6)}


def test_a_records_word_field_is_right_only_as_that_word() -> None:
    entries = AnswerPart("entries", PartType.RECORDS, "entries", fields=("flag", "value"),
                         options={"choices": {"flag": ("exact", "lower", "upper")}})
    key = {"p1": {"flag": "lower", "value": 8}, "p2": None}
    assert score_part(entries, key, key, set_rule=NET_CORRECT).fraction == 1
    swapped = {"p1": {"flag": "upper", "value": "8.0"}, "p2": None}
    scored = score_part(entries, swapped, key, set_rule=NET_CORRECT)
    assert scored.fraction == Fraction(2, 3)
    assert scored.facts["wrong"] == [{"name": "p1", "field": "flag"}]
