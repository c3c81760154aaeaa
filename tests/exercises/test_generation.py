"""Generation never crashes: multiple choice for every seed, finished games retried, params
met too rarely refused when stored, and every failure a 422 naming the param and the
constraint (creation, preview, publish, late students)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from engine.misconceptions import MISCONCEPTIONS
from exercises.generation import (
    SAMPLE_ATTEMPTS,
    GenerationError,
    canonical_answer,
    check_generates,
    generate_item,
    item_seed,
)
from exercises.kinds import all_kinds, get_kind
from exercises.kinds.bandit import SCORE_TOLERANCE, score_value
from exercises.kinds.params import ParamError
from exercises.models import ProblemSet

CHOICE_KINDS = [kind.name for kind in all_kinds() if kind.choice_part is not None]
SEEDS = [item_seed("choices", student, 1) for student in range(50)]
# In a depth-2 tree of two MIN nodes with two leaves each only the second MIN node can cut.
IMPOSSIBLE = {"depth": 2, "min_branching": 2, "max_branching": 2, "min_cuts": 2}
# Random depth-3 trees cut 4 times about once in 100 draws: rare, yet every seed generates.
RARE = {"depth": 3, "min_cuts": 4}


def choice_params(kind_name: str, *, most: bool) -> dict[str, Any]:
    kind = get_kind(kind_name)
    params = kind.clean_params({"answer_format": "multiple_choice"})
    if most:
        params = kind.clean_params({**params, "options": kind.max_options(params)})
    return params


def test_every_choice_kind_is_covered() -> None:
    assert set(CHOICE_KINDS) == {
        "minimax", "alphabeta", "expectiminimax", "expectimax", "vector", "ucb1", "star1",
        "iterative_deepening", "tictactoe_position",
    }


@pytest.mark.parametrize("most", [False, True], ids=["default_options", "most_options"])
@pytest.mark.parametrize("kind_name", CHOICE_KINDS)
def test_multiple_choice_generates_for_every_seed_with_one_right_option(
    kind_name: str, most: bool
) -> None:
    kind = get_kind(kind_name)
    params = choice_params(kind_name, most=most)
    part = kind.choice_part
    for seed in SEEDS:
        item = generate_item(kind_name, params, seed)
        options = {option["id"]: option["value"] for option in item.problem["options"]}
        assert len(options) == params["options"]
        assert len({canonical_answer(v) for v in options.values()}) == len(options)
        engine_answer = kind.solve({k: v for k, v in item.problem.items() if k != "options"})
        right = canonical_answer(kind.project(item.problem, engine_answer)[part])
        assert [i for i, v in options.items() if canonical_answer(v) == right] == [
            item.answer_key["choice"]]
        codes = item.trace["option_misconceptions"]
        sources = item.trace["option_sources"]
        assert sources[item.answer_key["choice"]] == "key"
        for option_id, code in codes.items():
            if code is not None:
                wrong = MISCONCEPTIONS[code].answer(item.problem)
                assert canonical_answer(kind.project(item.problem, wrong)[part]) == \
                    canonical_answer(options[option_id])
                assert sources[option_id] == "misconception"
            elif option_id != item.answer_key["choice"]:
                assert sources[option_id] not in ("key", "misconception")
        if kind_name == "ucb1":
            scores = engine_answer["scores"]
            best = score_value(scores[engine_answer["selected"]])
            for option_id, name in options.items():
                if option_id != item.answer_key["choice"]:
                    assert abs(score_value(scores[name]) - best) > float(SCORE_TOLERANCE)


def test_minimax_asks_six_options_where_one_misconception_exists() -> None:
    params = get_kind("minimax").clean_params({"answer_format": "multiple_choice", "options": 6})
    item = generate_item("minimax", params, SEEDS[0])
    assert len(item.problem["options"]) == 6
    assert list(item.trace["option_misconceptions"].values()).count(None) >= 5


def test_ucb1_offers_at_most_one_option_per_child() -> None:
    with pytest.raises(ParamError) as refused:
        get_kind("ucb1").clean_params({"answer_format": "multiple_choice", "options": 4})
    assert refused.value.field == "options" and "at most 3" in refused.value.message
    get_kind("ucb1").clean_params({"answer_format": "multiple_choice", "options": 4,
                                   "children": 4})


def test_multiple_choice_items_that_generated_before_are_unchanged() -> None:
    # Digest of this item as generated before the fallbacks existed: the misconceptions were
    # enough, so the fallbacks draw nothing and stored variants stay byte for byte.
    params = get_kind("minimax").clean_params({"answer_format": "multiple_choice"})
    item = generate_item("minimax", params, "unchanged")
    data = [item.problem, item.answer_key, item.trace["option_misconceptions"]]
    digest = hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()
    assert digest == "b5273ca8a6bcdd33499f8ccb3f463f4f8935fb9516557ed3dff931e6b313c737"
    assert set(item.trace["option_sources"].values()) == {"key", "misconception"}


@pytest.mark.parametrize("empty_squares", [2, 3, 4])
def test_tictactoe_positions_with_few_empty_squares_retry_finished_games(
    empty_squares: int,
) -> None:
    params = get_kind("tictactoe_position").clean_params({"empty_squares": empty_squares})
    for student in range(40):
        item = generate_item("tictactoe_position", params, item_seed("ttt", student, 1))
        assert item.problem["board"].count(" ") == empty_squares
        assert set(item.answer_key) == {"move", "value", "nodes_minimax", "nodes_alphabeta"}


def test_a_generation_failure_names_the_constraint() -> None:
    params = get_kind("alphabeta").clean_params(IMPOSSIBLE)
    with pytest.raises(GenerationError) as failed:
        generate_item("alphabeta", params, SEEDS[0])
    assert failed.value.param_path == "params"
    assert "fewer than min_cuts" in failed.value.message


def test_rarely_met_params_generate_past_the_old_attempt_budget() -> None:
    params = get_kind("alphabeta").clean_params(RARE)
    check_generates("alphabeta", params)
    # This seed's first 315 attempts cut fewer than 4 times: 200 attempts failed its student.
    item = generate_item("alphabeta", params, item_seed("rare", 1, 1))
    assert item.attempt == 315 and len(item.trace["answer"]["cutoffs"]) >= 4


RARER = {"min_margin": 0, "max_margin": 2, "prices": 4, "responses": 3}
"""Price wars on margins 0..2 rarely avoid a tie among twelve responses (about 1 in 1,000)."""


def test_params_met_too_rarely_are_refused_naming_how_rarely() -> None:
    params = get_kind("price_war").clean_params(RARER)
    with pytest.raises(GenerationError) as refused:
        check_generates("price_war", params)
    assert refused.value.param_path == "params"
    assert refused.value.message.startswith(
        f"price_war: only 1 of {SAMPLE_ATTEMPTS} sample problems met the constraints; at least "
        "3 must, or some students' variants may fail to generate (last unmet: ")
    assert refused.value.message.endswith("); loosen the params behind that constraint")


@pytest.mark.django_db
def test_creating_a_set_with_params_that_cannot_generate_is_a_422_storing_nothing(
    instructor: Any, course: Any,
) -> None:
    _, client = instructor
    body = {"course": course.pk, "title": "impossible",
            "items": [{"kind": "minimax", "params": {}},
                      {"kind": "alphabeta", "params": IMPOSSIBLE}]}
    response = client.post("/api/v1/problem-sets/", body, format="json")
    assert response.status_code == 422, response.content
    error = response.json()["error"]
    assert error["code"] == "generation_failed"
    assert list(error["details"]) == ["items[1].params"]
    assert error["message"].startswith("items[1].params: alphabeta: no problem met the "
                                       f"constraints in {SAMPLE_ATTEMPTS} attempts")
    assert "fewer than min_cuts" in error["message"]
    assert not ProblemSet.objects.exists()


@pytest.mark.django_db
def test_changing_params_to_ones_that_cannot_generate_is_a_422_changing_nothing(
    instructor: Any, course: Any,
) -> None:
    _, client = instructor
    created = client.post("/api/v1/problem-sets/", {
        "course": course.pk, "title": "t", "items": [{"kind": "alphabeta", "params": {}}],
    }, format="json")
    assert created.status_code == 201, created.content
    url = f"/api/v1/problem-sets/{created.json()['id']}/"
    before = client.get(url).json()
    response = client.patch(url, {"items": [{"position": 1, "params": IMPOSSIBLE}]},
                            format="json")
    assert response.status_code == 422, response.content
    assert list(response.json()["error"]["details"]) == ["items[0].params"]
    assert client.get(url).json() == before


@pytest.mark.django_db
def test_preview_failure_is_a_422_naming_the_constraint(instructor: Any) -> None:
    _, client = instructor
    response = client.post("/api/v1/kinds/alphabeta/preview/", {"params": IMPOSSIBLE},
                           format="json")
    assert response.status_code == 422, response.content
    error = response.json()["error"]
    assert error["code"] == "generation_failed"
    assert "fewer than min_cuts" in error["details"]["params"][0]


def _create(client: Any, course: Any) -> int:
    """Return a set whose second item has params stored before creation sampled them."""
    from exercises.models import Item

    body = {"course": course.pk, "title": "impossible", "seed": "s",
            "items": [{"kind": "minimax", "params": {}}, {"kind": "alphabeta", "params": {}}]}
    response = client.post("/api/v1/problem-sets/", body, format="json")
    assert response.status_code == 201, response.content
    problem_set_id = int(response.json()["id"])
    Item.objects.filter(problem_set_id=problem_set_id, position=2).update(
        params=get_kind("alphabeta").clean_params(IMPOSSIBLE))
    return problem_set_id


def _assert_refused(response: Any) -> None:
    assert response.status_code == 422, response.content
    error = response.json()["error"]
    assert error["code"] == "generation_failed"
    assert list(error["details"]) == ["items[1].params"]
    assert "fewer than min_cuts" in error["details"]["items[1].params"][0]
    assert error["message"].startswith("items[1].params: item 2: alphabeta: ")


@pytest.mark.django_db
def test_publish_failure_is_a_422_and_leaves_the_set_as_it_was(
    instructor: Any, student: Any, course: Any, django_capture_on_commit_callbacks: Any,
) -> None:
    _, client = instructor
    problem_set_id = _create(client, course)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = client.post(f"/api/v1/problem-sets/{problem_set_id}/publish/")
    _assert_refused(response)
    assert callbacks == []
    problem_set = ProblemSet.objects.get(pk=problem_set_id)
    assert problem_set.status == "draft" and problem_set.variants.count() == 0


@pytest.mark.django_db
def test_publishing_refuses_params_stored_before_sampling_that_meet_constraints_too_rarely(
    instructor: Any, student: Any, course: Any, django_capture_on_commit_callbacks: Any,
) -> None:

    _, client = instructor
    problem_set_id = _create(client, course)
    # Met about once in 1,000 draws: the first student's seed generates, others may not.
    _stored_rarer(problem_set_id)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = client.post(f"/api/v1/problem-sets/{problem_set_id}/publish/")
    assert response.status_code == 422, response.content
    assert callbacks == []
    message = response.json()["error"]["message"]
    assert message.startswith("items[1].params: item 2: price_war: only 1 of 1000 sample ")
    assert ProblemSet.objects.get(pk=problem_set_id).status == "draft"


def _stored_rarer(problem_set_id: int) -> None:
    """Give item 2 of a set params stored before creation sampled them, met too rarely."""
    from exercises.models import Item

    Item.objects.filter(problem_set_id=problem_set_id, position=2).update(
        kind="price_war", params=get_kind("price_war").clean_params(RARER))


@pytest.mark.django_db
def test_an_edit_resending_stored_params_unchanged_does_not_sample_them_again(
    instructor: Any, course: Any,
) -> None:
    from exercises.models import Item

    _, client = instructor
    problem_set_id = _create(client, course)
    _stored_rarer(problem_set_id)
    # Stored before a param existed: its default is filled in when read, which is no change.
    item = Item.objects.get(problem_set_id=problem_set_id, position=2)
    del item.params["decisions_differ"]
    item.save(update_fields=["params"])
    # The edit page sends every item's params with every save.
    response = client.patch(f"/api/v1/problem-sets/{problem_set_id}/", {
        "title": "renamed", "items": [{"position": 2, "params": {}}]}, format="json")
    assert response.status_code == 200, response.content
    assert ProblemSet.objects.get(pk=problem_set_id).title == "renamed"


@pytest.mark.django_db
def test_publishing_again_for_a_newcomer_does_not_sample_again(
    instructor: Any, student: Any, course: Any, celery_eager: None,
    django_capture_on_commit_callbacks: Any,
) -> None:
    from tests.conftest import make_account

    _, client = instructor
    body = {"course": course.pk, "title": "t", "seed": "s",
            "items": [{"kind": "minimax", "params": {}}, {"kind": "price_war", "params": {}}]}
    problem_set_id = int(client.post("/api/v1/problem-sets/", body, format="json").json()["id"])
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(f"/api/v1/problem-sets/{problem_set_id}/publish/").status_code == 202
    _stored_rarer(problem_set_id)
    make_account("newcomer", "student", course)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"/api/v1/problem-sets/{problem_set_id}/publish/")
    assert response.status_code == 202, response.content
    assert ProblemSet.objects.get(pk=problem_set_id).variants.count() == 2


def _published_before_a_late_student(client: Any, course: Any, capture: Any) -> int:
    """Return a set published to a course with no students yet, which one then joins."""
    from tests.conftest import make_account

    problem_set_id = _create(client, course)
    with capture(execute=True):
        published = client.post(f"/api/v1/problem-sets/{problem_set_id}/publish/")
    assert published.status_code == 202 and published.json()["status"] == "ready"
    make_account("late", "student", course)
    return problem_set_id


@pytest.mark.django_db
def test_late_students_variants_failing_is_a_422(
    instructor: Any, course: Any, django_capture_on_commit_callbacks: Any,
) -> None:
    _, client = instructor
    problem_set_id = _published_before_a_late_student(
        client, course, django_capture_on_commit_callbacks)
    _assert_refused(client.post(f"/api/v1/problem-sets/{problem_set_id}/publish/"))
    assert ProblemSet.objects.get(pk=problem_set_id).status == "ready"


@pytest.mark.django_db
def test_lms_newcomers_failing_fail_the_set_with_the_reason(
    instructor: Any, course: Any, django_capture_on_commit_callbacks: Any,
) -> None:
    from lms.services import generate_missing_variants

    problem_set_id = _published_before_a_late_student(
        instructor[1], course, django_capture_on_commit_callbacks)
    assert generate_missing_variants(ProblemSet.objects.get(pk=problem_set_id)) is False
    problem_set = ProblemSet.objects.get(pk=problem_set_id)
    assert problem_set.status == "failed"
    assert "items[1].params" in problem_set.failure_reason
    assert "fewer than min_cuts" in problem_set.failure_reason
    # Refused by the sample, not after a seed's whole attempt budget in the launch.
    assert "no problem met the constraints in 1000 attempts" in problem_set.failure_reason


@pytest.mark.django_db
def test_a_worker_failing_a_students_variant_fails_the_set_with_the_reason(
    instructor: Any, student: Any, course: Any,
) -> None:
    from exercises.services import generate_variants

    _, client = instructor
    problem_set_id = _create(client, course)
    ProblemSet.objects.filter(pk=problem_set_id).update(status="generating", progress_total=1)
    assert generate_variants(problem_set_id, [student[0].pk]) == 0
    problem_set = ProblemSet.objects.get(pk=problem_set_id)
    assert problem_set.status == "failed"
    assert problem_set.failure_reason.startswith("item 2: alphabeta: ")
    assert "fewer than min_cuts" in problem_set.failure_reason


def test_choosing_a_fallback_option_names_no_misconception() -> None:
    from decimal import Decimal

    from exercises.models import Item
    from exercises.services import split_points
    from grading.grader import GradingContext, grade_answer

    params = choice_params("minimax", most=True)
    item = generate_item("minimax", params, SEEDS[0])
    sources = item.trace["option_sources"]
    fallback = next(i for i, source in sources.items() if source not in ("key", "misconception"))
    stored = Item(kind="minimax", params=params, points=Decimal(1), position=1,
                  part_points=split_points("minimax", params, Decimal(1)))
    context = GradingContext(stored, item.problem, item.answer_key, item.trace)
    result = grade_answer(context, {"choice": fallback}).results[0]
    assert result["verdict"] == "wrong" and result["misconception"] is None
