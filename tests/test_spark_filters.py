"""jelly.spark._filters: the filters Spark pushes down, applied to Arrow batches (no Spark
session here; the end-to-end checks against Spark's own evaluation are in test_spark.py).

The oracle is SQL's three-valued logic written out over Python values: a comparison with
null is null, ``NOT`` null is null, ``x IN (.., NULL)`` is null where it is not true, and a
row is kept where every filter is true.  Strings compare by code point, which is the order of
their UTF-8 bytes.
"""

from __future__ import annotations

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pyspark.sql.datasource import (EqualNullSafe, EqualTo, GreaterThan, GreaterThanOrEqual, In,
                                    IsNotNull, IsNull, LessThan, LessThanOrEqual, Not,
                                    StringContains, StringEndsWith, StringStartsWith)

from jelly.spark import _filters

TERM = pa.struct([pa.field("kind", pa.string(), False), pa.field("value", pa.string(), False),
                  pa.field("language", pa.string())])
SCHEMA = pa.schema([pa.field("s", pa.string(), False), pa.field("g", pa.string()),
                    pa.field("o", TERM), pa.field("frame", pa.int64(), False)])

# Few distinct strings, so that equal values, prefixes and order ties are common; characters
# of one to four UTF-8 bytes.
TEXT = st.text(alphabet=["a", "b", "<", '"', "é", "ж", "€", "\U0001F600"], max_size=3)
MAYBE = st.none() | TEXT
PATHS = {("s",): TEXT, ("g",): MAYBE, ("o", "value"): TEXT, ("o", "language"): MAYBE,
         ("frame",): st.integers(-3, 3)}
NULLABLE = [("g",), ("o", "language"), ("o", "value")]    # o itself may be null


@st.composite
def rows(draw):
    s, g = draw(TEXT), draw(MAYBE)
    o = None if draw(st.integers(0, 5)) == 0 else \
        {"kind": "literal", "value": draw(TEXT), "language": draw(MAYBE)}
    return {"s": s, "g": g, "o": o, "frame": draw(st.integers(-3, 3))}


def value_at(row, path):
    v = row[path[0]]
    for name in path[1:]:
        v = None if v is None else v[name]
    return v


COMPARE = {EqualTo: lambda a, b: a == b, GreaterThan: lambda a, b: a > b,
           GreaterThanOrEqual: lambda a, b: a >= b, LessThan: lambda a, b: a < b,
           LessThanOrEqual: lambda a, b: a <= b}
MATCH = {StringStartsWith: str.startswith, StringEndsWith: str.endswith,
         StringContains: lambda a, b: b in a}


def sql(f, row):
    """True, False or None (SQL null) for filter ``f`` on ``row``."""
    if isinstance(f, Not):
        inner = sql(f.child, row)
        return None if inner is None else not inner
    v = value_at(row, f.attribute)
    if isinstance(f, IsNull):
        return v is None
    if isinstance(f, IsNotNull):
        return v is not None
    if isinstance(f, EqualNullSafe):
        return v == f.value if v is not None and f.value is not None \
            else v is None and f.value is None
    if isinstance(f, In):
        if v is None:
            return None
        if v in [x for x in f.value if x is not None]:
            return True
        return None if None in f.value else False
    if v is None or f.value is None:
        return None
    if type(f) in MATCH:
        return MATCH[type(f)](v, f.value)
    return COMPARE[type(f)](v, f.value)


@st.composite
def filters(draw, depth=0):
    if depth < 2 and draw(st.integers(0, 2)) == 0:
        return Not(draw(filters(depth + 1)))
    path = draw(st.sampled_from(NULLABLE * 2 + sorted(PATHS)))
    values = PATHS[path]
    kind = draw(st.sampled_from([EqualTo, EqualNullSafe, GreaterThan, GreaterThanOrEqual,
                                 LessThan, LessThanOrEqual, In, IsNull, IsNotNull]
                                + ([StringStartsWith, StringEndsWith, StringContains]
                                   if path != ("frame",) else [])))
    if kind in (IsNull, IsNotNull):
        return kind(path)
    if kind is In:
        known = draw(st.lists(values.filter(lambda v: v is not None), max_size=3))
        return In(path, tuple(known + [None] * draw(st.integers(0, 1))))
    if kind is EqualNullSafe:
        return EqualNullSafe(path, draw(values | st.none()))
    return kind(path, draw(values))


def batch_of(rs):
    return pa.RecordBatch.from_pylist(rs, schema=SCHEMA)


@settings(max_examples=1000, deadline=None)
@given(st.lists(rows(), max_size=30), st.lists(filters(), min_size=1, max_size=3),
       st.integers(1, 30))
def test_kept_rows_are_those_sql_keeps(rs, fs, per_batch):
    f = _filters.Filters(SCHEMA)
    assert list(f.push(fs)) == []           # every generated filter is one it evaluates
    batches = [batch_of(rs[i:i + per_batch]) for i in range(0, len(rs), per_batch)]
    out = [r for b in f.apply(batches) for r in b.to_pylist()]
    assert out == [r for r in rs if all(sql(x, r) is True for x in fs)]
    assert all(b.num_rows for b in f.apply(batches))    # no empty batches for Spark


def test_filters_it_cannot_evaluate_go_back_to_spark():
    f = _filters.Filters(SCHEMA)
    back = [EqualTo(("s",), 3),                   # a number for a string column
            EqualTo(("frame",), "3"),             # a string for a number
            EqualTo(("frame",), True),            # a bool is not a frame index
            EqualTo(("frame",), 2**63),           # beyond int64
            In(("s",), ("a", 1)),
            EqualTo(("nope",), "a"), EqualTo(("o", "nope"), "a"), EqualTo(("s", "x"), "a"),
            EqualTo(("o",), "a"),                 # a whole struct
            StringStartsWith(("frame",), "1"),
            Not(EqualTo(("s",), 3))]
    kept = [EqualTo(("s",), "a"), Not(IsNull(("g",))), In(("o", "language"), ("en", None))]
    assert list(f.push(back[:5] + kept + back[5:])) == back
    assert f.kept == kept


def test_without_filters_batches_pass_through():
    b = batch_of([{"s": "a", "g": None, "o": None, "frame": 0}])
    assert list(_filters.Filters(SCHEMA).apply(iter([b]))) == [b]


@pytest.mark.parametrize("f, expected", [
    (In(("g",), ("x", None)), ["x"]),
    (Not(In(("g",), ("x", None))), []),           # NOT (g IN ('x', NULL)) is never true
    (Not(In(("g",), ("x",))), ["y"]),
    (Not(EqualTo(("g",), "x")), ["y"]),           # null g: NOT null is null
    (EqualNullSafe(("g",), None), [None]),
    (Not(EqualNullSafe(("g",), "x")), ["y", None]),
    (Not(IsNull(("o", "language"))), []),         # a null struct has null fields
])
def test_null_logic(f, expected):
    rs = [{"s": "a", "g": g, "o": None, "frame": 0} for g in ("x", "y", None)]
    f_ = _filters.Filters(SCHEMA)
    assert list(f_.push([f])) == []
    assert [r["g"] for b in f_.apply([batch_of(rs)]) for r in b.to_pylist()] == expected


@settings(max_examples=300, deadline=None)
@given(st.lists(TEXT, max_size=6), st.lists(filters(), max_size=3),
       st.lists(st.sampled_from([("path",)]).flatmap(
           lambda path: st.one_of(
               st.builds(EqualTo, st.just(path), TEXT),
               st.builds(StringStartsWith, st.just(path), TEXT),
               st.builds(In, st.just(path), st.lists(TEXT | st.none(), max_size=3).map(tuple)),
               st.builds(lambda f: Not(f), st.builds(LessThan, st.just(path), TEXT)))),
           max_size=3))
def test_files_are_those_whose_path_passes(paths, other, on_path):
    """With a path column, the files read are those whose path passes the filters on it (the
    filters on other columns leave the choice of files alone)."""
    schema = SCHEMA.append(pa.field("path", pa.string(), False))
    f = _filters.Filters(schema)
    assert list(f.push(other + on_path)) == []
    assert f.files(paths) == [p for p in paths if all(sql(x, {"path": p}) is True
                                                      for x in on_path)]
    without = _filters.Filters(SCHEMA)          # no path column: every file
    assert list(without.push(other)) == [] and without.files(paths) == paths
