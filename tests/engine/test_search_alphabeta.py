"""Alpha-beta on hand-worked trees: windows, numbered cutoffs, bounds, conventions, tables."""

from __future__ import annotations

from typing import Any

from engine.games.tictactoe import CENTRE_CORNERS_EDGES, EMPTY_BOARD, TicTacToe
from engine.search.alphabeta import AlphaBetaConventions, alphabeta
from engine.search.minimax import minimax
from engine.search.ordering import centre_first, fixed_order, reversed_order
from engine.search.trace import NEG_INF, POS_INF, Enter, NodeCounter, RecordingTracer
from engine.search.ttable import Entry, Flag, TranspositionTable
from engine.tree import TreeGame, parse_tree


def leaf(name: str, value: Any) -> dict[str, Any]:
    return {"name": name, "value": value}


def node(kind: str, name: str, *children: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": kind, "name": name, "children": list(children), **extra}


DEEP = node(
    "max", "root",
    node("min", "A",
         node("max", "A1", leaf("A1a", 3), leaf("A1b", 5)),
         node("max", "A2", leaf("A2a", 6), leaf("A2b", 9))),
    node("min", "B",
         node("max", "B1", leaf("B1a", 1), leaf("B1b", 2)),
         node("max", "B2", leaf("B2a", 0), leaf("B2b", -1))),
)

TWO_BY_TWO = node(
    "max", "raiz",
    node("min", "A", leaf("A1", 3), leaf("A2", 5)),
    node("min", "B", leaf("B1", 2), leaf("B2", 9)),
)


def run(tree: dict[str, Any], **options: Any) -> tuple[Any, RecordingTracer]:
    tracer = RecordingTracer()
    result = alphabeta(TreeGame(parse_tree(tree)), tree["name"], tracer=tracer, **options)
    return result, tracer


def test_hand_worked_deep_tree() -> None:
    # root (-inf, inf) -> A (-inf, inf) -> A1 = max(3, 5) = 5, so A's beta = 5.
    # A2 enters with (-inf, 5); A2a = 6 >= 5: cutoff 1 at A2 (alpha 6, beta 5) skips A2b.
    # A = 5 exactly; root alpha = 5. B (5, inf) -> B1 (5, inf) sees 1, 2: B1 = 2.
    # B's beta = 2 <= 5: cutoff 2 at B (alpha 5, beta 2) skips B2.
    result, tracer = run(DEEP)
    assert (result.value, result.move, result.principal_variation) == (5, "A", ("A", "A1", "A1b"))
    windows = {e.state: (e.alpha, e.beta) for e in tracer.events if isinstance(e, Enter)}
    assert windows == {
        "root": (NEG_INF, POS_INF), "A": (NEG_INF, POS_INF), "A1": (NEG_INF, POS_INF),
        "A1a": (NEG_INF, POS_INF), "A1b": (3, POS_INF), "A2": (NEG_INF, 5), "A2a": (NEG_INF, 5),
        "B": (5, POS_INF), "B1": (5, POS_INF), "B1a": (5, POS_INF), "B1b": (5, POS_INF),
    }
    cuts = [(c.number, c.state, c.alpha, c.beta, c.pruned) for c in tracer.cutoffs()]
    assert cuts == [(1, "A2", 6, 5, ("A2b",)), (2, "B", 5, 2, ("B2",))]
    assert tracer.evaluated() == ["A1a", "A1b", "A2a", "B1a", "B1b"]
    # A2 and B were cut: only bounds are known. B1 saw all its leaves: it is exact.
    assert tracer.node_bounds() == {"A2": (6, POS_INF), "B": (NEG_INF, 2)}
    values = tracer.node_values()
    assert values["A"] == 5 and values["B1"] == 2 and values["root"] == 5
    assert "A2" not in values and "B2" not in values


def test_two_by_two_cuts_b2_only() -> None:
    result, tracer = run(TWO_BY_TWO)
    assert (result.value, result.move) == (3, "A")
    assert tracer.evaluated() == ["A1", "A2", "B1"]
    [cut] = tracer.cutoffs()
    assert (cut.number, cut.state, cut.alpha, cut.beta, cut.pruned) == (1, "B", 3, 2, ("B2",))


def test_cut_on_equality_is_a_convention() -> None:
    tied = node(
        "max", "r",
        node("min", "A", leaf("A1", 3), leaf("A2", 5)),
        node("min", "B", leaf("B1", 3), leaf("B2", 9)),
    )
    _, cutting = run(tied)
    assert cutting.evaluated() == ["A1", "A2", "B1"]
    assert [(c.alpha, c.beta) for c in cutting.cutoffs()] == [(3, 3)]
    strict = AlphaBetaConventions(cut_on_equality=False)
    result, patient = run(tied, conventions=strict)
    assert patient.evaluated() == ["A1", "A2", "B1", "B2"]
    assert patient.cutoffs() == []
    assert (result.value, result.move) == (3, "A")
    # With the closed window, B = 3 is exact even though it equals alpha.
    assert patient.node_values()["B"] == 3


def test_root_that_does_not_raise_alpha_prunes_less() -> None:
    result, tracer = run(TWO_BY_TWO, conventions=AlphaBetaConventions(root_raises_alpha=False))
    assert (result.value, result.move) == (3, "A")
    assert tracer.evaluated() == ["A1", "A2", "B1", "B2"]
    assert tracer.node_values()["B"] == 2


def test_no_cutoff_is_reported_at_a_last_child() -> None:
    tree = node(
        "max", "r",
        node("min", "A", leaf("A1", 3)),
        node("min", "B", leaf("B1", 7), leaf("B2", 2)),
    )
    _, tracer = run(tree)
    assert tracer.cutoffs() == []
    assert tracer.node_bounds() == {}  # B saw every child: B = 2 exactly
    assert tracer.node_values()["B"] == 2


def test_order_changes_what_is_pruned_not_the_answer() -> None:
    tree = node(
        "max", "root",
        node("min", "A", leaf("A1", 4), leaf("A2", 9), leaf("A3", 6)),
        node("min", "B", leaf("B1", 2), leaf("B2", 15), leaf("B3", 13)),
        node("min", "C", leaf("C1", 5), leaf("C2", 8), leaf("C3", 10)),
    )
    result, natural = run(tree)
    backwards, reverse = run(tree, order=reversed_order)
    assert (result.value, result.move) == (backwards.value, backwards.move) == (5, "C")
    assert len(natural.evaluated()) == 7
    # Right to left every MIN node meets its smallest leaf last: nothing is pruned.
    assert reverse.evaluated() == ["C3", "C2", "C1", "B3", "B2", "B1", "A3", "A2", "A1"]
    best_first, chosen = run(tree, order=fixed_order(["C", "A", "B"]))
    assert chosen.evaluated() == ["C1", "C2", "C3", "A1", "B1"]
    assert best_first.move == "C"


def test_named_orderings() -> None:
    assert list(centre_first(7)(None, range(7))) == [3, 2, 4, 1, 5, 0, 6]
    assert list(fixed_order([4, 0, 2])(None, [0, 1, 2, 3, 4])) == [4, 0, 2, 1, 3]
    assert list(reversed_order(None, "abc")) == ["c", "b", "a"]


def test_table_gives_the_same_answer_with_fewer_nodes_on_tic_tac_toe() -> None:
    game = TicTacToe()
    plain, counted = NodeCounter(), NodeCounter()
    expected = alphabeta(game, EMPTY_BOARD, tracer=plain)
    table: TranspositionTable[int] = TranspositionTable()
    with_table = alphabeta(game, EMPTY_BOARD, tracer=counted, table=table)
    assert (with_table.value, with_table.move) == (expected.value, expected.move) == (0, 0)
    assert plain.nodes == 18296  # the spec's count: alpha raised at the root, cut on >=
    assert counted.nodes < plain.nodes
    assert table.hits > 0 and len(table) > 0
    root_entry = table.probe(EMPTY_BOARD)
    assert root_entry is not None and root_entry.flag is Flag.EXACT and root_entry.value == 0


def test_ordered_tic_tac_toe_matches_the_spec_count() -> None:
    counter = NodeCounter()
    result = alphabeta(
        TicTacToe(), EMPTY_BOARD, order=fixed_order(CENTRE_CORNERS_EDGES), tracer=counter
    )
    assert (result.value, result.move, counter.nodes) == (0, 4, 7274)


def test_table_entries_are_depth_aware() -> None:
    table: TranspositionTable[str] = TranspositionTable()
    table.store("s", Entry(3, Flag.LOWER, 4, "a"))
    table.store("s", Entry(1, Flag.EXACT, 2, "b"))  # shallower: kept out
    entry = table.probe("s")
    assert entry is not None and entry.value == 3 and entry.bounds == (3, POS_INF)
    assert entry.covers(4) and not entry.covers(5) and not entry.covers(None)
    table.store("s", Entry(7, Flag.UPPER, None, "c"))  # searched to the end: good for all
    entry = table.probe("s")
    assert entry is not None and entry.covers(None) and entry.bounds == (NEG_INF, 7)


def test_table_on_a_tree_does_not_change_the_trace() -> None:
    _, plain = run(DEEP)
    _, tabled = run(DEEP, table=TranspositionTable())
    assert plain.events == tabled.events


def test_alphabeta_equals_minimax_on_the_deep_tree_at_every_depth_limit() -> None:
    game = TreeGame(parse_tree(DEEP))

    def estimate(state: str, player: str) -> int:
        return len(state)

    for depth in range(4):
        a = alphabeta(game, "root", depth_limit=depth, evaluator=estimate)
        m = minimax(game, "root", depth_limit=depth, evaluator=estimate)
        assert (a.value, a.move) == (m.value, m.move)


def test_partial_ply_cuts_only_the_opponents_levels_one_ply_early() -> None:
    tree = parse_tree(node(
        "max", "root",
        node("max", "A", leaf("A1", 3), leaf("A2", 1), value=2),
        node("min", "B", leaf("B1", 2), leaf("B2", 6), value=8),
        node("max", "C", leaf("C1", 5), leaf("C2", 7), value=4),
        value=0,
    ))
    game = TreeGame(tree)
    results = {}
    for algorithm in (alphabeta, minimax):
        tracer = RecordingTracer()
        result = algorithm(game, tree.root.name, depth_limit=2, evaluator=game.estimate,
                           tracer=tracer, partial_ply=True)
        results[algorithm] = (result.move, result.value, list(tracer.evaluated()))
    # B (MIN to move, one ply down) is estimated; A and C (MAX to move) are expanded.
    assert results[alphabeta] == ("B", 8, ["A1", "A2", "B", "C1", "C2"])
    assert results[minimax] == results[alphabeta]
