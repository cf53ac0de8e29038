"""Jelly-Patch: RDF Patch streams (``https://w3id.org/jelly/patch``) read and written as typed
operations on the compiled core.

Reading: :func:`parse` (operations, ``END_OF_PATCH`` after each patch), :func:`parse_patches`
(one list per patch), :class:`PatchReader` (also frame by frame, and the options).
Writing: :class:`PatchWriter` and :func:`serialize`.  The operations are those of
:mod:`jelly._patchops` (``Add``, ``Delete``, ``PrefixAdd``, ``PrefixDelete``, ``Header``,
``TX_START``, ``TX_COMMIT``, ``TX_ABORT``, ``END_OF_PATCH``), shared with RDF Patch text.

Where a patch ends depends on the stream type: in a FRAME stream every frame is one patch, in a
PUNCTUATED stream a punctuation row ends each patch, and a FLAT stream is one patch.  The
choices made where the spec is silent are listed in ``docs/patch.md``.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, overload

from ._patchdecoder import ROW_KINDS, PatchDecoder, PatchFrame
from ._patchencoder import PatchEncoder
from ._patchops import (END_OF_PATCH, TX_ABORT, TX_COMMIT, TX_START, Add, Delete, EndOfPatch,
                        Header, PatchOp, PrefixAdd, PrefixDelete, TxAbort, TxCommit, TxStart)
from . import formats as _formats
from .errors import JellyEncodeError, JellyError, JellyOptionsError
from .io import Destination, not_jelly
from .options import (DEFAULT_LIMITS, PATCH_PROTOCOL_VERSION, PATCH_STATEMENT_TYPES,
                      PATCH_STREAM_TYPES, PatchOptions, ReaderLimits, _preset_sizes)
from .reader import FrameInput

if TYPE_CHECKING:
    from ._decoder import _Terms
    from .io import Input, Output

__all__ = ["PatchOptions", "PatchReader", "PatchWriter", "PatchFrame", "parse", "parse_patches",
           "serialize", "read_options", "make_patch_options", "ROW_KINDS", "PatchOp", "Add",
           "Delete", "PrefixAdd", "PrefixDelete", "Header", "TxStart", "TxCommit", "TxAbort",
           "EndOfPatch", "TX_START", "TX_COMMIT", "TX_ABORT", "END_OF_PATCH",
           "PATCH_PROTOCOL_VERSION", "DEFAULT_ROWS_PER_FRAME", "STATEMENT_TYPES", "STREAM_TYPES"]

#: Operations decoded at a time when a reader is iterated: large frames stream out in pieces.
OPERATION_CHUNK = 4096
#: Rows per frame of FLAT and PUNCTUATED streams unless told otherwise (as Jelly-RDF).
DEFAULT_ROWS_PER_FRAME = 1024


# ------------------------------------------------------------------------------------ reading

class PatchReader(FrameInput):
    """A Jelly-Patch stream opened for reading.

    ``source`` is a path, ``"-"`` (stdin), a bytes-like object or a binary file object (pipes
    work; the input is never sought).  Gzip and both the delimited and the single-frame variant
    are recognised from the first bytes.  Iterating gives the operations with ``END_OF_PATCH``
    after each patch (see :func:`parse`); :meth:`patches` gives one list per patch and
    :meth:`frames` the operations of each frame.  ``terms`` is what terms become
    (``"native"`` or a term factory, see :class:`jelly.Reader`); ``strict=True`` also rejects
    quoted triples and generalized terms the options do not announce, and transactions that
    do not pair up.
    """

    _decoder: PatchDecoder

    KIND = "Jelly-Patch"

    def __init__(self, source: Input, *, limits: ReaderLimits | None = None,
                 terms: _Terms = "native", strict: bool = False,
                 delimited: bool | None = None) -> None:
        limits = limits if limits is not None else DEFAULT_LIMITS
        self._decoder = PatchDecoder(limits=limits, terms=terms, strict=strict)
        super().__init__(source, limits, delimited)
        self._finished = False
        self._piece_iter: Iterator[list[PatchOp] | PatchFrame] | None = None
        self._ahead: list[list[PatchOp] | PatchFrame] = []

    def _failed(self, exc: JellyError) -> JellyError:
        """As :meth:`jelly.Reader._failed`: an input that looks like another format says so."""
        head = self._frames.head
        if self._decoder.frame_index == 0 and not _formats._jelly_patch_head(head):
            exc = not_jelly(head, exc, self.KIND)
        return super()._failed(exc)

    def _finish(self) -> list[PatchOp]:
        """The end of the stream: what it ends (END_OF_PATCH of a FLAT stream), once."""
        if self._finished:
            return []
        try:
            ops: list[PatchOp] = self._decoder.finish()
        except JellyError as exc:
            raise self._failed(exc) from None
        self._finished = True
        return ops

    def _pieces(self) -> Iterator[list[PatchOp] | PatchFrame]:
        """The stream in the pieces it is decoded in: for each frame, lists of its first
        operations (about :data:`OPERATION_CHUNK` each) and then the :class:`PatchFrame` with
        the rest and the frame's row counts; the operations the end of the stream ends, last.
        One generator per reader: what :attr:`options` reads ahead is handed on first."""
        if self._error is not None:         # a reader that failed stays failed
            raise self._error
        if self._piece_iter is None:
            self._piece_iter = self._decode_pieces()
        while self._ahead:
            yield self._ahead.pop(0)
        yield from self._piece_iter

    def _decode_pieces(self) -> Iterator[list[PatchOp] | PatchFrame]:
        decoder = self._decoder
        while True:
            item = self._next_raw()
            if item is None:
                break
            try:
                decoder.begin_frame(item[1], item[0])
                while True:
                    chunk = decoder.decode_operations(OPERATION_CHUNK)
                    if chunk is None:
                        break
                    yield chunk
                yield decoder.end_frame()
            except JellyError as exc:
                raise self._failed(exc) from None
        yield self._finish()

    def frames(self) -> Iterator[PatchFrame]:
        """Each :class:`PatchFrame` in order (its operations end with ``END_OF_PATCH`` where a
        patch ends inside it; the end of a FLAT stream is no frame's)."""
        head: list[PatchOp] = []
        for piece in self._pieces():
            if isinstance(piece, list):
                head.extend(piece)
            elif head:
                piece = PatchFrame(piece.index, head + piece.operations, piece.row_counts,
                                   piece.operation_count)
                head = []
                yield piece
            else:
                yield piece

    def __iter__(self) -> Iterator[PatchOp]:
        """Every operation, with ``END_OF_PATCH`` after each patch: after every frame of a
        FRAME stream, at every punctuation row of a PUNCTUATED one, and at the end of a FLAT
        stream that holds any operation.  A PUNCTUATED stream that ends with operations after
        its last punctuation row raises :class:`jelly.JellyDecodeError` at its end."""
        return itertools.chain.from_iterable(self._chunks())

    def _chunks(self) -> Iterator[list[PatchOp]]:
        """The operations in lists of about :data:`OPERATION_CHUNK`: large frames stream."""
        for piece in self._pieces():
            yield piece if isinstance(piece, list) else piece.operations

    def patches(self) -> Iterator[list[PatchOp]]:
        """Each patch as a list of its operations (without ``END_OF_PATCH``)."""
        patch: list[PatchOp] = []
        for op in self:
            if op is END_OF_PATCH:
                yield patch
                patch = []
            else:
                patch.append(op)

    @property
    def options(self) -> PatchOptions | None:
        """The patch options; reads ahead to the first operations of the frame that holds them
        if needed (frames before it can only be empty).  ``None`` for an input without an
        options row."""
        if self._decoder.options is None and self._piece_iter is None:
            self._piece_iter = self._decode_pieces()
            for piece in self._piece_iter:
                self._ahead.append(piece)
                if self._decoder.options is not None:
                    break
        options: PatchOptions | None = self._decoder.options
        return options


def _operations(source: Input, kwargs: dict[str, Any]) -> Iterator[list[PatchOp]]:
    with PatchReader(source, **kwargs) as reader:
        yield from reader._chunks()


def parse(source: Input, *, limits: ReaderLimits | None = None, terms: _Terms = "native",
          strict: bool = False) -> Iterator[PatchOp]:
    """Iterate the operations of a Jelly-Patch stream, with ``END_OF_PATCH`` after each patch
    (see :meth:`PatchReader.__iter__`).  The input is opened when the iteration starts and
    closed when it ends."""
    return itertools.chain.from_iterable(_operations(source, dict(
        limits=limits, terms=terms, strict=strict)))


def parse_patches(source: Input, *, limits: ReaderLimits | None = None,
                  terms: _Terms = "native", strict: bool = False) -> Iterator[list[PatchOp]]:
    """Iterate the patches of a Jelly-Patch stream, each a list of operations (without the
    ``END_OF_PATCH`` marker)."""
    with PatchReader(source, limits=limits, terms=terms, strict=strict) as reader:
        yield from reader.patches()


def read_options(source: Input, *, limits: ReaderLimits | None = None) -> PatchOptions:
    """The patch options of a Jelly-Patch stream (from its first frame)."""
    with PatchReader(source, limits=limits) as reader:
        options = reader.options
    if options is None:
        raise JellyError("the input holds no Jelly-Patch frame, so it has no options")
    return options


# ------------------------------------------------------------------------------------ writing

def make_patch_options(options: PatchOptions | None = None, *, preset: str | None = None,
                       statement_type: str | int | None = None,
                       stream_type: str | int | None = None,
                       max_name_table_size: int | None = None,
                       max_prefix_table_size: int | None = None,
                       max_datatype_table_size: int | None = None,
                       rdf_star: bool | None = None, generalized: bool | None = None,
                       version: int | None = None) -> PatchOptions:
    """Patch options from a base (``options`` or a named ``preset``, default ``"big"``) and
    field overrides, checked for writing.  Without ``options``, the stream type is
    PUNCTUATED and the statement type TRIPLES (a writer works the statement type out itself
    when it is not given)."""
    if options is not None and preset is not None:
        raise JellyOptionsError("give either options or a preset, not both")
    if options is None:
        names, prefixes, datatypes = _preset_sizes(preset or "big")
        options = PatchOptions(max_name_table_size=names, max_prefix_table_size=prefixes,
                               max_datatype_table_size=datatypes)
    changes: dict[str, Any] = {}
    for name, value in (("statement_type", statement_type), ("stream_type", stream_type),
                        ("max_name_table_size", max_name_table_size),
                        ("max_prefix_table_size", max_prefix_table_size),
                        ("max_datatype_table_size", max_datatype_table_size),
                        ("rdf_star", rdf_star), ("generalized_statements", generalized),
                        ("version", version)):
        if value is not None:
            changes[name] = value
    result = options.replace(**changes)
    result.validate_for_writing()
    return result


def _statement_type_of(op: object) -> str | None:
    """The statement type an operation needs, or None if it fits either."""
    if isinstance(op, (Add, Delete)):
        return "triples" if op.g is None else "quads"
    if isinstance(op, (PrefixAdd, PrefixDelete)) and op.graph is not None:
        return "quads"
    return None


class PatchWriter(Destination):
    """A Jelly-Patch stream opened for writing.

    :meth:`write` / :meth:`write_all` operations; ``END_OF_PATCH`` (or :meth:`end_patch`) ends
    a patch: a punctuation row in a PUNCTUATED stream (the default), the end of the frame in a
    FRAME stream; a FLAT stream is one patch, so nothing may follow its ``END_OF_PATCH``.
    FLAT and PUNCTUATED streams are cut into frames of ``rows_per_frame`` rows; a FRAME
    stream's frames are its patches, whatever their size.  :meth:`close` ends an unfinished
    patch.  ``delimited=False`` writes a single frame (a FRAME stream then holds one patch).

    ``statement_type`` None works it out from the first operation that tells: a statement
    with a graph (``g`` not None) or a namespace with a graph makes the stream QUADS, a
    statement without a graph TRIPLES; the operations before it are held back (they cannot be
    written before the options row, which must say the type).  If a frame must leave before
    any operation tells (``rows_per_frame`` reached, a FRAME patch ended, the writer closed),
    the stream is TRIPLES.  In a QUADS stream a statement or namespace without a graph is
    written in the default graph; in a TRIPLES stream one in the default graph is written
    without one, and one in a named graph is an error.

    ``rdf_star`` None (automatic) sets ``rdf_star`` in the options when the first frame holds a
    quoted triple; a quoted triple in a later frame is then an error (pass ``rdf_star=True``).
    Table sizes come from ``preset`` (``"small"`` or ``"big"``, the default) or the explicit
    sizes; ``options`` (a :class:`PatchOptions`) is a base that the keywords override.
    ``destination`` is a path (written atomically; ``.gz`` compresses), ``"-"`` (stdout), a
    binary file object, or ``None`` to collect the bytes (:meth:`getvalue`).
    """

    def __init__(self, destination: Output | None = None, options: PatchOptions | None = None,
                 *, stream_type: str | int | None = None,
                 statement_type: str | int | None = None,
                 rows_per_frame: int = DEFAULT_ROWS_PER_FRAME, delimited: bool = True,
                 preset: str | None = None, max_name_table_size: int | None = None,
                 max_prefix_table_size: int | None = None,
                 max_datatype_table_size: int | None = None, rdf_star: bool | None = None,
                 generalized: bool | None = None, version: int | None = None,
                 term_adapter: Callable[[Any], object] | None = None) -> None:
        if rows_per_frame < 1:
            raise JellyOptionsError("rows_per_frame must be at least 1")
        self._auto_type = options is None and statement_type is None
        self._auto_star = options is None and rdf_star is None
        self._base = make_patch_options(
            options, preset=preset, statement_type=statement_type, stream_type=stream_type,
            max_name_table_size=max_name_table_size, max_prefix_table_size=max_prefix_table_size,
            max_datatype_table_size=max_datatype_table_size, rdf_star=rdf_star,
            generalized=generalized, version=version)
        self.rows_per_frame = rows_per_frame
        self.delimited = delimited
        self.stream_type = self._base.stream_type
        self._term_adapter = term_adapter
        self._encoder: PatchEncoder | None = None
        self._held: list[PatchOp] = []      # operations before the statement type is known
        self._cut = delimited and self.stream_type != "frame"
        self._open_ops = 0                  # operations since the last end of a patch
        self._patches_ended = 0
        self._flat_ended = False
        self._frames_written = 0
        super().__init__(destination)
        if not self._auto_type:
            self._start(self._base.statement_type)

    # -- writing -----------------------------------------------------------------------------

    def _start(self, statement_type: str) -> PatchEncoder:
        """Create the encoder once the statement type is known; write what was held back."""
        enc = PatchEncoder(self._base.replace(statement_type=statement_type),
                           term_adapter=self._term_adapter, rdf_star_auto=self._auto_star)
        self._encoder = enc
        held, self._held = self._held, []
        for op in held:
            if op is END_OF_PATCH:
                enc.punctuation()
            else:
                enc.add(op)
        return enc

    def _check_more(self) -> None:
        if self._flat_ended:
            raise JellyEncodeError("a FLAT stream holds one patch, and it has ended "
                                   "(END_OF_PATCH was written)")
        if not self.delimited and self.stream_type == "frame" and self._patches_ended:
            raise JellyEncodeError("a single-frame (non-delimited) FRAME stream holds one patch")

    def write(self, op: PatchOp) -> None:
        """Write one operation (``END_OF_PATCH``: :meth:`end_patch`)."""
        self._check_open()
        if op is END_OF_PATCH:
            self.end_patch()
            return
        self._check_more()
        enc = self._encoder
        if enc is None:
            statement_type = _statement_type_of(op)
            if statement_type is None:
                if not isinstance(op, PatchOp):
                    raise JellyEncodeError(f"not a patch operation: {op!r}")
                self._held.append(op)
                self._open_ops += 1
                if self._cut and len(self._held) >= self.rows_per_frame:
                    self._start("triples")
                    self._emit()
                return
            enc = self._start(statement_type)
        enc.add(op)
        self._open_ops += 1
        if self._cut and enc.rows >= self.rows_per_frame:
            self._emit()

    def write_all(self, ops: Iterable[PatchOp]) -> None:
        """Write many operations (``END_OF_PATCH`` among them ends a patch)."""
        self._check_open()
        it = iter(ops)
        while True:
            enc = self._encoder
            if enc is None or self._flat_ended or (self._patches_ended and not self.delimited
                                                   and self.stream_type == "frame"):
                # The slow path: one at a time until the fast one applies.
                for op in it:
                    self.write(op)
                    break
                else:
                    return
                continue
            before = enc.operations
            try:
                done = enc.add_operations(it, self.rows_per_frame if self._cut else -1)
            finally:        # (a refused operation leaves those before it written)
                self._open_ops += enc.operations - before
            if done is END_OF_PATCH:
                self.end_patch()
            elif done:
                if self._cut and enc.rows >= self.rows_per_frame:
                    self._emit()
                return
            else:
                self._emit()

    def end_patch(self) -> None:
        """End the current patch (what writing ``END_OF_PATCH`` does)."""
        self._check_open()
        self._check_more()
        st = self.stream_type
        if st == "flat":
            # The one patch of the stream ends here: its frame leaves now (as jelly-jvm).
            self._flat_ended = True
            if self._encoder is None:
                self._start("triples")
            if self._cut and self._encoder is not None and self._encoder.pending:
                self._emit()
        elif st == "punctuated":
            if self._encoder is None:
                self._held.append(END_OF_PATCH)
            else:
                self._encoder.punctuation()
                if self._cut and self._encoder.rows >= self.rows_per_frame:
                    self._emit()
        else:
            if self._encoder is None:
                self._start("triples")
            if self.delimited:
                self._emit()
        self._open_ops = 0
        self._patches_ended += 1

    def flush(self) -> None:
        """End the current frame now, if it holds rows (FLAT and PUNCTUATED streams: a frame
        of a FRAME stream ends only with its patch)."""
        self._check_open()
        if self.stream_type == "frame":
            raise JellyEncodeError("in a FRAME stream a frame ends with its patch: use "
                                   "end_patch()")
        if self._cut and self._encoder is not None and self._encoder.pending:
            self._emit()

    def _emit(self) -> None:
        assert self._encoder is not None
        self._stream.write(self._encoder.take_frame(self.delimited))
        self._frames_written += 1

    def _finish(self) -> None:
        # close(): end an unfinished patch, flush the last frame
        enc = self._encoder if self._encoder is not None else self._start("triples")
        st = self.stream_type
        if st == "frame":
            # Each frame is a patch: an empty stream has no frame at all.
            if self._open_ops or (not self.delimited and self._patches_ended):
                self._emit()
        else:
            if st == "punctuated" and self._open_ops:
                enc.punctuation()
            if enc.pending or self._frames_written == 0:
                self._emit()

    @property
    def options(self) -> PatchOptions | None:
        """The options of the stream, or ``None`` while the statement type is not known yet
        (``rdf_star`` automatic is settled when the first frame leaves)."""
        return self._encoder.options if self._encoder is not None else None

    @property
    def frames_written(self) -> int:
        return self._frames_written

    @property
    def operations_written(self) -> int:
        """Operations encoded so far (``END_OF_PATCH`` not counted)."""
        return self._encoder.operations if self._encoder is not None else 0


@overload
def serialize(ops: Iterable[PatchOp], destination: None = None,
              options: PatchOptions | None = None, **writer_options: Any) -> bytes: ...


@overload
def serialize(ops: Iterable[PatchOp], destination: Output,
              options: PatchOptions | None = None, **writer_options: Any) -> None: ...


def serialize(ops: Iterable[PatchOp], destination: Output | None = None,
              options: PatchOptions | None = None, **writer_options: Any) -> bytes | None:
    """Write operations as a Jelly-Patch stream (see :class:`PatchWriter` for the options);
    returns the bytes when ``destination`` is None."""
    with PatchWriter(destination, options, **writer_options) as writer:
        writer.write_all(ops)
    return writer.getvalue() if destination is None else None


#: The names of the statement types and of the patch stream types.
STATEMENT_TYPES = tuple(PATCH_STATEMENT_TYPES)
STREAM_TYPES = tuple(PATCH_STREAM_TYPES)
