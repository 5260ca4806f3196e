"""Fixed SQL for the command path, prepared once per connection (issue 37).

Every command runs the same few statements: the table row locked, its earlier answer looked
up, the event, the ledger rows, the table row and the audit row written. Through the ORM each
one is compiled again for every command (Django builds a query object, compiles it and
adapts its values: more than half of the command service's Python calls). Here each is
built once per process from the model's own metadata, as text with placeholders, and sent on
a server-binding psycopg cursor with ``prepare=True``: PostgreSQL parses and plans it once
per connection, and each command sends only the values.

Why not the other way the issue names (Django's ``server_side_binding`` with a prepare
threshold): it changes how every ORM query of the app is bound (the pages, the exports, the
admin), and an ORM query is still compiled in Python each time, which is where the cost
is. Here only these statements change, and the ORM stays everywhere else.

* The rows are the ones Django writes: each value is prepared by the field itself
  (``pre_save`` then ``get_db_prep_save``, what Django's insert compiler does), and a
  command's rows of one kind go in one INSERT, as ``bulk_create`` sends them.
* Statements go through a Django cursor wrapper: ``connection.execute_wrapper`` hooks, the
  debug query log and Django's error translation see them as any other statement.
* Python integers are sent as ``int8``: psycopg would otherwise pick the smallest type per
  value, and a prepared statement is kept per parameter-type combination.
* ``settings.DATABASES["default"]["OPTIONS"]["prepare_threshold"]`` must not be None
  (config/settings/base.py sets it; ``CARDROOM_DB_PREPARE=0`` turns preparing off, for a
  transaction-pooling proxy such as PgBouncer before 1.21). Django's own cursors bind on the
  client side and never prepare whatever it says.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from functools import lru_cache

import psycopg
from django.db import connection
from django.db.backends.utils import CursorDebugWrapper
from django.db import models
from django.db.models import Model
from psycopg.types.numeric import Int8Dumper


@dataclass(frozen=True)
class SubSelect:
    """A value the statement reads itself (one row, one column): `sql` with its `params`.
    The same for every row of an insert."""

    sql: str
    params: tuple


class _PreparingCursor(psycopg.Cursor):
    """Server-side binding, each statement prepared on first use on its connection."""

    def execute(self, query, params=None, *, prepare=True, binary=None):
        return super().execute(query, params, prepare=prepare, binary=binary)


class _LoggedCursor(CursorDebugWrapper):
    """Django's debug cursor wrapper (DEBUG, or a test's CaptureQueriesContext), logging
    each statement with its values as Django's own client-binding cursors do: Django reads
    a server-binding cursor's last query as None."""

    def execute(self, sql, params=None):
        with self.debug_sql(self.db.ops.compose_sql(sql, params)):
            return self._execute_with_wrappers(sql, params, many=False, executor=self._execute)


def cursor():
    """A Django cursor wrapper over this connection's preparing cursor, made once per
    database connection (a reconnect makes a new one). Not to be closed (no `with`)."""
    connection.ensure_connection()
    raw_connection = connection.connection
    held = getattr(connection, "_cardroom_fixed_cursor", None)
    if held is None or held[0] is not raw_connection or held[1].closed:
        raw = _PreparingCursor(raw_connection)
        raw.adapters.register_dumper(int, Int8Dumper)
        held = (raw_connection, raw)
        connection._cardroom_fixed_cursor = held
    return _LoggedCursor(held[1], connection) if connection.queries_logged else connection.make_cursor(held[1])


def _qn(name: str) -> str:
    return connection.ops.quote_name(name)


def _field(model: type[Model], name: str):
    return model._meta.get_field(name)


@lru_cache(maxsize=None)
def _insert_fields(model: type[Model]) -> tuple:
    fields = tuple(f for f in model._meta.local_concrete_fields if not f.primary_key and not f.generated)
    assert not any(hasattr(f, "get_placeholder") for f in fields), f"{model.__name__}: a field with its own placeholder"
    return fields


# Field classes whose `get_db_prep_save` returns a value of this exact type unchanged on
# PostgreSQL (to_python and the backend's adapt_*_value pass it through).
_PASSED_THROUGH = {
    models.CharField: str, models.TextField: str, models.BooleanField: bool, models.DateField: date,
    models.DateTimeField: datetime,
}


@lru_cache(maxsize=None)
def _preparer(field):
    """`field.get_db_prep_save(value, connection)`, short-cut for the common values: a
    string, flag, date or aware time passed through, an integer wrapped as the backend
    wraps it (psycopg's Int2/Int4/Int8, found by asking the field once). Anything else
    (JSON, None into a field that prepares it, a naive time) takes the field's own path."""
    def full(value):
        return field.get_db_prep_save(value, connection)

    if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
        return full
    passed = _PASSED_THROUGH.get(type(field))
    if passed is datetime:
        return lambda value: value if type(value) is datetime and value.tzinfo is not None else full(value)
    if passed is not None:
        return lambda value: value if type(value) is passed else full(value)
    if isinstance(field, (models.IntegerField, models.ForeignKey)) and isinstance(full(1), int):
        wrap = type(full(1))
        return lambda value: wrap(value) if type(value) is int else full(value)
    return full


@lru_cache(maxsize=None)
def _insert_sql(model: type[Model], sub_selects: tuple[str | None, ...], rows: int, returning: bool) -> str:
    """INSERT of `rows` rows: a placeholder per value, or a sub-selected value's SQL
    (`sub_selects[i]`). One statement per number of rows: a command writes few rows, and
    VALUES keeps psycopg from dumping arrays element by element (UNNEST, Django's way for
    bulk inserts, costs more Python than it saves PostgreSQL at this size)."""
    fields = _insert_fields(model)
    row = "(" + ", ".join("%s" if sub is None else sub for sub in sub_selects) + ")"
    sql = (
        f"INSERT INTO {_qn(model._meta.db_table)} ({', '.join(_qn(f.column) for f in fields)}) "
        f"VALUES {', '.join([row] * rows)}"
    )
    if returning:
        sql += f" RETURNING {_qn(model._meta.pk.column)}"
    return sql


def insert(model: type[Model], objs: list, *, returning: bool = False) -> tuple[str, tuple]:
    """The statement inserting `objs` (new rows of `model`, in order) and its parameters.
    With `returning`, it returns their ids in the same order."""
    fields = _insert_fields(model)
    params, shape = [], None
    for obj in objs:
        values = [f.pre_save(obj, True) for f in fields]
        row_shape = tuple(v.sql if isinstance(v, SubSelect) else None for v in values)
        assert shape in (None, row_shape), "a sub-selected value is sub-selected in every row"
        shape = row_shape
        for field, value in zip(fields, values):
            if isinstance(value, SubSelect):
                params.extend(value.params)
            else:
                params.append(_preparer(field)(value))
    return _insert_sql(model, shape, len(objs), returning), tuple(params)


@lru_cache(maxsize=None)
def _update_sql(model: type[Model], names: tuple[str, ...], where: tuple[tuple[str, bool], ...]) -> str:
    assignments = ", ".join(f"{_qn(_field(model, n).column)} = %s" for n in names)
    conditions = " AND ".join(
        f"{_qn(_field(model, n).column)} IS NULL" if is_null else f"{_qn(_field(model, n).column)} = %s"
        for n, is_null in where
    )
    return f"UPDATE {_qn(model._meta.db_table)} SET {assignments} WHERE {conditions}"


def update(model: type[Model], where: dict, values: dict) -> tuple[str, tuple]:
    """`model.objects.filter(**where).update(**values)` as a fixed statement: `where` names
    fields equal to a value, or null where the value is None."""
    names = tuple(values)
    shape = tuple((name, value is None) for name, value in where.items())
    params = [_field(model, name).get_db_prep_save(value, connection) for name, value in values.items()]
    params += [_field(model, name).get_db_prep_value(value, connection) for name, value in where.items() if value is not None]
    return _update_sql(model, names, shape), tuple(params)


@lru_cache(maxsize=None)
def _select_sql(model: type[Model], where: tuple[str, ...], lock: str) -> str:
    columns = ", ".join(_qn(f.column) for f in model._meta.concrete_fields)
    conditions = " AND ".join(f"{_qn(_field(model, n).column)} = %s" for n in where)
    return f"SELECT {columns} FROM {_qn(model._meta.db_table)} WHERE {conditions}{lock}"


@lru_cache(maxsize=None)
def _converters(model: type[Model], alias: str) -> tuple:
    """Each column's converters, as Django's compiler gathers them for a model's rows."""
    out = []
    for i, field in enumerate(model._meta.concrete_fields):
        col = field.get_col(model._meta.db_table)
        funcs = connection.ops.get_db_converters(col) + col.get_db_converters(connection)
        if funcs:
            out.append((i, tuple(funcs), col))
    return tuple(out)


def row(model: type[Model], *, lock: bool = False, **where):
    """The one row of `model` whose fields equal `where` (as `.get(**where)`, with
    `select_for_update()` when `lock`), as a model instance; `model.DoesNotExist` if none,
    `model.MultipleObjectsReturned` if more than one."""
    sql = _select_sql(model, tuple(where), " FOR UPDATE" if lock else "")
    params = [_field(model, name).get_db_prep_value(value, connection) for name, value in where.items()]
    c = cursor()
    c.execute(sql, params)
    found = c.fetchall()
    if not found:
        raise model.DoesNotExist(f"{model.__name__} matching {where} does not exist.")
    if len(found) > 1:
        raise model.MultipleObjectsReturned(f"{len(found)} {model.__name__} rows match {where}")
    return instance(model, found[0])


def columns(model: type[Model], alias: str) -> str:
    """`model`'s columns as a select list, each prefixed with `alias` (a table alias of the
    caller's statement), in the order `instance` reads them."""
    return ", ".join(f"{alias}.{_qn(f.column)}" for f in model._meta.concrete_fields)


def instance(model: type[Model], values, start: int = 0) -> Model:
    """A model instance from a fetched row whose columns from `start` on are `columns(model)`,
    each value converted as Django's compiler converts it."""
    fields = model._meta.concrete_fields
    values = list(values[start:start + len(fields)])
    for i, funcs, col in _converters(model, connection.alias):
        for func in funcs:
            values[i] = func(values[i], col, connection)
    return model.from_db(connection.alias, [f.attname for f in fields], values)


def table(model: type[Model]) -> str:
    """`model`'s table name, quoted for a statement."""
    return _qn(model._meta.db_table)


def column(model: type[Model], name: str) -> str:
    """The quoted column of `model`'s field `name`."""
    return _qn(_field(model, name).column)
