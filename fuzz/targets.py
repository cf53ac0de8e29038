"""The fuzz targets: one per reader, each a row of :data:`TARGETS`.

A target's ``check(data)`` feeds ``data`` to its reader and raises :class:`Escape` when
something other than the ``JellyError`` family comes out, or when what the reader accepted
does not survive the trip back: written again (by jelly's writer for that format, or compared
with a second reader of the same input) and read again, it must give the same statements.  It
returns what happened (an outcome name) for the statistics.

Adding a reader is a row of :data:`TARGETS` and a seed corpus.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import os
from typing import Any, Callable

import jelly
import jelly.jena
from jelly import JellyEncodeError, JellyError
from jelly._framing import FrameSplitter
from jelly._ntformat import statement_to_nt
from jelly._ntriples import parse_nquads
from jelly.options import MAX_FRAME_SIZE, MAX_QUOTED_DEPTH, MAX_TABLE_SIZE
from jelly.transcode import transcode

# Outcomes of a check.
ACCEPTED = "accepted"                      # read, written again and read back the same
REJECTED = "rejected"                      # refused with a JellyError
NOT_WRITABLE = "accepted, not writable"    # read, but the writer refuses it (JellyEncodeError)


class Escape(AssertionError):
    """A reader let through something other than a JellyError, or changed the statements."""


def _only_jelly_errors(fn: Callable[[], Any]) -> tuple[Any, JellyError | None]:
    """``(result, None)``, or ``(None, error)`` for a JellyError; anything else escapes."""
    try:
        return fn(), None
    except JellyError as exc:
        return None, exc
    except Exception as exc:     # noqa: BLE001 - that is the point
        raise Escape(f"{type(exc).__name__} escaped: {exc}") from exc


def _same(what: str, got: object, want: object) -> None:
    if got != want:
        raise Escape(f"{what}: {got!r:.300} != {want!r:.300}")


def _pieces(data: bytes) -> list[bytes]:
    """``data`` cut at a few points that depend only on it (so a run is reproducible)."""
    h = hashlib.blake2b(data, digest_size=16).digest()
    cuts = sorted({b * len(data) // 256 for b in h[:4]} | {len(data)})
    out, prev = [], 0
    for c in cuts:
        out.append(data[prev:c])
        prev = c
    return out


_ALWAYS_READY = -1


class _Trickle(io.RawIOBase):
    """A stream giving ``data`` in the pieces of :func:`_pieces`, with a "no data yet" (None)
    between them, as a non-blocking socket does."""

    def __init__(self, data: bytes) -> None:
        self._pieces = [p for p in _pieces(data) if p]
        self._none = True

    def readable(self) -> bool:
        return True

    def fileno(self) -> int:
        # Where a reader waits for data after a None: always ready, so no time is lost.
        global _ALWAYS_READY
        if _ALWAYS_READY < 0:
            _ALWAYS_READY = os.open(os.devnull, os.O_RDONLY)
        return _ALWAYS_READY

    def readinto(self, b: Any) -> int | None:  # type: ignore[override]
        if not self._pieces:
            return 0
        self._none = not self._none
        if self._none:
            return None
        piece = self._pieces[0]
        n = min(len(b), len(piece))
        b[:n] = piece[:n]
        self._pieces[0] = piece[n:]
        if not self._pieces[0]:
            self._pieces.pop(0)
        return n


# -- Jelly-RDF ---------------------------------------------------------------------------------

def _rewrite_jelly(statements: list[tuple[Any, ...]]) -> str:
    """Write statements with jelly's writer (every feature enabled) and read them back."""
    if not statements:
        return ACCEPTED
    quads = len(statements[0]) == 4
    try:
        data = jelly.serialize(statements, physical_type="quads" if quads else "triples",
                               rdf_star=True, generalized_statements=True, rows_per_frame=64)
    except JellyEncodeError:
        return NOT_WRITABLE
    back, err = _only_jelly_errors(lambda: list(jelly.parse(data)))
    if err is not None:
        raise Escape(f"jelly cannot read what it wrote: {err}")
    _same("statements written and read back", back, statements)
    return ACCEPTED


#: Every limit at its maximum: sparse tables, deep nesting, no frame size cap.
MAX_LIMITS = jelly.ReaderLimits(
    max_name_table_size=MAX_TABLE_SIZE, max_prefix_table_size=MAX_TABLE_SIZE,
    max_datatype_table_size=MAX_TABLE_SIZE, max_quoted_depth=MAX_QUOTED_DEPTH,
    max_frame_size=MAX_FRAME_SIZE)


def _check_jelly_frames(limits: jelly.ReaderLimits) -> Callable[[bytes], str]:
    def check(data: bytes) -> str:
        frames, err = _only_jelly_errors(lambda: list(jelly.parse_frames(data, limits=limits)))
        flat, err2 = _only_jelly_errors(lambda: list(jelly.parse(data, limits=limits)))
        if (err is None) != (err2 is None):
            raise Escape(f"parse_frames and parse disagree: {err!r} / {err2!r}")
        if err is not None:
            return REJECTED
        statements = [st for f in frames for st in f.statements]
        _same("parse vs parse_frames", flat, statements)
        return _rewrite_jelly(statements)
    check.__doc__ = ("``parse_frames`` and ``parse`` (two decoding paths) of bytes: the same "
                     "statements; written again, the same.")
    return check


def check_jelly_feed(data: bytes) -> str:
    """Bytes arriving in pieces: ``FrameSplitter.feed`` + ``Decoder``, and ``parse`` over a
    non-blocking stream; both must read what ``parse`` reads from the whole bytes."""
    whole, err = _only_jelly_errors(lambda: list(jelly.parse(data)))

    def fed() -> list[tuple[Any, ...]]:
        splitter, decoder, out = FrameSplitter(), jelly.Decoder(), []
        for piece in _pieces(data):
            for offset, frame in splitter.feed(piece):
                out.extend(decoder.decode_frame(frame, offset).statements)
        for offset, frame in splitter.finish():
            out.extend(decoder.decode_frame(frame, offset).statements)
        return out

    for name, fn in (("feed", fed), ("stream", lambda: list(jelly.parse(_Trickle(data))))):
        got, e = _only_jelly_errors(fn)
        if (e is None) != (err is None):
            raise Escape(f"{name} and bytes disagree: {e!r} / {err!r}")
        if e is None:
            _same(f"{name} vs bytes", got, whole)
    return REJECTED if err is not None else ACCEPTED


def check_transcode(data: bytes) -> str:
    """The transcoder (no RDF terms built) against the strict decoder: what it accepts, the
    decoder accepts, and its output reads as the same statements."""
    out = io.BytesIO()
    _, err = _only_jelly_errors(lambda: transcode(data, out))
    if err is not None:
        return REJECTED
    want, e = _only_jelly_errors(lambda: list(jelly.parse(data, strict=True, new_streams=True)))
    if e is not None:
        raise Escape(f"transcoded input the decoder rejects: {e}")
    got, e = _only_jelly_errors(lambda: list(jelly.parse(out.getvalue(), strict=True)))
    if e is not None:
        raise Escape(f"the transcoder wrote what the decoder rejects: {e}")
    _same("transcoded statements", got, want)
    return ACCEPTED


# -- Jena RDF Binary ---------------------------------------------------------------------------

def _results(data: bytes, fmt: str) -> tuple[list[str], list[tuple[Any, ...]]]:
    with jelly.jena.read_results(data, format=fmt) as reader:
        return reader.variables, list(reader)


def _check_jena(fmt: str) -> Callable[[bytes], str]:
    def check(data: bytes) -> str:
        outcome = REJECTED
        results, err = _only_jelly_errors(lambda: _results(data, fmt))
        if err is None:
            outcome = ACCEPTED
            try:
                written = jelly.jena.write_results(None, results[0], results[1], format=fmt)
            except JellyEncodeError:
                outcome = NOT_WRITABLE
            else:
                back, err = _only_jelly_errors(lambda: _results(written, fmt))
                if err is not None:
                    raise Escape(f"jelly cannot read the {fmt} results it wrote: {err}")
                _same("results written and read back", back, results)
        statements, err = _only_jelly_errors(lambda: list(jelly.jena.parse(data, format=fmt)))
        if err is not None:
            return outcome
        try:
            written = jelly.jena.serialize(statements, format=fmt)
        except JellyEncodeError:
            return NOT_WRITABLE
        back, err = _only_jelly_errors(lambda: list(jelly.jena.parse(written, format=fmt)))
        if err is not None:
            raise Escape(f"jelly cannot read the {fmt} it wrote: {err}")
        _same("statements written and read back", back, statements)
        return ACCEPTED
    check.__doc__ = (f"RDF {fmt.capitalize()} as statements and as a result set: read, "
                     f"written again and read back.")
    return check


# -- N-Triples / N-Quads -----------------------------------------------------------------------

def check_nquads(data: bytes) -> str:
    """The N-Triples / N-Quads parser in its three syntaxes; what the default (most lenient)
    syntax accepts is written as N-Quads and read back."""
    for syntax in ("rdf12", "rdf-star"):
        _only_jelly_errors(lambda: list(parse_nquads(data, syntax=syntax)))
    statements, err = _only_jelly_errors(lambda: list(parse_nquads(data)))
    if err is not None:
        return REJECTED
    try:
        text = "".join(statement_to_nt(st) for st in statements).encode()
    except JellyEncodeError:
        return NOT_WRITABLE
    back, err = _only_jelly_errors(lambda: list(parse_nquads(text)))
    if err is not None:
        raise Escape(f"the parser rejects what the writer wrote: {err}")
    _same("statements written and read back", back, statements)
    return ACCEPTED


# -- streaming protocol ------------------------------------------------------------------------

def check_streaming(data: bytes) -> str:
    """The gRPC streaming messages: subscribe and options messages decoded, encoded and decoded
    again to the same values; the stream-name edit of a frame's options row."""
    from jelly import _streaming as s
    accepted = False
    sub, err = _only_jelly_errors(lambda: s.decode_subscribe(data))
    if err is None:
        accepted = True
        topic, options = sub
        again, err = _only_jelly_errors(lambda: s.decode_subscribe(
            s.encode_subscribe(topic, options)))
        if err is not None:
            raise Escape(f"re-encoded subscription rejected: {err}")
        _same("subscription", again, sub)
    options, err = _only_jelly_errors(lambda: s.decode_options(data))
    if err is None:
        accepted = True
        again, err = _only_jelly_errors(lambda: s.decode_options(s.encode_options(options)))
        if err is not None:
            raise Escape(f"re-encoded options rejected: {err}")
        _same("options", again, options)
    first, err = _only_jelly_errors(lambda: s.first_options(data))
    if err is None and first[0] is not None:
        accepted = True
        renamed, err = _only_jelly_errors(lambda: s.with_stream_name(data, "fuzz"))
        if err is None:
            got, err = _only_jelly_errors(lambda: s.first_options(renamed))
            if err is not None:
                raise Escape(f"renamed frame rejected: {err}")
            _same("renamed stream", got[0], first[0].replace(stream_name="fuzz"))
    _only_jelly_errors(lambda: s.delimit(data))
    return ACCEPTED if accepted else REJECTED


# -- RDF Patch (Jelly-Patch and text) ----------------------------------------------------------

def _patch_ops(data: bytes) -> tuple[Any, list[Any]]:
    import jelly.patch
    with jelly.patch.PatchReader(data) as reader:
        return reader.options, list(reader)


def check_jelly_patch(data: bytes) -> str:
    """Jelly-Patch: ``PatchReader`` and ``parse_patches`` agree; what is read is written again
    with the input's options (stream and statement type, table sizes) and read back the same
    (``END_OF_PATCH`` markers included)."""
    import jelly.patch
    got, err = _only_jelly_errors(lambda: _patch_ops(data))
    patches, err2 = _only_jelly_errors(lambda: list(jelly.patch.parse_patches(data)))
    if (err is None) != (err2 is None):
        raise Escape(f"PatchReader and parse_patches disagree: {err!r} / {err2!r}")
    if err is not None:
        return REJECTED
    options, ops = got
    _same("parse_patches vs the operations", patches,
          _split_patches(ops, jelly.patch.END_OF_PATCH))
    if options is None:
        return ACCEPTED
    try:
        written = jelly.patch.serialize(ops, options=options, rows_per_frame=16)
    except JellyError:
        return NOT_WRITABLE
    back, err = _only_jelly_errors(lambda: _patch_ops(written))
    if err is not None:
        raise Escape(f"jelly.patch cannot read what it wrote: {err}")
    _same("operations written and read back", back[1], ops)
    return ACCEPTED


def _split_patches(ops: list[Any], end: object) -> list[list[Any]]:
    out: list[list[Any]] = []
    patch: list[Any] = []
    for op in ops:
        if op is end:
            out.append(patch)
            patch = []
        else:
            patch.append(op)
    return out


def check_rdf_patch(data: bytes) -> str:
    """RDF Patch text in its three syntaxes; what the default syntax accepts is written as
    text and read back the same, and through Jelly-Patch (PUNCTUATED, the type that holds any
    sequence of patches) where its statement type can hold it."""
    import jelly.patch
    import jelly.rdfpatch
    for syntax in ("rdf12", "rdf-star"):
        _only_jelly_errors(lambda: list(jelly.rdfpatch.parse(data, syntax=syntax)))
    ops, err = _only_jelly_errors(lambda: list(jelly.rdfpatch.parse(data)))
    if err is not None:
        return REJECTED
    try:
        text = jelly.rdfpatch.serialize(ops)
    except JellyError:
        return NOT_WRITABLE
    back, err = _only_jelly_errors(lambda: list(jelly.rdfpatch.parse(text)))
    if err is not None:
        raise Escape(f"jelly.rdfpatch cannot read what it wrote: {err}")
    _same("operations written as text and read back", back, ops)
    try:
        binary = jelly.patch.serialize(ops, stream_type="punctuated", rdf_star=True,
                                       generalized=True)
    except JellyError:
        return ACCEPTED
    back, err = _only_jelly_errors(lambda: _patch_ops(binary))
    if err is not None:
        raise Escape(f"jelly.patch cannot read what it wrote: {err}")
    if back[0].statement_type == "triples":     # QUADS puts graph-less statements in the default graph
        _same("operations through Jelly-Patch", back[1], ops)
    return ACCEPTED


# -- the table ---------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Target:
    name: str
    #: The module of the reader (for the record: what the target exercises).
    module: str
    #: The seed corpus (a directory under ``fuzz/corpus``).
    corpus: str
    check: Callable[[bytes], str]


TARGETS: tuple[Target, ...] = (
    Target("jelly-frames", "jelly.reader", "jelly", _check_jelly_frames(jelly.ReaderLimits())),
    Target("jelly-limits", "jelly.reader", "jelly", _check_jelly_frames(MAX_LIMITS)),
    Target("jelly-feed", "jelly._framing", "jelly", check_jelly_feed),
    Target("transcode", "jelly._transcode", "jelly", check_transcode),
    Target("rdf-thrift", "jelly._jena_thrift", "rdf-thrift", _check_jena("thrift")),
    Target("rdf-protobuf", "jelly._jena_proto", "rdf-protobuf", _check_jena("protobuf")),
    Target("nquads", "jelly._ntriples", "nquads", check_nquads),
    Target("streaming", "jelly._streaming", "streaming", check_streaming),
    Target("jelly-patch", "jelly.patch", "jelly-patch", check_jelly_patch),
    Target("rdf-patch", "jelly.rdfpatch", "rdf-patch", check_rdf_patch),
)


def get(name: str) -> Target:
    for t in TARGETS:
        if t.name == name:
            return t
    raise KeyError(f"no fuzz target {name!r}; targets: {', '.join(t.name for t in TARGETS)}")
