"""Plain-SQL reads, INSERTs and UPDATEs for the statements an exam runs hundreds of times
a second.

Why: Django builds an ORM statement in 0.5-2 ms of the calling process's CPU, several times
what the database spends running it, and every answer runs about twenty (bench/README.md,
"Grading load"). Here only the statement's shape is written by hand: table and column names
come from the model's metadata (quoted by the connection); every value written goes through
its field's own ``get_db_prep_save`` (JSON, dates, decimals) and every value read through the
converters the ORM's compiler would apply, into instances made by ``Model.from_db``, so what
is written and read is what the ORM would write and read. Each shape's SQL is built once per
process.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any

from django.db import connection
from django.db.models import Field, ForeignKey, Model

Converter = Callable[[Any, Any, Any], Any]


@dataclass(frozen=True)
class Increment:
    """Add ``by`` to the column's current value (``F(column) + by`` in the ORM)."""

    by: int = 1


def update_rows(model: type[Model], where: Mapping[str, Any], values: Mapping[str, Any]) -> int:
    """Set ``values`` (field name → value or :class:`Increment`) on the rows of ``model``
    matching ``where`` (field name → value, or a tuple of values: any of them); return how
    many rows changed."""
    sql, params = update_statement(model, where, values)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return int(cursor.rowcount)


def update_statement(model: type[Model], where: Mapping[str, Any],
                     values: Mapping[str, Any]) -> tuple[str, list[Any]]:
    """Return the UPDATE :func:`update_rows` runs and its parameters, for a statement that
    wraps it (PostgreSQL's ``WITH changed AS (UPDATE … RETURNING …) SELECT …``)."""
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
    return sql, params


def column_field(model: type[Model], name: str) -> Field[Any, Any]:
    """Return the field of ``model`` stored in a column of its own table, named ``name``."""
    field = model._meta.get_field(name)
    if not isinstance(field, Field) or not field.column:
        raise ValueError(f"{model.__name__}.{name} is not a column of its table")
    return field


def quoted_table(model: type[Model]) -> str:
    """Return ``model``'s table name, quoted for the connection's SQL."""
    return str(connection.ops.quote_name(model._meta.db_table))


def quoted_column(model: type[Model], name: str) -> str:
    """Return the column of ``model``'s field ``name`` (in its own table), quoted."""
    return str(connection.ops.quote_name(str(column_field(model, name).column)))


@cache
def _update_sql(model: type[Model], names: tuple[str, ...], increments: tuple[str, ...],
                where: tuple[tuple[str, int | None], ...]) -> str:
    """Return the UPDATE of one shape: the columns set, which are increments, and each
    condition's number of values (None: one, compared with =)."""
    def column(name: str) -> str:
        return quoted_column(model, name)

    assignments = ", ".join(
        f"{column(name)} = {column(name)} + %s" if name in increments else f"{column(name)} = %s"
        for name in names
    )
    conditions = " AND ".join(
        f"{column(name)} = %s" if count is None
        else f"{column(name)} IN ({', '.join(['%s'] * count)})"
        for name, count in where
    )
    return f"UPDATE {quoted_table(model)} SET {assignments} WHERE {conditions}"


def insert_row(instance: Model) -> None:
    """Store the new ``instance`` as the ORM's ``save()`` would (field defaults, ``auto_now``
    and ``auto_now_add`` applied, the primary key set from the database), sending no model
    signals: for models whose saving nothing listens to."""
    model = type(instance)
    fields = _inserted_fields(model)
    params = [field.get_db_prep_save(field.pre_save(instance, True), connection)
              for field in fields]
    with connection.cursor() as cursor:
        cursor.execute(_insert_sql(model), params)
        if connection.features.can_return_columns_from_insert:
            primary_key = cursor.fetchone()[0]
        else:
            primary_key = connection.ops.last_insert_id(cursor, model._meta.db_table,
                                                        str(model._meta.pk.column))
    instance.pk = primary_key
    instance._state.adding = False
    instance._state.db = connection.alias


@cache
def _inserted_fields(model: type[Model]) -> tuple[Field[Any, Any], ...]:
    """Return the concrete fields an INSERT of ``model`` writes: all but an automatic key."""
    return tuple(field for field in model._meta.concrete_fields
                 if not (field.primary_key and field.db_returning))


@cache
def _insert_sql(model: type[Model]) -> str:
    """Return the INSERT of one ``model`` row, returning its primary key where it can."""
    columns = ", ".join(quoted_column(model, field.name) for field in _inserted_fields(model))
    values = ", ".join(["%s"] * len(_inserted_fields(model)))
    returning = (f" RETURNING {quoted_column(model, model._meta.pk.name)}"
                 if connection.features.can_return_columns_from_insert else "")
    return f"INSERT INTO {quoted_table(model)} ({columns}) VALUES ({values}){returning}"


def lock_row(model: type[Model], primary_key: Any) -> bool:
    """Lock the row of ``model`` with ``primary_key`` until the transaction ends (``SELECT …
    FOR UPDATE``; a database without row locks locks nothing); return whether it exists."""
    with connection.cursor() as cursor:
        cursor.execute(_lock_sql(model), [primary_key])
        return cursor.fetchone() is not None


@cache
def _lock_sql(model: type[Model]) -> str:
    """Return the SELECT that locks one row of ``model`` by its primary key."""
    key = quoted_column(model, model._meta.pk.name)
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    return f"SELECT {key} FROM {quoted_table(model)} WHERE {key} = %s{lock}"


def read_fields(model: type[Model], primary_key: Any, names: Sequence[str]) -> Any:
    """Return the row of ``model`` with ``primary_key`` with only the fields ``names`` (and
    the key) loaded, as ``.only(*names).first()`` would; None if there is no such row."""
    read, sql = _fields_read(model, tuple(names))
    return read.fetch_one(sql, [primary_key])


@cache
def _fields_read(model: type[Model], names: tuple[str, ...]) -> tuple[JoinedRead, str]:
    """Return the read of fields ``names`` (and the primary key) of one row of ``model``."""
    kept = {*names, model._meta.pk.name}
    read = JoinedRead(model, defer=[field.name for field in model._meta.concrete_fields
                                    if field.name not in kept])
    return read, read.select(f"{read.column(model._meta.pk.name)} = %s")


@dataclass(frozen=True)
class _JoinedTable:
    """One table of a :class:`JoinedRead`: the model, its alias and the columns read."""

    path: str
    """The select_related path from the root model ("" for the root itself)."""
    model: type[Model]
    alias: str
    fields: tuple[Field[Any, Any], ...]
    conversions: tuple[tuple[int, Any, tuple[Converter, ...]], ...]
    """For each field the ORM's compiler converts: its index, its column expression (what the
    converters are given) and the converters, applied to the value the database returns."""
    link: ForeignKey[Any, Any] | None
    """The foreign key of the parent table's model that points at this row."""

    @cached_property
    def attnames(self) -> tuple[str, ...]:
        """Return the attribute names of the fields read, for ``Model.from_db``."""
        return tuple(field.attname for field in self.fields)

    @cached_property
    def primary_key_index(self) -> int:
        """Return where the primary key is among the fields read (NULL: no joined row)."""
        return self.fields.index(self.model._meta.pk)

    @cached_property
    def parent_path(self) -> str:
        """Return the path of the table this one is joined to."""
        return self.path.rpartition("__")[0]

    def instance(self, columns: Sequence[Any]) -> Model | None:
        """Return the instance read from this table's ``columns`` (None: no joined row)."""
        values = list(columns)
        for index, column, converters in self.conversions:
            value = values[index]
            for convert in converters:
                value = convert(value, column, connection)
            values[index] = value
        if values[self.primary_key_index] is None:
            return None
        return self.model.from_db(connection.alias, self.attnames, values)


def _joined_table(path: str, model: type[Model], alias: str,
                  fields: tuple[Field[Any, Any], ...],
                  link: ForeignKey[Any, Any] | None) -> _JoinedTable:
    """Return the joined table of ``fields`` of ``model`` under ``alias``, with the ORM's
    converters of those fields."""
    conversions = []
    for index, field in enumerate(fields):
        column = field.get_col(alias)
        converters = tuple(connection.ops.get_db_converters(column)
                           + column.get_db_converters(connection))
        if converters:
            conversions.append((index, column, converters))
    return _JoinedTable(path, model, alias, fields, tuple(conversions), link)


@dataclass(frozen=True)
class MatchedRow:
    """A row of ``model`` read beside a :class:`JoinedRead`'s rows by a LEFT JOIN that
    matches at most one (a unique constraint's columns), cached on the instance at ``path``
    as attribute ``attribute``: a list of that row, or empty, as ``Prefetch(to_attr=...)``
    leaves a filtered reverse relation.

    ``on`` maps each field of ``model`` to the joined field it equals (a path, as for
    :meth:`JoinedRead.column`) or to None for a ``%s`` parameter; those parameters come
    first in the statement's, before the WHERE clause's.
    """

    path: str
    attribute: str
    model: type[Model]
    on: Mapping[str, str | None]


class JoinedRead:
    """Read rows of a model with the rows its foreign keys point to, as ``select_related``
    would, in one SELECT built once.

    ``related`` lists the paths to join (``"variant"``, ``"variant__problem_set"``: each
    path's parent must be listed too); ``defer`` lists ``path__field`` names not to read
    (loaded on access, as the ORM defers); ``matched`` adds rows that point at a joined row
    (see :class:`MatchedRow`). :meth:`column` names a column of any joined table for the
    WHERE clause; :meth:`fetch` runs the statement and returns the instances, their related
    rows cached on them as ``select_related`` caches them.
    """

    def __init__(self, model: type[Model], related: Sequence[str] = (),
                 defer: Sequence[str] = (), matched: Sequence[MatchedRow] = ()) -> None:
        self.model = model
        self.tables: list[_JoinedTable] = []
        self.matched = tuple(matched)
        self.matched_tables: list[_JoinedTable] = []
        for number, path in enumerate(("", *related)):
            parent_path, _, name = path.rpartition("__")
            parent = self.table(parent_path) if path else None
            link: ForeignKey[Any, Any] | None = None
            table_model = model
            if parent is not None:
                field = parent.model._meta.get_field(name)
                if not isinstance(field, ForeignKey):
                    raise ValueError(f"{parent.model.__name__}.{name} is not a foreign key")
                link = field
                table_model = field.related_model
            fields = tuple(field for field in table_model._meta.concrete_fields
                           if _joined(path, field.name) not in defer)
            self.tables.append(_joined_table(path, table_model, f"t{number}", fields, link))
        for number, row in enumerate(self.matched):
            self.table(row.path)  # raises for a path not joined
            self.matched_tables.append(_joined_table(
                row.path, row.model, f"m{number}", tuple(row.model._meta.concrete_fields),
                None))

    def table(self, path: str) -> _JoinedTable:
        """Return the joined table at ``path`` ("" for the root)."""
        for table in self.tables:
            if table.path == path:
                return table
        raise ValueError(f"{path!r} is not joined: list it (and its parents) in related")

    def column(self, path: str) -> str:
        """Return the quoted column of field ``path`` (``"variant__student"``) for a WHERE."""
        table_path, _, name = path.rpartition("__")
        table = self.table(table_path)
        field = column_field(table.model, name)
        quote = connection.ops.quote_name
        return f"{quote(table.alias)}.{quote(str(field.column))}"

    def select(self, where: str, order_by: Sequence[str] = (), root: str = "") -> str:
        """Return the SELECT of the joined rows matching ``where`` (SQL, ``%s`` parameters),
        ordered by the fields ``order_by`` (paths as for :meth:`column`); ``root`` names a
        relation with the root table's columns to read instead of the table (a ``WITH``
        query's, e.g. an UPDATE's ``RETURNING *``)."""
        quote = connection.ops.quote_name
        columns = ", ".join(f"{quote(table.alias)}.{quote(str(field.column))}"
                            for table in self.tables for field in table.fields)
        sources = [f"{quote(root or self.model._meta.db_table)} {quote(self.tables[0].alias)}"]
        for table in self.tables[1:]:
            assert table.link is not None  # only the root has no link
            parent = self.table(table.parent_path)
            join = "LEFT OUTER JOIN" if table.link.null else "INNER JOIN"
            target = table.link.target_field.column
            sources.append(
                f"{join} {quote(table.model._meta.db_table)} {quote(table.alias)} ON "
                f"{quote(parent.alias)}.{quote(str(table.link.column))} = "
                f"{quote(table.alias)}.{quote(str(target))}"
            )
        for row, table in zip(self.matched, self.matched_tables, strict=True):
            columns += "".join(f", {quote(table.alias)}.{quote(str(field.column))}"
                               for field in table.fields)
            matches = " AND ".join(
                f"{quote(table.alias)}.{quote(str(column_field(row.model, name).column))} = "
                f"{'%s' if equal is None else self.column(equal)}"
                for name, equal in row.on.items())
            sources.append(f"LEFT OUTER JOIN {quote(row.model._meta.db_table)} "
                           f"{quote(table.alias)} ON {matches}")
        order = (f" ORDER BY {', '.join(self.column(path) for path in order_by)}"
                 if order_by else "")
        return f"SELECT {columns} FROM {' '.join(sources)} WHERE {where}{order}"

    def fetch(self, sql: str, params: Sequence[Any]) -> list[Any]:
        """Run ``sql`` (made by :meth:`select`) and return the root instances."""
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        return [self._instance(row) for row in rows]

    def fetch_one(self, sql: str, params: Sequence[Any]) -> Any:
        """Run ``sql`` and return its first root instance, or None when no row matched."""
        found = self.fetch(sql, params)
        return found[0] if found else None

    def _instance(self, row: Sequence[Any]) -> Model:
        """Return the root instance of one row, each joined row cached on its parent."""
        made: dict[str, Model | None] = {}
        start = 0
        for table in self.tables:
            instance = table.instance(row[start:start + len(table.fields)])
            start += len(table.fields)
            made[table.path] = instance
            if table.link is not None:
                parent = made[table.parent_path]
                if parent is not None:
                    table.link.set_cached_value(parent, instance)
        for matched, table in zip(self.matched, self.matched_tables, strict=True):
            instance = table.instance(row[start:start + len(table.fields)])
            start += len(table.fields)
            holder = made[matched.path]
            if holder is not None:
                setattr(holder, matched.attribute, [] if instance is None else [instance])
        root = made[""]
        assert root is not None  # the root's primary key is never NULL
        return root


def _joined(path: str, name: str) -> str:
    """Return ``name`` under ``path`` as a ``defer`` entry names it."""
    return f"{path}__{name}" if path else name


def cache_prefetched(instance: Model, related_name: str, rows: list[Any]) -> None:
    """Cache ``rows`` as ``instance``'s reverse foreign key ``related_name`` (what
    ``instance.<related_name>.all()`` returns without a query), as ``prefetch_related`` caches
    it, each row's foreign key to ``instance`` cached too."""
    manager = getattr(instance, related_name)
    for row in rows:
        manager.field.set_cached_value(row, instance)
    rows_queryset = manager.get_queryset()
    rows_queryset._result_cache = rows
    rows_queryset._prefetch_done = True
    # The cache prefetch_related keeps on the instance (Django names it so, and so reads it).
    instance.__dict__.setdefault("_prefetched_objects_cache", {})[
        manager.field.remote_field.cache_name] = rows_queryset
