"""How the answer form reads list parts typed in a text box: blank is unanswered, the
"none" tick box is the empty list (the key of a tree without cutoffs)."""

from __future__ import annotations

from urllib.parse import urlencode

from django.http import QueryDict

from exercises.kinds import get_kind
from pages.answer_form import part_fields, read_answer


def test_the_none_box_answers_an_empty_list_and_a_blank_box_nothing() -> None:
    kind = get_kind("alphabeta")
    parts = [part for part in kind.answer_parts(kind.clean_params({}))
             if part.name in ("cutoffs", "pruned_leaves")]
    # Without a drawing the pruned leaves are typed as names too.
    fields = part_fields(parts, {}, None)
    assert [field.none_box for field in fields] == ["answer-pruned_leaves-none",
                                                   "answer-cutoffs-none"]
    assert read_answer(fields, QueryDict("answer-cutoffs=&answer-pruned_leaves=")) == {}
    ticked = QueryDict("answer-cutoffs-none=1&answer-pruned_leaves-none=1")
    assert read_answer(fields, ticked) == {"cutoffs": [], "pruned_leaves": []}
    typed = QueryDict("answer-cutoffs=B%3A+B2&answer-pruned_leaves=B2")
    assert read_answer(fields, typed) == {"cutoffs": [{"node": "B", "pruned": ["B2"]}],
                                          "pruned_leaves": ["B2"]}


def test_a_vector_box_reads_entries_separated_by_semicolons_commas_or_spaces() -> None:
    kind = get_kind("vector")
    fields = part_fields([part for part in kind.answer_parts(kind.clean_params({}))
                          if part.name == "value"], {}, None)
    for typed, read in [("5, 8, 7", ["5", "8", "7"]), ("2,5; 1; 0", ["2,5", "1", "0"]),
                        ("5 8 7", ["5", "8", "7"]), ("7 / 2  1 -3", ["7/2", "1", "-3"])]:
        form = QueryDict(urlencode({"answer-value": typed}))
        assert read_answer(fields, form) == {"value": read}, typed
