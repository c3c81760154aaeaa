"""Export a problem set's generated variants as LMS question banks: Moodle XML and QTI 1.2.

Each variant of an item becomes a question per exportable answer part: a number (and each
asked node value) becomes a numerical question, a multiple-choice item a multichoice one;
other parts (names, sets, sequences…) have no equivalent in these formats and are left out.
The same question in every variant of an item goes into one category (Moodle) or one
question group picking one at random (QTI/Canvas), so a quiz draws a different variant for
each student.
"""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from html import escape
from typing import Any
from xml.etree import ElementTree as ET

from exercises.kinds import get_kind
from exercises.kinds.base import AnswerPart, PartType
from exercises.models import Item, ProblemSet, VariantItem

# A value without an exact short decimal is given to this many places, with this tolerance.
DECIMAL_PLACES = 3
ROUNDED_TOLERANCE = Decimal("0.0005")
PROBLEM_KEYS_SHOWN_ELSEWHERE = {"format", "kind", "params", "ask", "options", "tree", "question"}


@dataclass(frozen=True)
class Choice:
    """One option of a multiple-choice question."""

    ident: str
    text: str
    correct: bool


@dataclass(frozen=True)
class Question:
    """One exported question: a numerical answer or a set of choices."""

    ident: str
    name: str
    text_html: str
    points: Decimal
    answer: Decimal | None = None
    tolerance: Decimal = Decimal(0)
    choices: tuple[Choice, ...] = ()

    @property
    def is_numerical(self) -> bool:
        """Return whether the question asks for a number."""
        return self.answer is not None


@dataclass
class QuestionBank:
    """One question of an item in each of its variants (a category, or a random-pick group)."""

    ident: str
    title: str
    questions: list[Question] = field(default_factory=list)


class NothingToExportError(Exception):
    """The problem set has no generated variants with exportable parts."""


def question_banks(problem_set: ProblemSet) -> list[QuestionBank]:
    """Return one bank per exportable question of an item (a part, or one asked node), holding
    that question in each of the item's variants; raise NothingToExportError when there is
    none (no generated variant, or no numerical or multiple-choice part)."""
    banks: dict[str, QuestionBank] = {}
    for item in problem_set.items.order_by("position"):
        seen_problems: set[str] = set()
        variant_items = (
            VariantItem.objects.filter(item=item, answer_key__isnull=False)
            .order_by("variant_id")
            .only("id", "problem", "prompt", "answer_key")
        )
        for number, variant_item in enumerate(variant_items, start=1):
            fingerprint = json.dumps(variant_item.problem, sort_keys=True)
            if fingerprint in seen_problems:
                continue  # two students with the same problem: one question is enough
            seen_problems.add(fingerprint)
            for asked, question in _questions_of(problem_set, item, variant_item, number):
                ident = f"cutoff-ps{problem_set.pk}-i{item.position}-{asked.ident}"
                bank = banks.setdefault(
                    ident,
                    QuestionBank(ident, f"item {item.position} ({item.kind}) · {asked.title}"),
                )
                bank.questions.append(question)
    if not banks:
        raise NothingToExportError(
            "no generated variant has a numerical or multiple-choice part to export; publish "
            "the problem set first (exports hold the generated variants)"
        )
    return list(banks.values())


@dataclass(frozen=True)
class Asked:
    """What a question asks, the same in every variant: a part, or the k-th asked node."""

    ident: str
    title: str


def _questions_of(
    problem_set: ProblemSet, item: Item, variant_item: VariantItem, number: int
) -> list[tuple[Asked, Question]]:
    kind = get_kind(item.kind)
    parts = kind.answer_parts(item.params)
    prompt = kind.prompt_text(variant_item.prompt["args"], item.params)
    stem = _stem_html(prompt, variant_item.problem)
    key = variant_item.answer_key or {}
    questions = []
    for part in parts:
        points = _part_points(item, part, len(parts))
        ident = f"cutoff-ps{problem_set.pk}-i{item.position}-v{variant_item.pk}-{part.name}"
        name = f"{problem_set.title} · item {item.position} · variant {number} · {part.label}"
        label = escape(str(part.label))
        asked = Asked(part.name, str(part.label))
        if part.type == PartType.CHOICE:
            choices = _choices(variant_item.problem, key.get(part.name))
            if choices:
                text = f"{stem}<p><strong>{label}</strong></p>"
                questions.append((asked, Question(ident, name, text, points, choices=choices)))
        elif part.type == PartType.NUMBER:
            numerical = _numerical(key.get(part.name), part)
            if numerical is not None:
                text = f"{stem}<p><strong>{label}</strong></p>"
                questions.append((asked, Question(ident, name, text, points, *numerical)))
        elif part.type == PartType.NODE_VALUES:
            nodes = key.get(part.name) or {}
            for index, (node, value) in enumerate(nodes.items(), start=1):
                numerical = _numerical(value, part)
                if numerical is None:
                    continue
                text = f"{stem}<p><strong>{label}: {escape(node)}</strong></p>"
                share = (points / len(nodes)).quantize(Decimal("0.01"))
                question = Question(f"{ident}-{node}", f"{name}: {node}", text, share, *numerical)
                node_asked = Asked(f"{part.name}-{index}", f"{part.label} (node {index})")
                questions.append((node_asked, question))
    return questions


def _part_points(item: Item, part: AnswerPart, part_count: int) -> Decimal:
    share = (item.part_points or {}).get(part.name)
    if share is not None:
        return Decimal(str(share))
    return (Decimal(item.points) / part_count).quantize(Decimal("0.01"))


def _numerical(value: Any, part: AnswerPart) -> tuple[Decimal, Decimal] | None:
    """Return (answer, tolerance) for a numeric key, or None when it is not a finite number."""
    try:
        exact = Fraction(str(value))
    except (ValueError, ZeroDivisionError):
        return None  # e.g. "inf" or a structured value
    tolerance = Decimal(str(float(part.tolerance))) if part.tolerance else Decimal(0)
    rounded = Decimal(exact.numerator) / Decimal(exact.denominator)
    places = Decimal(1).scaleb(-DECIMAL_PLACES)
    if Fraction(rounded.quantize(places, ROUND_HALF_EVEN)) == exact:
        return rounded.quantize(places, ROUND_HALF_EVEN).normalize(), tolerance
    return rounded.quantize(places, ROUND_HALF_EVEN), max(tolerance, ROUNDED_TOLERANCE)


def _choices(problem: dict[str, Any], correct: Any) -> tuple[Choice, ...]:
    options = problem.get("options") or []
    choices = tuple(
        Choice(
            ident=str(option["id"]),
            text=str(option["text"]) if "text" in option else _value_text(option.get("value")),
            correct=option["id"] == correct,
        )
        for option in options
        if isinstance(option, dict) and "id" in option
    )
    return choices if sum(choice.correct for choice in choices) == 1 else ()


def _value_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _stem_html(prompt: str, problem: dict[str, Any]) -> str:
    html = f"<p>{escape(prompt)}</p>".replace("\n", "<br>")
    if isinstance(problem.get("tree"), dict):
        html += _tree_html(problem["tree"])
    rest = {k: v for k, v in problem.items() if k not in PROBLEM_KEYS_SHOWN_ELSEWHERE}
    if rest:
        html += f"<pre>{escape(json.dumps(rest, indent=1))}</pre>"
    return html


def _tree_html(node: dict[str, Any]) -> str:
    label = escape(str(node.get("name", "")))
    if "children" in node:
        label += f" ({escape(str(node.get('type', '')).upper())})"
        probabilities = node.get("probabilities")
        children = node["children"]
        items = []
        for index, child in enumerate(children):
            edge = ""
            if probabilities and index < len(probabilities):
                edge = f"p = {escape(str(probabilities[index]))}: "
            items.append(f"<li>{edge}{_tree_html(child)}</li>")
        return f"{label}<ul>{''.join(items)}</ul>"
    return f"{label} = {escape(_value_text(node.get('value')))}"


# --- Moodle XML ------------------------------------------------------------------------------


def _text(parent: ET.Element, tag: str, text: str, **attributes: str) -> ET.Element:
    element = ET.SubElement(parent, tag, attributes)
    ET.SubElement(element, "text").text = text
    return element


def moodle_xml(problem_set: ProblemSet) -> bytes:
    """Return the problem set as a Moodle XML question file, one category per bank."""
    quiz = ET.Element("quiz")
    for bank in question_banks(problem_set):
        category = ET.SubElement(quiz, "question", {"type": "category"})
        # A "/" would nest categories in Moodle.
        folder = problem_set.title.replace("/", "-")
        _text(category, "category", f"$course$/top/Cutoff/{folder}/{bank.title}")
        _text(
            category,
            "info",
            "The same question in every variant: add a random question from here.",
            format="html",
        )
        for question in bank.questions:
            quiz.append(_moodle_question(question))
    ET.indent(quiz)
    return ET.tostring(quiz, encoding="utf-8", xml_declaration=True)


def _moodle_question(question: Question) -> ET.Element:
    kind = "numerical" if question.is_numerical else "multichoice"
    element = ET.Element("question", {"type": kind})
    _text(element, "name", question.name)
    _text(element, "questiontext", question.text_html, format="html")
    _text(element, "generalfeedback", "", format="html")
    ET.SubElement(element, "defaultgrade").text = str(question.points)
    ET.SubElement(element, "penalty").text = "0"
    ET.SubElement(element, "hidden").text = "0"
    ET.SubElement(element, "idnumber").text = question.ident[:100]
    if question.is_numerical:
        answer = _text(
            element, "answer", str(question.answer), fraction="100", format="moodle_auto_format"
        )
        _text(answer, "feedback", "", format="html")
        ET.SubElement(answer, "tolerance").text = str(question.tolerance)
        return element
    ET.SubElement(element, "single").text = "true"
    ET.SubElement(element, "shuffleanswers").text = "false"
    ET.SubElement(element, "answernumbering").text = "abc"
    for choice in question.choices:
        answer = _text(
            element,
            "answer",
            escape(choice.text),
            fraction="100" if choice.correct else "0",
            format="html",
        )
        _text(answer, "feedback", "", format="html")
    return element


# --- QTI 1.2 (Canvas) ------------------------------------------------------------------------

QTI_NAMESPACE = "http://www.imsglobal.org/xsd/ims_qtiasiv1p2"
MANIFEST_NAMESPACE = "http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1"


def qti_zip(problem_set: ProblemSet) -> bytes:
    """Return the problem set as a QTI 1.2 content package (as Canvas imports it): one
    assessment with a random-pick question group per bank."""
    banks = question_banks(problem_set)
    assessment_ident = f"cutoff-ps{problem_set.pk}"
    qti_path = f"{assessment_ident}/{assessment_ident}.xml"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(
            "imsmanifest.xml", _manifest(assessment_ident, problem_set.title, qti_path)
        )
        archive.writestr(qti_path, _assessment(assessment_ident, problem_set.title, banks))
    return buffer.getvalue()


def _manifest(ident: str, title: str, qti_path: str) -> bytes:
    manifest = ET.Element(
        "manifest", {"identifier": f"{ident}-manifest", "xmlns": MANIFEST_NAMESPACE}
    )
    metadata = ET.SubElement(manifest, "metadata")
    ET.SubElement(metadata, "schema").text = "IMS Content"
    ET.SubElement(metadata, "schemaversion").text = "1.1.3"
    ET.SubElement(manifest, "organizations")
    resources = ET.SubElement(manifest, "resources")
    resource = ET.SubElement(
        resources, "resource", {"identifier": ident, "type": "imsqti_xmlv1p2", "href": qti_path}
    )
    ET.SubElement(resource, "file", {"href": qti_path})
    ET.indent(manifest)
    return ET.tostring(manifest, encoding="utf-8", xml_declaration=True)


def _qtimetadata(parent: ET.Element, fields: dict[str, str]) -> None:
    holder = ET.SubElement(parent, "qtimetadata")
    for label, entry in fields.items():
        field_element = ET.SubElement(holder, "qtimetadatafield")
        ET.SubElement(field_element, "fieldlabel").text = label
        ET.SubElement(field_element, "fieldentry").text = entry


def _assessment(ident: str, title: str, banks: list[QuestionBank]) -> bytes:
    root = ET.Element("questestinterop", {"xmlns": QTI_NAMESPACE})
    assessment = ET.SubElement(root, "assessment", {"ident": ident, "title": title})
    _qtimetadata(assessment, {"cc_maxattempts": "1"})
    root_section = ET.SubElement(assessment, "section", {"ident": "root_section"})
    for bank in banks:
        group = ET.SubElement(root_section, "section", {"ident": bank.ident, "title": bank.title})
        ordering = ET.SubElement(group, "selection_ordering")
        selection = ET.SubElement(ordering, "selection")
        ET.SubElement(selection, "selection_number").text = "1"
        ET.SubElement(selection, "selection_extension").append(
            _element("points_per_item", str(max(q.points for q in bank.questions)))
        )
        for question in bank.questions:
            group.append(_qti_item(question))
    ET.indent(root)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True)


def _element(tag: str, text: str, **attributes: str) -> ET.Element:
    element = ET.Element(tag, attributes)
    element.text = text
    return element


def _material(parent: ET.Element, text: str, texttype: str) -> None:
    material = ET.SubElement(parent, "material")
    material.append(_element("mattext", text, texttype=texttype))


def _qti_item(question: Question) -> ET.Element:
    item = ET.Element("item", {"ident": question.ident, "title": question.name[:250]})
    question_type = "numerical_question" if question.is_numerical else "multiple_choice_question"
    _qtimetadata(
        ET.SubElement(item, "itemmetadata"),
        {"question_type": question_type, "points_possible": str(question.points)},
    )
    presentation = ET.SubElement(item, "presentation")
    _material(presentation, question.text_html, "text/html")
    processing = ET.SubElement(item, "resprocessing")
    outcomes = ET.SubElement(processing, "outcomes")
    ET.SubElement(
        outcomes,
        "decvar",
        {"maxvalue": "100", "minvalue": "0", "varname": "SCORE", "vartype": "Decimal"},
    )
    condition = ET.SubElement(processing, "respcondition", {"continue": "No"})
    variables = ET.SubElement(condition, "conditionvar")
    if question.is_numerical:
        response = ET.SubElement(
            presentation, "response_str", {"ident": "response1", "rcardinality": "Single"}
        )
        render = ET.SubElement(response, "render_fib", {"fibtype": "Decimal"})
        ET.SubElement(render, "response_label", {"ident": "answer1"})
        assert question.answer is not None
        either = ET.SubElement(variables, "or")
        either.append(_element("varequal", str(question.answer), respident="response1"))
        within = ET.SubElement(either, "and")
        within.append(
            _element("vargte", str(question.answer - question.tolerance), respident="response1")
        )
        within.append(
            _element("varlte", str(question.answer + question.tolerance), respident="response1")
        )
    else:
        response = ET.SubElement(
            presentation, "response_lid", {"ident": "response1", "rcardinality": "Single"}
        )
        render = ET.SubElement(response, "render_choice")
        for choice in question.choices:
            label = ET.SubElement(render, "response_label", {"ident": choice.ident})
            _material(label, choice.text, "text/plain")
        correct = next(choice for choice in question.choices if choice.correct)
        variables.append(_element("varequal", correct.ident, respident="response1"))
    condition.append(_element("setvar", "100", action="Set", varname="SCORE"))
    return item
