"""JSON read from clients keeps every number exactly as written."""

from __future__ import annotations

import io
from fractions import Fraction

import pytest
from rest_framework.exceptions import ParseError

from config.jsonsafe import BoundedJSONParser, loads, read_decimal
from grading.scoring import to_number


@pytest.mark.parametrize(("text", "read"), [
    ("0.1", 0.1), ("-2.5", -2.5), ("1.0", 1.0), ("1E2", 100.0), ("-0.0", -0.0),
    ("0.30000000000000004", 0.30000000000000004),
    ("1.7976931348623157e308", 1.7976931348623157e308),
])
def test_a_decimal_a_float_holds_exactly_is_read_as_that_float(text: str, read: float) -> None:
    assert read_decimal(text) == read and isinstance(read_decimal(text), float)


@pytest.mark.parametrize("text", [
    "0.12345678901234567891",  # more digits than a float holds: it would round
    "0.30000000000000001",     # rounds to 0.3, a different number
    "1e-400",                  # a float's 0.0
    "1e400", "-1e400",         # a float's infinity
    "9007199254740993.0",      # 2**53 + 1 rounds to 2**53
])
def test_any_other_decimal_is_read_as_the_text_written(text: str) -> None:
    assert read_decimal(text) == text
    assert to_number(read_decimal(text)) == Fraction(text)  # the graders read it exactly


def test_the_api_parser_and_loads_read_numbers_the_same_way() -> None:
    body = '{"a": [0.1, 0.12345678901234567891, 1e-400, 7, 1e400]}'
    expected = {"a": [0.1, "0.12345678901234567891", "1e-400", 7, "1e400"]}
    assert BoundedJSONParser().parse(io.BytesIO(body.encode())) == expected
    assert loads(body) == expected


@pytest.mark.parametrize("body", ['{"a": NaN}', '{"a": Infinity}', '{"a": -Infinity}', "{"])
def test_non_json_numbers_and_broken_bodies_are_parse_errors(body: str) -> None:
    with pytest.raises(ParseError):
        BoundedJSONParser().parse(io.BytesIO(body.encode()))
    with pytest.raises(ValueError):
        loads(body)



def test_a_body_in_a_codec_that_is_no_text_encoding_is_refused() -> None:
    with pytest.raises(ParseError, match="Unsupported charset"):
        BoundedJSONParser().parse(io.BytesIO(b"BZh"), parser_context={"encoding": "bz2_codec"})
