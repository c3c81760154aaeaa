"""How the answer form reads list parts typed in a text box: blank is unanswered, the
"none" tick box is the empty list (the key of a tree without cutoffs)."""

from __future__ import annotations

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
