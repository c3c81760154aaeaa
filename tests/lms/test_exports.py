"""Problem set exports, checked against what the Moodle XML importer (qformat_xml) and the
QTI 1.2 ASI binding (as Canvas imports it) require: element names and order, required
attributes, allowed values, answer fractions and references between identifiers."""

from __future__ import annotations

import io
import zipfile
from decimal import Decimal
from fractions import Fraction
from typing import Any
from xml.etree import ElementTree as ET

import pytest

from exercises.generation import generate_item
from exercises.kinds import get_kind
from exercises.models import Item, ProblemSet, Variant, VariantItem
from exercises.services import split_points

pytestmark = pytest.mark.django_db

# question_bank::fraction_options_full() in Moodle, as percentages.
MOODLE_FRACTIONS = {
    Decimal(v)
    for v in (
        "100 90 83.33333 80 75 70 66.66667 60 50 40 33.33333 30 25 20 16.66667 14.28571 "
        "12.5 11.11111 10 5 0"
    ).split()
}
MOODLE_FRACTIONS |= {-fraction for fraction in MOODLE_FRACTIONS}
MOODLE_TEXT_FORMATS = {"html", "moodle_auto_format", "plain_text", "markdown"}
QTI = "{http://www.imsglobal.org/xsd/ims_qtiasiv1p2}"
MANIFEST = "{http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1}"
CANVAS_QUESTION_TYPES = {"numerical_question", "multiple_choice_question"}
ITEM_ORDER = ["itemmetadata", "presentation", "resprocessing"]

ITEMS = [
    ("minimax", {"ask_nodes": 2}, "10"),
    ("minimax", {"answer_format": "multiple_choice"}, "2"),
    ("expectimax", {}, "3"),
    ("concept_quiz", {}, "1"),
    ("alphabeta", {}, "4"),
]


@pytest.fixture
def published(instructor: Any, student: Any, other_student: Any) -> ProblemSet:
    """Return a problem set with generated variants for two students."""
    owner, _ = instructor
    problem_set = ProblemSet.objects.create(
        course=owner.enrollments.get().course,
        title="Search / week 3",
        seed="export-seed",
        created_by=owner,
        status=ProblemSet.Status.READY,
    )
    for position, (kind_name, raw, points) in enumerate(ITEMS, start=1):
        params = get_kind(kind_name).clean_params(raw)
        item = Item.objects.create(
            problem_set=problem_set,
            position=position,
            kind=kind_name,
            params=params,
            points=Decimal(points),
            part_points=split_points(kind_name, params, Decimal(points)),
        )
        for person in (student[0], other_student[0]):
            variant, _ = Variant.objects.get_or_create(
                problem_set=problem_set, student=person, defaults={"seed": f"v{person.pk}"}
            )
            generated = generate_item(kind_name, params, f"{person.pk}-{position}")
            VariantItem.objects.create(
                variant=variant,
                item=item,
                position=position,
                seed="s",
                problem=generated.problem,
                prompt=generated.prompt,
                answer_key=generated.answer_key,
            )
    return problem_set


def text_of(element: ET.Element, path: str) -> str:
    """Return the text at ``path`` under ``element``, failing when it is missing."""
    found = element.find(path)
    assert found is not None, f"<{element.tag}> lacks {path}"
    return found.text or ""


def moodle_question(root: ET.Element, ident_suffix: str) -> ET.Element:
    """Return the question whose idnumber ends with ``ident_suffix``."""
    return next(
        question
        for question in root.iter("question")
        if question.get("type") != "category"
        and text_of(question, "idnumber").endswith(ident_suffix)
    )


def check_moodle_question(question: ET.Element) -> None:
    """Assert what qformat_xml needs to import a numerical or multichoice question."""
    qtype = question.get("type")
    assert text_of(question, "name/text").strip()
    questiontext = question.find("questiontext")
    assert questiontext is not None and questiontext.get("format") in MOODLE_TEXT_FORMATS
    assert text_of(questiontext, "text").strip()
    assert Decimal(text_of(question, "defaultgrade")) >= 0
    assert 0 <= Decimal(text_of(question, "penalty")) <= 1
    assert text_of(question, "hidden") in {"0", "1"}
    answers = question.findall("answer")
    fractions = [Decimal(answer.get("fraction", "")) for answer in answers]
    assert all(fraction in MOODLE_FRACTIONS for fraction in fractions), fractions
    for answer in answers:
        assert answer.get("format") in MOODLE_TEXT_FORMATS | {None}
        assert answer.find("text") is not None
    if qtype == "numerical":
        assert answers and max(fractions) == 100
        for answer in answers:
            value = text_of(answer, "text")
            assert value == "*" or Decimal(value) == Decimal(value)
            assert Decimal(text_of(answer, "tolerance")) >= 0
    else:
        assert qtype == "multichoice"
        single = text_of(question, "single")
        assert single in {"true", "false"}
        assert len(answers) >= 2
        assert text_of(question, "answernumbering") in {"abc", "ABCD", "123", "iii", "IIII", "none"}
        assert text_of(question, "shuffleanswers") in {"true", "false", "0", "1"}
        if single == "true":
            assert max(fractions) == 100
        else:
            assert sum(f for f in fractions if f > 0) == 100


def test_moodle_xml_follows_the_importer_rules(published: ProblemSet, instructor: Any) -> None:
    _, client = instructor
    response = client.get(f"/api/v1/problem-sets/{published.pk}/export/moodle.xml")
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/xml"
    assert "attachment" in response["Content-Disposition"]
    root = ET.fromstring(response.content)
    assert root.tag == "quiz"
    category = None
    by_category: dict[str, list[ET.Element]] = {}
    for question in root:
        assert question.tag == "question"
        if question.get("type") == "category":
            category = text_of(question, "category/text")
            assert category.startswith("$course$/top/Cutoff/Search - week 3/item ")
            by_category[category] = []
            continue
        assert category is not None, "a question before any category"
        check_moodle_question(question)
        by_category[category].append(question)
    # One category per exported question of an item, holding it in both variants.
    positions = {name.split("/item ")[1].split(" ")[0] for name in by_category}
    assert positions == {str(position) for position in range(1, len(ITEMS) + 1)}
    assert (
        "$course$/top/Cutoff/Search - week 3/item 1 (minimax) · minimax value of the root (exact)"
        in by_category
    )
    for questions in by_category.values():
        assert len(questions) == 2
        idnumbers = [text_of(q, "idnumber") for q in questions]
        assert len(idnumbers) == len(set(idnumbers))
    types = {q.get("type") for qs in by_category.values() for q in qs}
    assert types == {"numerical", "multichoice"}


def test_moodle_answers_are_the_engines_keys(published: ProblemSet, instructor: Any) -> None:
    _, client = instructor
    root = ET.fromstring(
        client.get(f"/api/v1/problem-sets/{published.pk}/export/moodle.xml").content
    )
    first = VariantItem.objects.filter(item__position=1).order_by("variant_id").first()
    value_question = moodle_question(root, f"v{first.pk}-value")
    assert Decimal(text_of(value_question, "answer/text")) == Decimal(first.answer_key["value"])
    # The tree is in the question text: every leaf with its value.
    stem = text_of(value_question, "questiontext/text")
    assert "root (MAX)" in stem and "<ul>" in stem
    # Expectimax values may be fractions: exact when the decimal is short, else rounded.
    chance = VariantItem.objects.filter(item__position=3)
    for variant_item in chance:
        question = moodle_question(root, f"v{variant_item.pk}-value")
        exported = Decimal(text_of(question, "answer/text"))
        tolerance = Decimal(text_of(question, "answer/tolerance"))
        exact = Fraction(str(variant_item.answer_key["value"]))
        assert abs(Fraction(exported) - exact) <= tolerance
    # Multiple choice: the one correct option is the key.
    mc = VariantItem.objects.filter(item__position=2).first()
    question = moodle_question(root, f"v{mc.pk}-choice")
    correct = [a for a in question.findall("answer") if a.get("fraction") == "100"]
    option = next(o for o in mc.problem["options"] if o["id"] == mc.answer_key["choice"])
    assert [text_of(a, "text") for a in correct] == [str(option["value"])]


def check_qti_item(item: ET.Element) -> None:
    """Assert the QTI 1.2 ASI structure of one item, as Canvas reads it."""
    assert item.get("ident")
    children = [child.tag.removeprefix(QTI) for child in item]
    assert [tag for tag in children if tag in ITEM_ORDER] == ITEM_ORDER, children
    fields = {
        text_of(f, f"{QTI}fieldlabel"): text_of(f, f"{QTI}fieldentry")
        for f in item.iter(f"{QTI}qtimetadatafield")
    }
    assert fields["question_type"] in CANVAS_QUESTION_TYPES
    assert Decimal(fields["points_possible"]) >= 0
    presentation = item.find(f"{QTI}presentation")
    assert presentation is not None
    assert text_of(presentation, f"{QTI}material/{QTI}mattext").strip()
    responses = {}
    for tag in ("response_lid", "response_str"):
        for response in presentation.iter(f"{QTI}{tag}"):
            assert response.get("rcardinality") in {"Single", "Multiple", "Ordered"}
            labels = [label.get("ident") for label in response.iter(f"{QTI}response_label")]
            assert labels and all(labels) and len(labels) == len(set(labels))
            responses[response.get("ident")] = (tag, set(labels))
    assert responses
    processing = item.find(f"{QTI}resprocessing")
    assert processing is not None
    assert processing[0].tag == f"{QTI}outcomes"
    for decvar in processing.iter(f"{QTI}decvar"):
        assert decvar.get("vartype", "Integer") in {
            "Integer",
            "String",
            "Decimal",
            "Scientific",
            "Boolean",
            "Enumerated",
            "Set",
        }
    conditions = processing.findall(f"{QTI}respcondition")
    assert conditions
    for condition in conditions:
        for check in condition.find(f"{QTI}conditionvar").iter():
            tag = check.tag.removeprefix(QTI)
            if tag.startswith("var"):
                kind, labels = responses[check.get("respident")]
                if kind == "response_lid":
                    assert check.text in labels
                else:
                    Decimal(check.text)
        for setvar in condition.findall(f"{QTI}setvar"):
            assert setvar.get("action") in {"Set", "Add", "Subtract", "Multiply", "Divide"}
            Decimal(setvar.text)


def test_qti_package_follows_qti_1_2_and_the_content_package_rules(
    published: ProblemSet, instructor: Any
) -> None:
    _, client = instructor
    response = client.get(f"/api/v1/problem-sets/{published.pk}/export/qti.zip")
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    assert archive.testzip() is None
    manifest = ET.fromstring(archive.read("imsmanifest.xml"))
    assert manifest.tag == f"{MANIFEST}manifest" and manifest.get("identifier")
    [resource] = manifest.iter(f"{MANIFEST}resource")
    assert resource.get("type") == "imsqti_xmlv1p2" and resource.get("identifier")
    files = [f.get("href") for f in resource.iter(f"{MANIFEST}file")]
    assert files == [resource.get("href")]
    assert all(name in archive.namelist() for name in files)

    root = ET.fromstring(archive.read(files[0]))
    assert root.tag == f"{QTI}questestinterop"
    [assessment] = root.findall(f"{QTI}assessment")
    assert assessment.get("ident") and assessment.get("title") == "Search / week 3"
    assert assessment[0].tag == f"{QTI}qtimetadata"
    [root_section] = assessment.findall(f"{QTI}section")
    groups = root_section.findall(f"{QTI}section")
    assert {group.get("title").split(" ")[1] for group in groups} == {
        str(position) for position in range(1, len(ITEMS) + 1)
    }
    idents: list[str] = []
    for group in groups:
        assert group.get("ident") and group.get("title")
        children = [child.tag.removeprefix(QTI) for child in group]
        assert children[0] == "selection_ordering" and set(children[1:]) == {"item"}
        picked = int(
            text_of(group, f"{QTI}selection_ordering/{QTI}selection/{QTI}selection_number")
        )
        items = group.findall(f"{QTI}item")
        assert 1 <= picked <= len(items)
        for item in items:
            check_qti_item(item)
            idents.append(item.get("ident"))
    assert len(idents) == len(set(idents))


def test_exports_before_publishing_explain_why(instructor: Any) -> None:
    owner, client = instructor
    problem_set = ProblemSet.objects.create(
        course=owner.enrollments.get().course, title="Draft", seed="s", created_by=owner
    )
    for suffix in ("moodle.xml", "qti.zip"):
        response = client.get(f"/api/v1/problem-sets/{problem_set.pk}/export/{suffix}")
        assert response.status_code == 409
        assert response.json()["error"]["code"] == "nothing_to_export"


def test_exports_are_for_the_courses_instructors(
    published: ProblemSet, other_instructor: Any, student: Any, anonymous: Any
) -> None:
    url = f"/api/v1/problem-sets/{published.pk}/export/moodle.xml"
    assert other_instructor[1].get(url).status_code == 404
    assert student[1].get(url).status_code == 403
    assert anonymous.get(url).status_code == 401
    assert other_instructor[1].get("/api/v1/problem-sets/999999/export/qti.zip").status_code == 404
