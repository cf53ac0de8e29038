# cython: language_level=3, boundscheck=False, wraparound=False
"""Line-based text input, shared by the N-Triples / N-Quads codec (``_ntriples``) and the RDF
Patch text reader (``_rdfpatch``): a binary stream in blocks of whole lines, the parser state
and loop over them (``LineParser``, ``parse_lines``), and RDF message boundaries
(``# @message`` lines) as the ``MESSAGE`` marker, which ``UntilMessage`` cuts a stream of
statements at."""

cimport cython
from cpython.bytearray cimport PyByteArray_AS_STRING, PyByteArray_GET_SIZE

from ._terms cimport BlankNode, Triple, make_bnode, make_triple
from .errors import JellyDecodeError, RdfSyntaxError
from .io import READ_ERRORS

__all__ = ["MESSAGE", "UntilMessage", "ScopedBlankNodes", "line_blocks", "parse_lines"]


@cython.final
cdef class _MessageMarker:
    """Type of the ``MESSAGE`` sentinel."""

    def __repr__(self):
        return "MESSAGE"

    def __reduce__(self):
        return "MESSAGE"


MESSAGE = _MessageMarker()


cdef Py_ssize_t _split_point(bytearray buf, Py_ssize_t lo):
    """Index just after the last line end in buf[lo:], or 0 if none.

    A CR as the very last byte is not a split point: an LF may follow in the next chunk.
    """
    cdef const unsigned char* d = <const unsigned char*>PyByteArray_AS_STRING(buf)
    cdef Py_ssize_t i = PyByteArray_GET_SIZE(buf) - 1
    if i >= 0 and d[i] == 13:
        i -= 1
    if lo < 0:
        lo = 0
    while i >= lo and d[i] != 10 and d[i] != 13:
        i -= 1
    return i + 1 if i >= lo else 0


def line_blocks(read, Py_ssize_t chunk_size, str reader):
    """The input in blocks of whole lines: ``(buffer, n)``, the lines being ``buffer[:n]`` (the
    last line of the input may lack its line end).  The buffer may be read until the next block
    is asked for."""
    cdef bytearray pending = bytearray()
    cdef Py_ssize_t cut, before
    cdef bint eof = False
    while not eof:
        try:
            chunk = read(chunk_size)
        except READ_ERRORS as exc:
            raise JellyDecodeError(f"cannot read the input: {exc}") from None
        if not chunk:
            eof = True
            cut = PyByteArray_GET_SIZE(pending)   # the last line may lack a line end
        else:
            if not isinstance(chunk, (bytes, bytearray)):
                if isinstance(chunk, memoryview):
                    chunk = chunk.tobytes()
                else:
                    raise TypeError(f"{reader} needs a binary stream; read() returned "
                                    f"{type(chunk).__name__}")
            before = PyByteArray_GET_SIZE(pending)
            pending += chunk
            cut = _split_point(pending, before - 1)   # only the new bytes (and a held-back CR)
        if cut:
            yield pending, cut
            del pending[:cut]


cdef class LineParser:
    """Parses complete lines held in a buffer; its state (line number, caches) persists across
    buffers.  A format's parser says what a line holds (``_run``)."""

    def __cinit__(self, *args, **kwargs):
        self.line = 1
        self.at_start = True

    cdef int begin(self, bytearray buf, Py_ssize_t n) except -1:
        cdef const unsigned char* d = <const unsigned char*>PyByteArray_AS_STRING(buf)
        self.p = d
        self.end = d + n
        self.line_start = d
        if self.at_start:
            self.at_start = False
            if n >= 3 and d[0] == 0xEF and d[1] == 0xBB and d[2] == 0xBF:
                self.p = d + 3   # tolerate a UTF-8 byte order mark
        return 0

    cdef tuple step(self, Py_ssize_t limit):
        # Small batches keep the objects young: a big batch of live statements gets promoted
        # through the GC generations and triggers costly full collections.
        cdef bint done = False
        self.out = []
        err = None
        try:
            done = self._run(limit)
        except RdfSyntaxError as e:
            err = e
            done = True
        out = self.out
        self.out = None
        return out, err, done

    cdef int _run(self, Py_ssize_t limit) except -1:
        raise NotImplementedError


def parse_lines(read, LineParser parser, Py_ssize_t chunk_size, Py_ssize_t batch, str reader):
    """The items ``parser`` finds in the input that ``read(n)`` gives, ``chunk_size`` bytes at a
    time, parsed ``batch`` items at a time; a syntax error is raised after the items of the
    lines before it.  ``reader`` names the reader in errors."""
    cdef bint done
    cdef list out
    for pending, cut in line_blocks(read, chunk_size, reader):
        parser.begin(pending, cut)
        done = False
        while not done:
            out, err, done = parser.step(batch)
            yield from out
            if err is not None:
                raise err


@cython.final
cdef class UntilMessage:
    """The statements of a parse (an iterator of statements and ``MESSAGE`` items) up to the
    next ``MESSAGE`` or the end: one RDF message of a message log.  Afterwards ``delimited``
    says that it stopped at a delimiter (which it consumed) and ``ended`` that the input ended.
    Iterating costs no Python frame per statement; a consumer with a loop of its own that
    stops at ``MESSAGE`` (``Writer.write_until``) can take :attr:`items` and report back with
    :meth:`settle`, and save a call per statement."""

    cdef object _it
    cdef readonly bint delimited
    cdef readonly bint ended

    def __init__(self, items):
        self._it = iter(items)

    def __iter__(self):
        return self

    @property
    def items(self):
        """The iterator being cut (statements and ``MESSAGE`` items)."""
        return self._it

    def settle(self, bint stopped):
        """A consumer of :attr:`items` stopped at a ``MESSAGE`` (it consumed it) or at the end."""
        if stopped:
            self.delimited = True
        else:
            self.ended = True

    def __next__(self):
        if self.delimited or self.ended:
            raise StopIteration
        try:
            item = next(self._it)
        except StopIteration:
            self.ended = True
            raise
        if item is MESSAGE:
            self.delimited = True
            raise StopIteration
        return item


@cython.final
cdef class ScopedBlankNodes:
    """The statements of ``statements`` with ``prefix`` before every blank node label (in
    quoted triples too): one RDF message's labels, which name nodes of that message only,
    made distinct from every other message's.  Statements without a blank node pass as they
    are; no Python frame per statement."""

    cdef object _it
    cdef str _prefix

    def __init__(self, statements, str prefix):
        self._it = iter(statements)
        self._prefix = prefix

    def __iter__(self):
        return self

    def __next__(self):
        st = next(self._it)
        for t in st:
            if type(t) is BlankNode or type(t) is Triple:
                return tuple([self._term(x) for x in st])
        return st

    cdef object _term(self, object t):
        if type(t) is BlankNode:
            return make_bnode(self._prefix + (<BlankNode>t).value)
        if type(t) is Triple:
            return make_triple(self._term((<Triple>t).s), self._term((<Triple>t).p),
                               self._term((<Triple>t).o))
        return t
