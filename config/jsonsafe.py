"""Keep JSON that PostgreSQL, the renderer and recursive code can all handle.

Two sides of one rule:

* What clients send is checked (:class:`BoundedJSONParser`, :func:`loads`): nested at most
  :data:`MAX_DEPTH` levels, and no string (key or value) with a NUL character or an unpaired
  surrogate, which PostgreSQL's ``jsonb`` refuses (``unsupported Unicode escape sequence``)
  and UTF-8 cannot encode. A body breaking either is a 400 naming where and the rule.
* A JSON number is read as a float only when the float is the number written; any other
  (``0.12345678901234567891``, ``1e-400``, ``1e400``) is read as the text written, the
  number string every reader of a ``gametree/1`` number takes exactly
  (:func:`read_decimal`), so an answer, a tree or a parameter is never rounded, zeroed or
  made infinite on its way in.
* What Cutoff stores from untrusted sources, such as reports of student code, is made
  storable (:func:`storable`): such characters replaced, long strings cut, deep nesting
  summarised, so a result can always be saved and shown.
"""

from __future__ import annotations

import codecs
import json
import math
import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from rest_framework import parsers, renderers
from rest_framework.exceptions import ParseError
from rest_framework.utils.json import strict_constant

MAX_DEPTH = 500
"""Deepest nesting accepted in a request: a ``gametree/1`` tree at the engine's 200 levels
(two JSON levels per tree level) fits, with room for the envelope around it."""
UNSTORABLE_CHARACTERS = re.compile("[\x00\ud800-\udfff]")
REPLACEMENT = "\ufffd"
STORED_TEXT_LIMIT = 4000
"""Characters kept of one string in a stored report (the rest is cut, with an ellipsis)."""
STORED_DEPTH_LIMIT = 32
"""Nesting kept in a stored report; anything deeper is replaced by a short summary."""
PATH_LIMIT = 200
"""Characters of a JSON path quoted in an error."""


def depth_rule(max_depth: int) -> str:
    """Return the rule JSON nested too deep breaks."""
    return f"JSON may be nested at most {max_depth} levels deep"


DEPTH_RULE = depth_rule(MAX_DEPTH)
TEXT_RULE = "text may not contain NUL characters or unpaired surrogates (U+D800–U+DFFF)"


class UnsafeJson(ValueError):
    """JSON input breaking a rule; ``path`` says where (``answer.B``, ``items[0]``)."""

    def __init__(self, path: str, rule: str) -> None:
        path = clean_text(path, PATH_LIMIT) or "body"
        super().__init__(f"{path}: {rule}")
        self.path = path
        self.rule = rule


def _child_path(path: str, key: object) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else str(key)


def check(value: Any, max_depth: int = MAX_DEPTH) -> None:
    """Raise :class:`UnsafeJson` if ``value`` nests deeper than ``max_depth`` or holds an
    unstorable string."""
    pending: list[tuple[Any, str, int]] = [(value, "", 0)]
    while pending:
        current, path, depth = pending.pop()
        if isinstance(current, str):
            if UNSTORABLE_CHARACTERS.search(current):
                raise UnsafeJson(path, TEXT_RULE)
        elif isinstance(current, dict | list):
            if depth >= max_depth:
                # Named for the whole body: the path would be as deep.
                raise UnsafeJson("", depth_rule(max_depth))
            items = current.items() if isinstance(current, dict) else enumerate(current)
            for key, child in items:
                if isinstance(key, str) and UNSTORABLE_CHARACTERS.search(key):
                    raise UnsafeJson(path, "keys: " + TEXT_RULE)
                pending.append((child, _child_path(path, key), depth + 1))


def read_decimal(text: str) -> float | str:
    """Return the JSON number ``text`` as a float if that float is exactly the decimal written,
    else as ``text`` itself.

    ``0.1`` reads as the float whose shortest form is ``0.1``; ``0.12345678901234567891``
    (more digits than a float holds), ``1e-400`` (a float's 0.0) and ``1e400`` (a float's
    infinity) stay the strings written.
    """
    number = float(text)
    if math.isfinite(number) and Decimal(repr(number)) == Decimal(text):
        return number
    return text


def loads(text: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """Return the JSON value of ``text`` once :func:`check`-ed; raise ValueError if invalid.

    Numbers a float cannot hold exactly are read as their text (:func:`read_decimal`).
    """
    try:
        value = json.loads(text, parse_float=read_decimal, parse_constant=strict_constant)
    except RecursionError:
        raise UnsafeJson("", depth_rule(max_depth)) from None
    check(value, max_depth)
    return value


class BoundedJSONParser(parsers.JSONParser):
    """DRF's JSON parser, answering 400 to bodies :func:`check` refuses (not a 500), and
    reading numbers a float cannot hold exactly as their text (:func:`read_decimal`)."""

    def parse(self, stream: Any, media_type: str | None = None,
              parser_context: Mapping[str, Any] | None = None) -> Any:
        """Return the parsed body, or raise a 400 naming where it breaks which rule."""
        from config.api import ApiError  # config.api imports DRF, whose settings import us

        try:
            # DRF's check that the request's charset is a text codec (not bz2_codec, say).
            encoding = parsers.get_encoding(parser_context or {})  # type: ignore[attr-defined]
            decoded = codecs.getreader(encoding)(stream)
            value = json.load(decoded, parse_float=read_decimal,
                              parse_constant=strict_constant)
        except RecursionError:
            value, error = None, UnsafeJson("", DEPTH_RULE)
        except ValueError as invalid:
            raise ParseError(f"JSON parse error - {invalid}") from None
        else:
            try:
                check(value)
                return value
            except UnsafeJson as unsafe:
                error = unsafe
        raise ApiError(f"{error.path}: {error.rule}", code="parse_error",
                       details={error.path: [error.rule]})


def clean_text(text: str, limit: int | None = STORED_TEXT_LIMIT) -> str:
    """Return ``text`` with unstorable characters replaced and cut to ``limit`` characters."""
    text = UNSTORABLE_CHARACTERS.sub(REPLACEMENT, text)
    if limit is not None and len(text) > limit:
        return text[: limit - 1] + "…"
    return text


def storable(value: Any, *, text_limit: int | None = STORED_TEXT_LIMIT,
             depth_limit: int = STORED_DEPTH_LIMIT) -> Any:
    """Return a copy of a JSON value that PostgreSQL stores and any client can read.

    Strings (keys too) lose NUL characters and unpaired surrogates and are cut to
    ``text_limit`` characters; containers nested deeper than ``depth_limit`` become a
    string saying so. Numbers, booleans and null are kept.
    """
    if isinstance(value, str):
        return clean_text(value, text_limit)
    if isinstance(value, dict | list | tuple):
        if depth_limit <= 0:
            return f"({type(value).__name__} nested too deep to keep)"
        if isinstance(value, dict):
            return {clean_text(str(key), text_limit): storable(
                item, text_limit=text_limit, depth_limit=depth_limit - 1)
                for key, item in value.items()}
        return [storable(item, text_limit=text_limit, depth_limit=depth_limit - 1)
                for item in value]
    return value


class StorableJSONRenderer(renderers.JSONRenderer):
    """DRF's JSON renderer that, rather than fail on text UTF-8 cannot encode (an unpaired
    surrogate echoed from old data), answers with such characters replaced."""

    def render(self, data: Any, accepted_media_type: str | None = None,
               renderer_context: Mapping[str, Any] | None = None) -> bytes:
        """Return ``data`` as UTF-8 JSON."""
        try:
            return super().render(data, accepted_media_type, renderer_context)
        except UnicodeEncodeError:
            return super().render(storable(data, text_limit=None, depth_limit=MAX_DEPTH),
                                  accepted_media_type, renderer_context)
