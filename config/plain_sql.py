"""Plain-SQL UPDATEs for the statements an exam runs hundreds of times a second.

Why: Django builds an ORM ``UPDATE`` in 0.5-1 ms of the calling process's CPU, several times
what the database spends running it, and every answer runs several (bench/README.md,
"Grading load"). Here only the statement's shape is written by hand: table and column names
come from the model's metadata (quoted by the connection), and every value goes through its
field's own ``get_db_prep_save`` (JSON, dates, decimals), so the row written is the one the
ORM would write. Each shape's SQL is built once per process.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from django.db import connection
from django.db.models import Field, Model


@dataclass(frozen=True)
class Increment:
    """Add ``by`` to the column's current value (``F(column) + by`` in the ORM)."""

    by: int = 1


def update_rows(model: type[Model], where: Mapping[str, Any], values: Mapping[str, Any]) -> int:
    """Set ``values`` (field name → value or :class:`Increment`) on the rows of ``model``
    matching ``where`` (field name → value, or a tuple of values: any of them); return how
    many rows changed."""
    increments = tuple(name for name, value in values.items() if isinstance(value, Increment))
    sql = _update_sql(model, tuple(values), increments,
                      tuple((name, len(value) if isinstance(value, tuple) else None)
                            for name, value in where.items()))
    params = [value.by if isinstance(value, Increment)
              else column_field(model, name).get_db_prep_save(value, connection)
              for name, value in values.items()]
    for name, value in where.items():
        field = column_field(model, name)
        params += [field.get_db_prep_save(one, connection)
                   for one in (value if isinstance(value, tuple) else (value,))]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return int(cursor.rowcount)


def column_field(model: type[Model], name: str) -> Field[Any, Any]:
    """Return the field of ``model`` stored in a column of its own table, named ``name``."""
    field = model._meta.get_field(name)
    if not isinstance(field, Field) or not field.column:
        raise ValueError(f"{model.__name__}.{name} is not a column of its table")
    return field


@cache
def _update_sql(model: type[Model], names: tuple[str, ...], increments: tuple[str, ...],
                where: tuple[tuple[str, int | None], ...]) -> str:
    """Return the UPDATE of one shape: the columns set, which are increments, and each
    condition's number of values (None: one, compared with =)."""
    quote = connection.ops.quote_name

    def column(name: str) -> str:
        return quote(str(column_field(model, name).column))

    assignments = ", ".join(
        f"{column(name)} = {column(name)} + %s" if name in increments else f"{column(name)} = %s"
        for name in names
    )
    conditions = " AND ".join(
        f"{column(name)} = %s" if count is None
        else f"{column(name)} IN ({', '.join(['%s'] * count)})"
        for name, count in where
    )
    return f"UPDATE {quote(model._meta.db_table)} SET {assignments} WHERE {conditions}"
