"""Filters Spark pushes down to the ``jelly`` data source, applied to each Arrow batch.

With ``spark.sql.python.filterPushdown.enabled`` on (Spark 4.1+), Spark offers the reader the
conditions of a query's ``WHERE`` / ``filter`` that compare a column with constants.  The ones
this module can evaluate exactly as Spark does are kept by the reader and applied with Arrow's
compute kernels to each batch before Spark sees it, so that Spark makes rows only of the
statements the query keeps: Spark's conversion of a Python source's Arrow batches into its rows
costs more than the decoding itself.  The others are handed back, and Spark evaluates them.

Kept: comparisons (``=``, ``<=>``, ``<``, ``<=``, ``>``, ``>=``), ``IN``, ``IS [NOT] NULL``,
``LIKE 'x%'`` / ``'%x'`` / ``'%x%'`` and ``NOT`` of these, on a string column (``s``, ``p``,
``o``, ``g``, ``path``, or a field of a term struct such as ``o.language``) with string
constants, or on the integer ``frame`` column with integer constants.  Strings compare by
their UTF-8 bytes in both Arrow and Spark's default collation.  Conditions are three-valued as
in SQL (a comparison with null is null, ``NOT`` null is null) and a row is kept where every
condition is true.  Conditions on the ``path`` column also choose the files to read.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

import pyarrow as pa
import pyarrow.compute as pc

#: A pushed filter, compiled: the batch -> a boolean array (nulls where SQL gives null).
Condition = Callable[[pa.RecordBatch], pa.Array]

_COMPARE = {"EqualTo": pc.equal, "GreaterThan": pc.greater,
            "GreaterThanOrEqual": pc.greater_equal, "LessThan": pc.less,
            "LessThanOrEqual": pc.less_equal}
_STRING_MATCH = {"StringStartsWith": pc.starts_with, "StringEndsWith": pc.ends_with,
                 "StringContains": pc.match_substring}


def _field(schema: pa.Schema, path: tuple) -> tuple[list[int], pa.DataType] | None:
    """The indices that lead to the column ``path`` names and its type, or None."""
    if not path or path[0] not in schema.names:
        return None
    indices = [schema.get_field_index(path[0])]
    typ = schema.field(path[0]).type
    for name in path[1:]:
        if not pa.types.is_struct(typ) or typ.get_field_index(name) < 0:
            return None
        indices.append(typ.get_field_index(name))
        typ = typ.field(name).type
    return indices, typ


def _constant_fits(typ: pa.DataType, value: Any) -> bool:
    if pa.types.is_string(typ):
        return isinstance(value, str)
    if pa.types.is_integer(typ):         # the frame column: int64
        return isinstance(value, int) and not isinstance(value, bool) and \
            -2**63 <= value < 2**63
    return False


def _column(indices: list[int]) -> Callable[[pa.RecordBatch], pa.Array]:
    def column(batch: pa.RecordBatch) -> pa.Array:
        arr = batch.column(indices[0])
        for i in indices[1:]:     # a field of a struct is null where the struct is
            arr = pc.struct_field(arr, [i])
        return arr
    return column


def compile_filter(f: Any, schema: pa.Schema) -> Condition | None:
    """``f`` (a ``pyspark.sql.datasource`` filter) as a :data:`Condition` on batches of
    ``schema``, or None if it is not one this module evaluates exactly."""
    kind = type(f).__name__     # by name: this module does not import pyspark
    if kind == "Not":
        inner = compile_filter(f.child, schema)
        return None if inner is None else (lambda batch: pc.invert(inner(batch)))
    found = _field(schema, tuple(getattr(f, "attribute", ())))
    if found is None:
        return None
    indices, typ = found
    if not (pa.types.is_string(typ) or pa.types.is_integer(typ)):
        return None
    column = _column(indices)
    if kind == "IsNull":
        return lambda batch: pc.is_null(column(batch))
    if kind == "IsNotNull":
        return lambda batch: pc.is_valid(column(batch))
    value = f.value
    if value is None and (kind in _COMPARE or kind in _STRING_MATCH):
        return lambda batch: pa.nulls(batch.num_rows, pa.bool_())     # x = NULL is null
    if kind == "EqualNullSafe":
        if value is None:
            return lambda batch: pc.is_null(column(batch))
        if not _constant_fits(typ, value):
            return None
        return lambda batch: pc.fill_null(pc.equal(column(batch), pa.scalar(value, typ)), False)
    if kind in _COMPARE:
        if not _constant_fits(typ, value):
            return None
        compare = _COMPARE[kind]
        return lambda batch: compare(column(batch), pa.scalar(value, typ))
    if kind == "In":
        values = tuple(value)
        known = [v for v in values if v is not None]
        if not all(_constant_fits(typ, v) for v in known):
            return None
        value_set = pa.array(known, type=typ)
        unknown = len(known) < len(values)      # x IN (.., NULL) is null where not true

        def is_in(batch: pa.RecordBatch) -> pa.Array:
            col = column(batch)
            found = pc.is_in(col, value_set=value_set)
            # is_in says false for a null value; SQL says null.
            if unknown:
                return pc.if_else(found, True, pa.nulls(len(col), pa.bool_()))
            return pc.if_else(pc.is_valid(col), found, pa.nulls(len(col), pa.bool_()))
        return is_in
    if kind in _STRING_MATCH and pa.types.is_string(typ) and isinstance(value, str):
        match = _STRING_MATCH[kind]
        return lambda batch: match(column(batch), pattern=value)
    return None


def _compiled(filters: list, schema: pa.Schema) -> list[Condition]:
    return [c for c in (compile_filter(f, schema) for f in filters) if c is not None]


def _passed(conditions: list[Condition], batch: pa.RecordBatch) -> pa.Array:
    """Where every condition is true (null counts as false, as in a WHERE clause)."""
    mask = pc.fill_null(conditions[0](batch), False)
    for condition in conditions[1:]:
        mask = pc.and_(mask, pc.fill_null(condition(batch), False))
    return mask


def _column_of(f: Any) -> str | None:
    """The top-level column a filter is on."""
    while type(f).__name__ == "Not":
        f = f.child
    path = getattr(f, "attribute", ())
    return path[0] if path else None


class Filters:
    """The pushed filters a reader keeps (picklable: the filters themselves, compiled again
    where they are used)."""

    def __init__(self, schema: pa.Schema) -> None:
        self.schema = schema
        self.kept: list = []

    def push(self, filters: Iterable[Any]) -> Iterable[Any]:
        """Keep the filters this module evaluates; yield the others back to Spark."""
        for f in filters:
            if compile_filter(f, self.schema) is not None:
                self.kept.append(f)
            else:
                yield f

    def files(self, paths: list[str]) -> list[str]:
        """The files of ``paths`` whose rows can pass the kept filters on the ``path``
        column: a query that picks files by path reads only those."""
        if "path" not in self.schema.names:
            return paths
        field = pa.schema([self.schema.field("path")])
        conditions = _compiled([f for f in self.kept if _column_of(f) == "path"], field)
        if not conditions or not paths:
            return paths
        batch = pa.RecordBatch.from_arrays([pa.array(paths, pa.string())], schema=field)
        return [p for p, keep in zip(paths, _passed(conditions, batch).to_pylist()) if keep]

    def apply(self, batches: Iterable[pa.RecordBatch]) -> Iterable[pa.RecordBatch]:
        """``batches`` with only the rows where every kept filter is true (empty batches
        dropped)."""
        if not self.kept:
            yield from batches
            return
        conditions = _compiled(self.kept, self.schema)
        for batch in batches:
            mask = _passed(conditions, batch)
            kept = mask.true_count
            if kept == batch.num_rows:
                yield batch
            elif kept:
                yield batch.filter(mask)
