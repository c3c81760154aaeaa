"""The instructor's set-editing pages (issue 17): edit a published set through the PATCH
service (regrade reported, refusals naming the field), a draft's params that shape its
problems too, archive and unarchive, copy into another course, export the definition and
import it, in a real headless Chromium; and who may open them."""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from tests.pages.conftest import ALPHABETA_PARAMS, make_problem_set, publish_now
from tests.pages.test_browser import a11y_problems, log_in, screenshot, with_password


def teach_second_course(instructor: Any, slug: str = "ai-next-year") -> Any:
    """Enrol ``instructor`` as the teacher of a second course and return it."""
    from accounts.models import Course, Enrollment

    course = Course.objects.create(slug=slug, title="AI, next year")
    Enrollment.objects.create(user=instructor, course=course, role="instructor")
    return course


def open_set_page(live_server: Any, new_page: Callable[[], Any], instructor: Any,
                  problem_set: Any) -> Any:
    """Return a new page, logged in as ``instructor``, on ``problem_set``'s page."""
    page = new_page()
    log_in(page, live_server.url, with_password(instructor).username)
    page.goto(f"{live_server.url}/teach/problem-sets/{problem_set.pk}/")
    return page


@pytest.mark.browser
@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_editing_a_published_set_regrades_a_convention_and_refuses_a_bad_field(
    live_server: Any, new_page: Callable[[], Any], instructor: Any, student: Any,
    course: Any,
) -> None:
    from exercises.models import ProblemSet
    from grading.models import Regrade

    problem_set = publish_now(make_problem_set(instructor[0], course))
    page = open_set_page(live_server, new_page, instructor[0], problem_set)
    page.click("#edit-link")
    page.wait_for_selector("#edit-form")
    assert page.is_visible("#edit-published-note")
    assert a11y_problems(page) == []
    # A refused change names its field and changes nothing (the browser's own check of
    # max="100" is switched off: the server must refuse it too).
    page.evaluate("() => { document.getElementById('edit-form').noValidate = true; }")
    page.fill("#id_late_penalty", "250")
    page.click("#edit-submit")
    page.wait_for_selector("#edit-errors")
    assert page.get_attribute("#id_late_penalty", "aria-invalid") == "true"
    assert "Late penalty" in page.inner_text(".messages")
    assert ProblemSet.objects.get(pk=problem_set.pk).late_penalty == 0
    # A new title and due date, and a convention: saved, the convention regraded.
    page.fill("#id_late_penalty", "10")
    page.fill("#id_title", "Week 3, revised")
    page.fill("#id_due_at", "2027-02-01T09:30")
    page.uncheck("#item-1-cut_on_equality")
    page.click("#edit-submit")
    page.wait_for_selector(".messages li:has-text('Regrade')")
    message = page.inner_text(".messages")
    assert "Item 1" in message
    screenshot(page, "set-editing-saved")
    saved = ProblemSet.objects.get(pk=problem_set.pk)
    assert saved.title == "Week 3, revised"
    assert str(saved.late_penalty) == "0.100"
    assert saved.due_at is not None and saved.due_at.isoformat().startswith("2027-02-01T09:30")
    assert saved.items.get().params["cut_on_equality"] is False
    regrade = Regrade.objects.get(problem_set=saved)
    assert page.is_visible(f"#regrades-table th:has-text('{regrade.pk}')")
    assert page.input_value("#id_late_penalty") == "10"


@pytest.mark.browser
@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_editing_a_draft_changes_the_params_that_shape_its_problems(
    live_server: Any, new_page: Callable[[], Any], instructor: Any, course: Any,
) -> None:
    from exercises.models import Item

    draft = make_problem_set(instructor[0], course)
    page = new_page()
    log_in(page, live_server.url, with_password(instructor[0]).username)
    page.goto(f"{live_server.url}/teach/problem-sets/{draft.pk}/")
    page.click("#edit-link")
    page.wait_for_selector("#edit-form")
    assert page.is_visible("#edit-draft-note") and not page.is_visible("#edit-published-note")
    # The builder's inputs, labels and help, holding the stored values.
    assert page.inner_text("label[for='item-1-depth']") == "Depth (plies below the root)"
    assert page.inner_text("#item-1-depth-help") == "plies below the root (the root is at depth 0)"
    assert page.input_value("#item-1-depth") == "2"
    assert page.input_value("#item-1-min_cuts") == "1"
    assert a11y_problems(page) == []
    # A depth out of bounds is refused beside its input, as the API words it; nothing changes
    # (the browser's own check of max="4" is switched off: the server must refuse it too).
    page.evaluate("() => { document.getElementById('edit-form').noValidate = true; }")
    page.fill("#item-1-depth", "9")
    page.fill("#item-1-min_cuts", "2")
    page.click("#edit-submit")
    page.wait_for_selector("#item-1-depth-error")
    assert page.inner_text("#item-1-depth-error") == "must be between 1 and 4, got 9"
    assert page.get_attribute("#item-1-depth", "aria-invalid") == "true"
    assert page.get_attribute("#item-1-depth", "aria-describedby") == (
        "item-1-depth-help item-1-depth-error")
    assert "Item 1 · Depth (plies below the root)" in page.inner_text(".messages")
    assert page.input_value("#item-1-min_cuts") == "2"  # what was typed is kept
    assert Item.objects.get(problem_set=draft).params["depth"] == 2
    assert a11y_problems(page) == []
    screenshot(page, "set-editing-draft-refused")
    # A deeper tree: 27 leaves, each with a value of its own.
    page.fill("#item-1-depth", "3")
    page.fill("#item-1-max_leaves", "27")
    page.fill("#item-1-max_value", "30")
    page.click("#edit-submit")
    page.wait_for_selector(".messages li:has-text('Nothing needed regrading')")
    params = Item.objects.get(problem_set=draft).params
    assert [params[name] for name in ("depth", "max_leaves", "max_value", "min_cuts")] == [
        3, 27, 30, 2]
    assert page.input_value("#item-1-depth") == "3"


@pytest.mark.browser
@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_archive_and_unarchive_from_the_set_page(
    live_server: Any, new_page: Callable[[], Any], instructor: Any, student: Any,
    course: Any,
) -> None:
    from exercises.models import ProblemSet

    problem_set = publish_now(make_problem_set(instructor[0], course))
    page = open_set_page(live_server, new_page, instructor[0], problem_set)
    page.click("#archive-button")
    page.wait_for_selector("#archived-note")
    assert ProblemSet.objects.get(pk=problem_set.pk).archived_at is not None
    assert a11y_problems(page) == []
    screenshot(page, "set-archived")
    page.click("#unarchive-button")
    page.wait_for_selector("#archive-button")
    assert ProblemSet.objects.get(pk=problem_set.pk).archived_at is None


@pytest.mark.browser
@pytest.mark.e2e
@pytest.mark.django_db(transaction=True)
def test_copy_into_another_course_then_export_and_import(
    live_server: Any, new_page: Callable[[], Any], instructor: Any, student: Any,
    course: Any, tmp_path: Path,
) -> None:
    from exercises.models import ProblemSet
    from exercises.services import export_definition

    problem_set = publish_now(make_problem_set(instructor[0], course))
    next_year = teach_second_course(instructor[0])
    page = open_set_page(live_server, new_page, instructor[0], problem_set)
    page.select_option("#id_copy_course", str(next_year.pk))
    page.fill("#id_copy_title", "Week 3 (2027)")
    page.click("#copy-button")
    page.wait_for_selector("h1:has-text('Week 3 (2027)')")
    copy = ProblemSet.objects.get(course=next_year)
    assert copy.status == ProblemSet.Status.DRAFT and copy.seed != problem_set.seed
    assert page.url.endswith(f"/teach/problem-sets/{copy.pk}/")
    # Export: the download is the portable definition.
    with page.expect_download() as download_info:
        page.click("#export-link")
    exported = tmp_path / "definition.json"
    download_info.value.save_as(str(exported))
    definition = json.loads(exported.read_text())
    assert definition == json.loads(json.dumps(export_definition(copy)))
    # Import it back into the first course, from the list page.
    page.goto(f"{live_server.url}/teach/problem-sets/")
    page.click("#import-link")
    page.wait_for_selector("#import-form")
    assert a11y_problems(page) == []
    page.select_option("#id_import_course", str(course.pk))
    page.set_input_files("#id_definition", str(exported))
    page.click("#import-submit")
    page.wait_for_selector("#manage")
    imported = ProblemSet.objects.exclude(pk__in=[problem_set.pk, copy.pk]).get()
    assert imported.course == course and imported.title == "Week 3 (2027)"
    # The copy has the seed here: the import draws another (a returning student would
    # otherwise meet the copy's problems again).
    assert imported.seed != copy.seed
    assert {**export_definition(imported), "seed": definition["seed"]} == definition
    screenshot(page, "set-imported")
    # A broken definition is refused, naming the path of the bad field.
    definition["items"][0]["params"]["depth"] = 99
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(definition))
    page.goto(f"{live_server.url}/teach/problem-sets/import/")
    page.set_input_files("#id_definition", str(broken))
    page.click("#import-submit")
    page.wait_for_selector(".messages li:has-text('definition.items[0].params.depth')")
    assert ProblemSet.objects.count() == 3


def logged_in(user: Any) -> Client:
    """Return a test client with ``user``'s session."""
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.django_db
def test_other_instructors_and_students_get_404_on_every_new_page(
    instructor: Any, other_instructor: Any, student: Any, course: Any,
) -> None:
    from exercises.models import ProblemSet

    problem_set = make_problem_set(instructor[0], course)
    pages = [
        ("get", reverse("pages:edit_problem_set", args=[problem_set.pk]), {}),
        ("post", reverse("pages:edit_problem_set", args=[problem_set.pk]), {"title": "x"}),
        ("post", reverse("pages:archive_problem_set", args=[problem_set.pk]),
         {"action": "archive"}),
        ("post", reverse("pages:copy_problem_set", args=[problem_set.pk]),
         {"course": str(course.pk)}),
        ("get", reverse("pages:export_problem_set", args=[problem_set.pk]), {}),
    ]
    for user in (other_instructor[0], student[0]):
        client = logged_in(user)
        for method, url, data in pages:
            assert getattr(client, method)(url, data).status_code == 404, (user, url)
    # Students cannot open the import page; an instructor cannot import into a course
    # they do not teach.
    assert logged_in(student[0]).get(reverse("pages:import_problem_set")).status_code == 404
    stranger = logged_in(other_instructor[0])
    definition = json.dumps({"format": "cutoff-problem-set/1", "title": "t", "policies": {},
                             "items": [{"kind": "minimax", "params": {}, "points": "1"}]})
    stranger.post(reverse("pages:import_problem_set"), {
        "course": str(course.pk),
        "definition": SimpleUploadedFile("d.json", definition.encode(), "application/json"),
    })
    assert ProblemSet.objects.count() == 1
    # Anonymous readers are sent to the login page.
    for method, url, data in pages:
        response = getattr(Client(), method)(url, data)
        assert response.status_code == 302 and "/login/" in response["Location"]
    assert ProblemSet.objects.get().archived_at is None and ProblemSet.objects.get().title != "x"


@pytest.mark.django_db
def test_lowering_attempts_below_those_used_names_the_field(
    instructor: Any, student: Any, other_student: Any, course: Any,
) -> None:
    from exercises.models import ProblemSet
    from grading.models import Submission

    problem_set = publish_now(make_problem_set(instructor[0], course, max_attempts=3))
    variant_item = problem_set.variants.get(student=student[0]).items.get(position=1)
    for attempt in (1, 2):
        Submission.objects.create(variant_item=variant_item, student=student[0],
                                  attempt_number=attempt, kind=Submission.Kind.ANSWER,
                                  answer={})
    client = logged_in(instructor[0])
    url = reverse("pages:edit_problem_set", args=[problem_set.pk])
    form = {"title": problem_set.title, "max_attempts": "1", "late_policy": "refuse",
            "late_penalty": "0", "score_policy": "best", "feedback_policy": "verdicts",
            "item-1-points": "4", "item-1-cut_on_equality": "on",
            "item-1-root_raises_alpha": "on"}
    response = client.post(url, form)
    assert response.status_code == 200
    assert 'aria-describedby="id_max_attempts-error"' in response.content.decode()
    assert ProblemSet.objects.get().max_attempts == 3


class FormReader(HTMLParser):
    """Read a page's edit form as a browser would post it: each named input's value, ticked
    boxes only, each menu's selected option."""

    def __init__(self) -> None:
        super().__init__()
        self.fields: dict[str, Any] = {}
        self._select: str | None = None
        self._textarea: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        name = named.get("name")
        if tag == "input" and name and named.get("type") != "checkbox":
            self.fields.setdefault(name, []).append(named.get("value") or "")
        elif tag == "input" and name and "checked" in named:
            self.fields.setdefault(name, []).append(named.get("value") or "on")
        elif tag == "select":
            self._select = name
        elif tag == "option" and self._select and (
                "selected" in named or self._select not in self.fields):
            self.fields[self._select] = [named.get("value")]
        elif tag == "textarea" and name:
            self._textarea = name
            self.fields[name] = [""]

    def handle_data(self, data: str) -> None:
        if self._textarea:
            self.fields[self._textarea] = [self.fields[self._textarea][0] + data]

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None


def shown_form(client: Client, url: str) -> dict[str, Any]:
    """Return the edit form ``url`` shows, as its submit button would post it."""
    reader = FormReader()
    reader.feed(client.get(url).content.decode())
    reader.fields.pop("csrfmiddlewaretoken", None)
    return reader.fields


@pytest.mark.django_db
def test_a_draft_takes_a_tree_typed_on_its_edit_page_and_refuses_broken_json_beside_it(
    instructor: Any, course: Any,
) -> None:
    from exercises.models import Item

    draft = make_problem_set(instructor[0], course)
    client = logged_in(instructor[0])
    url = reverse("pages:edit_problem_set", args=[draft.pk])
    form = shown_form(client, url)
    assert form["item-1-tree"] == [""]  # no tree of the instructor's: random trees
    form["item-1-tree"] = ['{"type": "max", "children": [']
    page = client.post(url, form).content.decode()
    assert '<span class="error" id="item-1-tree-error">must be valid JSON</span>' in page
    assert Item.objects.get().params["tree"] is None
    form["item-1-tree"] = ["MAX(A: MIN(3, 5), B: MIN(2, 9))"]
    assert client.post(url, form).status_code == 302
    tree = Item.objects.get().params["tree"]
    assert [child["name"] for child in tree["children"]] == ["A", "B"]
    # Shown again as the JSON it is stored as; emptied (or null, as the API says it), the
    # item draws random trees again.
    form = shown_form(client, url)
    assert json.loads(form["item-1-tree"][0]) == tree
    for no_tree in ("", "null"):
        form["item-1-tree"] = [json.dumps(tree)]
        assert client.post(url, form).status_code == 302
        assert Item.objects.get().params["tree"] == tree
        form["item-1-tree"] = [no_tree]
        assert client.post(url, form).status_code == 302
        assert Item.objects.get().params["tree"] is None


@pytest.mark.django_db
def test_a_published_set_offers_only_conventions_and_refuses_a_shape_change_posted_late(
    instructor: Any, student: Any, course: Any,
) -> None:
    from exercises.models import Item

    draft = make_problem_set(instructor[0], course)
    client = logged_in(instructor[0])
    url = reverse("pages:edit_problem_set", args=[draft.pk])
    drawn_as_draft = shown_form(client, url)
    publish_now(draft)
    published = shown_form(client, url)
    assert "item-1-depth" not in published and "shape_params" not in published
    assert "item-1-cut_on_equality" in published
    page = client.get(url).content.decode()
    assert 'id="edit-published-note"' in page and 'id="edit-draft-note"' not in page
    # A form drawn before the problems were generated: its shape change is refused by name
    # (listed, as the published page has no input for it), not dropped.
    drawn_as_draft["item-1-min_cuts"] = ["2"]
    page = client.post(url, drawn_as_draft).content.decode()
    assert ('<li data-field="items[0].params.min_cuts">shapes the students&#x27; problems, '
            "which are already generated; only conventions and points can change now</li>"
            in page)
    assert "Item 1 · Fewest cutoffs: shapes the students" in page
    assert Item.objects.get().params["min_cuts"] == 1
    # Unchanged, it saves: only what changed is checked against the generated problems.
    drawn_as_draft["item-1-min_cuts"] = ["1"]
    assert client.post(url, drawn_as_draft).status_code == 302


@pytest.mark.django_db
def test_a_published_multiple_choice_item_offers_no_conventions(
    instructor: Any, student: Any, course: Any,
) -> None:
    # Its options were drawn under them (exercises.services.frozen_changes): a changed
    # convention could leave no option right, so the form offers only its points.
    from exercises.models import Item
    from exercises.services import create_problem_set

    draft = create_problem_set(
        creator=instructor[0], course=course, title="Quiz", seed="choice-edit",
        items=[{"kind": "alphabeta", "points": Decimal(4),
                "params": {**ALPHABETA_PARAMS, "answer_format": "multiple_choice"}}],
    )
    client = logged_in(instructor[0])
    url = reverse("pages:edit_problem_set", args=[draft.pk])
    assert "item-1-cut_on_equality" in shown_form(client, url)
    publish_now(draft)
    form = shown_form(client, url)
    assert "item-1-cut_on_equality" not in form and "item-1-points" in form
    form["item-1-points"] = ["6"]
    assert client.post(url, form).status_code == 302
    stored = Item.objects.get()
    assert stored.points == 6 and stored.params["cut_on_equality"] is True
