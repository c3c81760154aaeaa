"""Declare, validate and describe an exercise kind's parameters.

A kind lists its parameters as :class:`Param` objects. :func:`clean_params` turns an
instructor's (possibly partial) params into the stored form, every default filled in, or
raises :class:`ParamError` naming the field and the rule it breaks. :func:`json_schema`
publishes the same declarations as a JSON Schema for the kinds listing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any

MAX_DECIMALS = 9
MAX_DENOMINATOR = 10**MAX_DECIMALS
"""Finest exact number a decimal parameter takes: prompts print it, the engine computes with it."""
DECIMAL_TEXT = re.compile(r"-?\d{1,12}(\.\d{1,9})?(/\d{1,12})?")
"""A decimal parameter given as text: ``"1.5"``, ``"-2"``, ``"7/2"`` (no exponents)."""


class ParamError(ValueError):
    """Signal that a parameter breaks a rule; ``field`` names it (dotted for nested ones)."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(f"{field_name}: {message}")
        self.field = field_name
        self.message = message


@dataclass(frozen=True)
class Param:
    """Declare one parameter: its name, default, a help text and how to validate it.

    ``help`` is English, marked with ``gettext_noop`` where the param is declared so the
    catalogues carry it: the API's JSON Schema serves it as written, the builder translates it.
    """

    name: str
    default: Any
    help: str
    convention: bool = False  # changes the answer key only, never the generated problem

    def clean(self, value: Any) -> Any:
        """Return ``value`` validated and normalised; raise :class:`ParamError` if invalid."""
        raise NotImplementedError

    def schema(self) -> dict[str, Any]:
        """Return the JSON Schema of this parameter."""
        raise NotImplementedError


@dataclass(frozen=True)
class IntParam(Param):
    """Accept an integer between ``minimum`` and ``maximum`` (both inclusive)."""

    minimum: int = 0
    maximum: int = 1_000_000

    def clean(self, value: Any) -> int:
        """Return ``value`` as an int within bounds."""
        if isinstance(value, bool) or not isinstance(value, int):
            raise ParamError(self.name, f"must be an integer, got {value!r}")
        if not self.minimum <= value <= self.maximum:
            raise ParamError(
                self.name, f"must be between {self.minimum} and {self.maximum}, got {value}"
            )
        return value

    def schema(self) -> dict[str, Any]:
        """Return an integer schema with bounds."""
        return {"type": "integer", "minimum": self.minimum, "maximum": self.maximum}


@dataclass(frozen=True)
class BoolParam(Param):
    """Accept a JSON boolean."""

    def clean(self, value: Any) -> bool:
        """Return ``value`` if it is a boolean."""
        if not isinstance(value, bool):
            raise ParamError(self.name, f"must be true or false, got {value!r}")
        return value

    def schema(self) -> dict[str, Any]:
        """Return a boolean schema."""
        return {"type": "boolean"}


@dataclass(frozen=True)
class ChoiceParam(Param):
    """Accept one string out of ``choices``."""

    choices: tuple[str, ...] = ()

    def clean(self, value: Any) -> str:
        """Return ``value`` if it is one of the choices."""
        if value not in self.choices:
            raise ParamError(
                self.name, f"must be one of {', '.join(self.choices)}; got {value!r}"
            )
        return str(value)

    def schema(self) -> dict[str, Any]:
        """Return an enum schema."""
        return {"type": "string", "enum": list(self.choices)}


@dataclass(frozen=True)
class DecimalParam(Param):
    """Accept an exact number, given as a JSON number or a string like "1.5" or "7/2".

    Stored as an exact string in the form it was given, so prompts print it as the
    instructor wrote it: a decimal stays a decimal (``1.41`` → ``"1.41"``, ``"2.50"`` →
    ``"2.5"``), a fraction a fraction in lowest terms (``"6/4"`` → ``"3/2"``).
    """

    minimum: Fraction = Fraction(0)
    maximum: Fraction = Fraction(1000)

    def clean(self, value: Any) -> str:
        """Return ``value`` as an exact fraction string within bounds."""
        if isinstance(value, bool) or not isinstance(value, int | float | str) or (
            isinstance(value, str) and not DECIMAL_TEXT.fullmatch(value)
        ):
            raise ParamError(self.name, f"must be a number like 1.5 or \"3/2\", got {value!r}")
        try:
            number = Fraction(str(value))
        except (ValueError, ZeroDivisionError, OverflowError):
            raise ParamError(
                self.name, f"must be a number like 1.5 or \"3/2\", got {value!r}"
            ) from None
        if not self.minimum <= number <= self.maximum:
            raise ParamError(
                self.name, f"must be between {self.minimum} and {self.maximum}, got {number}"
            )
        if number.denominator > MAX_DENOMINATOR:
            raise ParamError(
                self.name, f"must be exact to at most {MAX_DECIMALS} decimal places (a "
                f"denominator of at most {MAX_DENOMINATOR}), got {value!r}"
            )
        if "/" in str(value) or number.denominator == 1:
            return str(number)
        # The number is exact, so its decimal form ends: print it with no exponent.
        return format(Decimal(str(value).strip()).normalize(), "f")

    def schema(self) -> dict[str, Any]:
        """Return a number-or-string schema."""
        return {
            "oneOf": [{"type": "number"},
                      {"type": "string", "pattern": f"^{DECIMAL_TEXT.pattern}$"}],
            "minimum": float(self.minimum),
            "maximum": float(self.maximum),
        }


@dataclass(frozen=True)
class ChoiceListParam(Param):
    """Accept a non-empty list of distinct strings, each one of ``choices``."""

    choices: tuple[str, ...] = ()

    def clean(self, value: Any) -> list[str]:
        """Return ``value`` as a list of distinct choices, in the choices' order."""
        if not isinstance(value, list) or not value:
            raise ParamError(self.name, f"must be a non-empty list, got {value!r}")
        unknown = [v for v in value if v not in self.choices]
        if unknown:
            raise ParamError(
                self.name, f"unknown {unknown[0]!r}; choose from {', '.join(self.choices)}"
            )
        return [choice for choice in self.choices if choice in value]

    def schema(self) -> dict[str, Any]:
        """Return an array-of-enum schema."""
        return {
            "type": "array",
            "items": {"type": "string", "enum": list(self.choices)},
            "minItems": 1,
            "uniqueItems": True,
        }


@dataclass(frozen=True)
class JsonParam(Param):
    """Accept any JSON value ``validator`` accepts (it returns the normalised value)."""

    validator: Callable[[str, Any], Any] = field(default=lambda name, value: value)
    json_schema: Mapping[str, Any] = field(default_factory=dict)

    def clean(self, value: Any) -> Any:
        """Return what the validator makes of ``value``."""
        return self.validator(self.name, value)

    def schema(self) -> dict[str, Any]:
        """Return the declared schema."""
        return dict(self.json_schema)


def clean_params(declared: Sequence[Param], raw: Any) -> dict[str, Any]:
    """Return ``raw`` validated against ``declared`` with every default made explicit.

    Raise :class:`ParamError` for a non-object, an unknown name or an invalid value.
    """
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ParamError("params", f"must be a JSON object, got {type(raw).__name__}")
    known = {param.name for param in declared}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise ParamError(
            unknown[0], f"unknown parameter; known ones are {', '.join(sorted(known))}"
        )
    return {
        param.name: param.clean(raw[param.name] if param.name in raw else param.default)
        for param in declared
    }


def json_schema(declared: Sequence[Param]) -> dict[str, Any]:
    """Return a JSON Schema object describing ``declared`` with their defaults and help."""
    properties = {}
    for param in declared:
        properties[param.name] = {
            **param.schema(),
            "default": param.default,
            "description": str(param.help) + (" (convention)" if param.convention else ""),
        }
    return {"type": "object", "properties": properties, "additionalProperties": False}
