# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Jena's RDF Binary, the part RDF Thrift and RDF Protobuf share: the term model.

``JenaDecoder`` is the base of both readers.  A reader parses the wire form of each row and
hands the parts here: IRIs, prefixed names and blank nodes go through a cache keyed by their
bytes (a repeated IRI costs a hash and a memcmp, not a decode), literals and the value forms
(``valInteger`` / ``valDouble`` / ``valDecimal``, read into the canonical lexical form of their
XSD type) are built by the TermFactory, ``REPEAT`` takes the term of the previous row, and
complete statements go to the StatementSink.  Input is fed in pieces (``feed``): a row cut off
by the end of a piece is read again when more bytes come, so memory is bounded by the largest
row.

``JenaEncoder`` is the base of both writers: it classifies each term (IRI or prefixed name,
blank node, literal or value form, quoted triple, ``REPEAT``, ``UNDEF``) and leaves the bytes
to the encoding.
"""

cimport cython
from libc.stdint cimport uint32_t, uint64_t, int64_t, int32_t, INT64_MIN
from libc.string cimport memcmp, memcpy
from libc.stdio cimport snprintf
from cpython.buffer cimport PyObject_GetBuffer, PyBuffer_Release, PyBUF_SIMPLE
from cpython.list cimport PyList_GET_ITEM
from cpython.tuple cimport PyTuple_GET_SIZE, PyTuple_GET_ITEM
from cpython.unicode cimport PyUnicode_AsUTF8AndSize

cdef extern from "Python.h":
    int PyGC_Enable()
    int PyGC_Disable()
    object PyUnicode_FromStringAndSize(const char* s, Py_ssize_t n)

from ._buffer cimport WireReader, WriteBuffer, wb_init, wb_free, wb_take, utf8_of
from ._sink cimport TermFactory, StatementSink, term_factory, statement_sink
from ._terms cimport IRI, BlankNode, Literal, Triple, DefaultGraph
from ._xsdvalues cimport integer_value, decimal_value, double_value
from ._xsdvalues import decimal_lexical, double_lexical

from .errors import (JellyDecodeError, JellyEncodeError, JellyError, JellyLimitError,
                     JellyTruncatedError)
from .options import DEFAULT_LIMITS, check_quoted_depth

XSD = "http://www.w3.org/2001/XMLSchema#"
XSD_STRING = XSD + "string"
XSD_INTEGER = XSD + "integer"
XSD_DECIMAL = XSD + "decimal"
XSD_DOUBLE = XSD + "double"
RDF_LANGSTRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"

#: IRIs Jena uses for the default graph (Quad.defaultGraphNodeGenerated, Quad.defaultGraphIRI):
#: Jena's RDF Protobuf writer writes default-graph quads with the first as their graph.
JENA_DEFAULT_GRAPHS = ("urn:x-arq:DefaultGraphNode", "urn:x-arq:DefaultGraph")

#: Row kinds, in the order of ``JenaDecoder.row_counts``.
ROW_KINDS = ("prefix", "triple", "quad", "base", "variables", "data")
_TERM_NAMES = {T_IRI: "iri", T_BNODE: "bnode", T_LITERAL: "literal",
               T_PREFIXNAME: "prefixName", T_VARIABLE: "variable", T_ANY: "any",
               T_UNDEFINED: "undefined", T_REPEAT: "repeat", T_TRIPLE: "tripleTerm",
               T_INTEGER: "valInteger", T_DOUBLE: "valDouble", T_DECIMAL: "valDecimal"}
_POSITIONS = ("subject", "predicate", "object", "graph")

#: Largest |scale| of a valDecimal read (its lexical form has about that many digits).
MAX_DECIMAL_SCALE = 4096


class _Truncated(Exception):
    """A row runs past the end of the bytes fed so far (internal: more input is read)."""


#: What a reader reads for RDF_REPEAT (the previous row's term) and RDF_UNDEF (no value).
REPEAT = object()
UNDEF = object()
cdef object _NOT_STRING = object()      # datatype_iri of xsd:string (a simple literal)
cdef object _LANGSTRING = object()      # datatype_iri of rdf:langString


# ------------------------------------------------------------------ the byte-keyed cache

cdef inline uint64_t _hash(const unsigned char* p, Py_ssize_t n, uint64_t h) noexcept nogil:
    # 8 bytes per multiply (the last 8 read overlapping, not padded through memory), mixed at
    # the end: IRIs are long and share their first bytes, so every byte counts but none may
    # cost much.
    cdef uint64_t w
    cdef const unsigned char* last = p + n - 8
    h ^= <uint64_t>n * 0x9E3779B97F4A7C15ULL
    if n >= 8:
        while p < last:
            memcpy(&w, p, 8)
            h = (h ^ w) * 0x100000001B3ULL
            p += 8
        memcpy(&w, last, 8)
        h = (h ^ w) * 0x100000001B3ULL
    else:
        while n > 0:
            h = (h ^ p[0]) * 0x100000001B3ULL
            p += 1
            n -= 1
    h ^= h >> 32
    h *= 0xD6E8FEB86659FD93ULL
    return h ^ (h >> 29)


cdef str bad_direction(str language):
    """What is wrong with ``language``, a language tag with a base direction ("en--ltr"), or
    None: the direction is ``ltr`` or ``rtl`` (as RDF 1.2 and Jena's ``TextDirection`` say),
    after a tag."""
    cdef Py_ssize_t at = language.rfind("--")
    cdef str direction = language[at + 2:]
    if direction != "ltr" and direction != "rtl":
        return f"invalid base direction {direction!r} in {language!r} (it is 'ltr' or 'rtl')"
    if at == 0 or "--" in language[:at]:
        return f"invalid base direction in {language!r}: it follows a language tag"
    return None


cdef class JenaDecoder(WireReader):
    """Reading state of one RDF Binary stream (see the module docstring)."""

    def __init__(self, *, mode="rdf", limits=None, terms="native", output="tuples",
                 bint quads=False):
        cdef TermFactory tf = term_factory(terms)
        WireReader.__init__(self)
        if mode not in ("rdf", "results"):
            raise ValueError(f"mode must be 'rdf' or 'results', not {mode!r}")
        if output == "columns" and not quads:
            raise ValueError("output='columns' needs quads=True (every statement with a graph)")
        limits = limits if limits is not None else DEFAULT_LIMITS
        self.mode = MODE_RESULTS if mode == "results" else MODE_RDF
        self.terms = tf
        self.sink = statement_sink(output, tf)
        self.default_graph = tf.default_graph
        self.as_quads = quads
        self.dt_integer = tf.datatype(XSD_INTEGER)
        self.dt_decimal = tf.datatype(XSD_DECIMAL)
        self.dt_double = tf.datatype(XSD_DOUBLE)
        self.max_row = limits.max_frame_size
        self.max_depth = limits.max_quoted_depth
        self.max_nesting = 2 * self.max_depth + 16
        self.prefixes = {}
        self.dtcache = {}
        self.namespaces_out = []
        self.rows_out = []
        self.variables = None
        self.base_iri = None
        self.mterm = [None, None, None, None]
        self.forget_rows()
        self.ckey1 = [None] * CACHE_SLOTS
        self.ckey2 = [None] * CACHE_SLOTS
        self.cval = [None] * CACHE_SLOTS
        for i in range(CACHE_SLOTS):
            self.ckeys[i].kind = 0
        self.failed = None

    # ------------------------------------------------------------------ errors

    cdef int fail(self, const unsigned char* at, str message, type cls=JellyDecodeError) except -1:
        # No frames in these formats: the position is the byte offset and the row.
        raise cls(message, offset=self.offset_of(at), row=self.row_index)

    cdef int short(self, const unsigned char* at) except -1:
        """The row being read runs past the bytes fed so far."""
        if self.final:
            self.fail(self.row_start, "the input ends inside a row (truncated)",
                      JellyTruncatedError)
        if at - self.row_start >= self.max_row:
            self.fail(self.row_start, f"row larger than the limit of {self.max_row} bytes "
                                      f"(ReaderLimits.max_frame_size)", JellyLimitError)
        raise _Truncated()

    cdef int whole_row(self, const unsigned char* start, const unsigned char* end) except -1:
        """A row read whole (RDF Thrift has no length prefix) is within the limit: checked
        before it changes the stream, so the limit does not depend on how the input was cut
        into pieces."""
        if end - start > self.max_row:
            self.fail(start, f"row of {end - start} bytes is larger than the limit of "
                             f"{self.max_row} bytes (ReaderLimits.max_frame_size)",
                      JellyLimitError)
        return 0

    cdef object locate(self, object exc):
        if isinstance(exc, JellyError):
            if exc.offset is None:
                exc.offset, exc.row = self.offset_of(self.row_start), self.row_index
                exc.args = (exc._describe(),)
        else:
            exc = JellyDecodeError(f"cannot decode row: {exc!r}",
                                   offset=self.offset_of(self.row_start), row=self.row_index)
        self.failed = exc
        return exc

    # ------------------------------------------------------------------ rows

    cdef void forget_rows(self) noexcept:
        """Stop reusing the previous row's terms (its bytes may be gone, or mean another term
        after a prefix declaration)."""
        cdef int k
        for k in range(4):
            self.mlen[k] = -1

    cdef const unsigned char* next_row(self, const unsigned char* p,
                                       const unsigned char* end) except NULL:
        raise NotImplementedError

    def feed(self, data, Py_ssize_t start=0, Py_ssize_t offset=0, bint final=True,
             Py_ssize_t max_statements=-1):
        """Decode the rows of ``data[start:]`` (``offset``: where ``data`` starts in the stream,
        for errors).  Stops after ``max_statements`` statements or result rows (-1: no limit), at
        the end of the data, or - unless ``final`` says the data ends the stream - at a row that
        the end of the data cuts off (``need_more`` is then true).  Returns the position after the
        last row decoded; take the results with :meth:`take`."""
        cdef Py_buffer view
        cdef const unsigned char* p
        cdef const unsigned char* end
        cdef int gc_was_enabled
        if self.failed is not None:
            raise self.failed
        PyObject_GetBuffer(data, &view, PyBUF_SIMPLE)
        if start < 0 or start > view.len:
            PyBuffer_Release(&view)
            raise ValueError("start is outside the data")
        self.base = <const unsigned char*>view.buf
        self.base_offset = offset
        self.final = final
        self.need_more = False
        self.forget_rows()
        p = self.base + start
        end = self.base + view.len
        gc_was_enabled = PyGC_Disable()
        try:
            while p < end:
                self.row_start = p
                p = self.next_row(p, end)
                self.row_index += 1
                if max_statements >= 0 and (self.sink.pending + len(self.rows_out)
                                            >= max_statements):
                    break
        except _Truncated:
            self.need_more = True
        except Exception as exc:
            exc = self.locate(exc)
            if not self.sink.pending and not self.rows_out:
                raise exc
            # The rows before it are given first (as the Jelly reader gives the frames before
            # a broken one): this call ends at the broken row, and the next raises.
            p = self.row_start
        finally:
            self.consumed = offset + (p - self.base)
            if gc_was_enabled:
                PyGC_Enable()
            PyBuffer_Release(&view)
            self.base = NULL
        return p - (<const unsigned char*>view.buf)

    def take(self):
        """The statements (or, for result sets, the rows) decoded since the last call."""
        cdef list rows
        if self.mode == MODE_RESULTS:
            rows = self.rows_out
            self.rows_out = []
            return rows
        self.named = 0
        return self.sink.take(self.as_quads)

    def take_namespaces(self):
        """The prefix declarations ``(prefix, IRI term)`` read since the last call."""
        cdef list out = self.namespaces_out
        self.namespaces_out = []
        return out

    @property
    def need_more(self):
        """True when the last :meth:`feed` stopped at a row cut off by the end of its data."""
        return self.need_more

    @property
    def pending(self):
        """Statements or result rows decoded and not yet taken."""
        return self.sink.pending + len(self.rows_out)

    @property
    def named_graph_statements(self):
        """Statements in named graphs among those not yet taken."""
        return self.named

    @property
    def bytes_read(self):
        """Bytes of the stream decoded so far (up to the end of the last complete row)."""
        return self.consumed

    @property
    def rows_read(self):
        """Rows decoded so far."""
        return self.row_index

    @property
    def row_counts(self):
        """Rows decoded so far by kind: ``{"prefix": 2, "triple": 10, ...}``."""
        return {k: self.counts[i] for i, k in enumerate(ROW_KINDS)}

    @property
    def namespaces(self):
        """Every prefix declared so far: ``{prefix: namespace}``."""
        return dict(self.prefixes)

    # ------------------------------------------------------------------ terms

    cdef object cached(self, int kind, const unsigned char* p1, Py_ssize_t n1,
                       const unsigned char* p2, Py_ssize_t n2, const unsigned char* at):
        """The term (or datatype) read from these bytes: from the cache, or built and kept."""
        cdef uint64_t h = _hash(p1, n1, 0xCBF29CE484222325ULL ^ <uint64_t>kind)
        cdef Py_ssize_t i
        cdef CacheKey* key
        cdef object term
        if p2 != NULL:
            h = _hash(p2, n2, h)
        i = <Py_ssize_t>(h & (CACHE_SLOTS - 1))
        key = &self.ckeys[i]
        if key.hash == h and key.kind == kind and key.n1 == n1 and key.n2 == n2 and \
                memcmp(key.p1, p1, n1) == 0 and (p2 == NULL or memcmp(key.p2, p2, n2) == 0):
            return <object>PyList_GET_ITEM(self.cval, i)
        s1 = self.string(p1, p1 + n1)
        s2 = self.string(p2, p2 + n2) if p2 != NULL else None
        term = self.build(kind, <str>s1, <str>s2, at)
        # The key's UTF-8 bytes: those of the strs, which the cache keeps alive.
        key.kind = 0
        self.ckey1[i] = s1
        self.ckey2[i] = s2
        self.cval[i] = term
        key.p1 = PyUnicode_AsUTF8AndSize(s1, &key.n1)
        if p2 != NULL:
            key.p2 = PyUnicode_AsUTF8AndSize(s2, &key.n2)
        else:
            key.p2 = NULL
            key.n2 = 0
        key.hash = h
        key.kind = kind
        return term

    cdef object build(self, int kind, str s1, str s2, const unsigned char* at):
        cdef object ns
        if kind == T_PREFIXNAME or kind == C_DTPREFIX:
            ns = self.prefixes.get(s1)
            if ns is None:
                self.fail(at, f"prefixed name {s1}:{s2} uses an undeclared prefix {s1!r}")
            if kind == T_PREFIXNAME:
                return self.iri_term(<str>ns + s2)
            return self.datatype_iri(<str>ns + s2)
        if kind == T_IRI:
            return self.iri_term(s1)
        if kind == T_BNODE:
            return self.terms.bnode(s1)
        if kind == C_LANG:
            return s1
        return self.datatype_iri(s1)

    cdef object iri_term(self, str iri):
        # Jena's default graph IRIs: one term object each, so that statement() knows them.
        if iri == "urn:x-arq:DefaultGraphNode":
            if self.jena_dgn is None:
                self.jena_dgn = self.terms.iri(iri)
            return self.jena_dgn
        if iri == "urn:x-arq:DefaultGraph":
            if self.jena_dg is None:
                self.jena_dg = self.terms.iri(iri)
            return self.jena_dg
        return self.terms.iri(iri)

    cdef object datatype_iri(self, str iri):
        if iri == XSD_STRING:
            return _NOT_STRING
        if iri == RDF_LANGSTRING:
            return _LANGSTRING
        return self.terms.datatype(iri)

    cdef object literal(self, str lex, str lang, object datatype, const unsigned char* at):
        """A literal: ``lang`` None or a tag (empty: none); ``datatype`` None (none given) or
        from ``cached(C_DATATYPE / C_DTPREFIX, ...)``."""
        if lang is not None and len(lang) > 0:
            if datatype is not None and datatype is not _LANGSTRING:
                self.fail(at, "literal with both a language tag and a datatype")
            return self.terms.literal(lex, lang, None)
        if datatype is _LANGSTRING:
            self.fail(at, "rdf:langString literal without a language tag")
        if datatype is None or datatype is _NOT_STRING:
            return self.terms.literal(lex, None, None)
        return self.terms.literal(lex, None, datatype)

    cdef object value_integer(self, int64_t v):
        cdef char text[24]
        cdef int n = snprintf(text, 24, "%lld", <long long>v)
        return self.terms.literal(PyUnicode_FromStringAndSize(text, n), None, self.dt_integer)

    cdef object value_double(self, double v):
        return self.terms.literal(double_lexical(v), None, self.dt_double)

    cdef object value_decimal(self, int64_t v, int64_t scale, const unsigned char* at):
        if scale > MAX_DECIMAL_SCALE or scale < -MAX_DECIMAL_SCALE:
            self.fail(at, f"valDecimal scale {scale} is beyond the limit of "
                          f"{MAX_DECIMAL_SCALE}", JellyLimitError)
        return self.terms.literal(decimal_lexical(v, scale), None, self.dt_decimal)

    cdef object not_rdf(self, int kind, str name, const unsigned char* at):
        what = f"variable ?{name}" if kind == T_VARIABLE else f"RDF_Term {_TERM_NAMES[kind]}"
        self.fail(at, f"{what} is not an RDF term: it cannot appear in RDF data or results")

    cdef object triple_term(self, object s, object p, object o, const unsigned char* at):
        if s is REPEAT or p is REPEAT or o is REPEAT:
            self.fail(at, "REPEAT inside a triple term (it repeats a term of the previous row)")
        if s is UNDEF or p is UNDEF or o is UNDEF:
            self.fail(at, "UNDEF inside a triple term")
        return self.terms.triple(s, p, o)

    # ------------------------------------------------------------------ statements, results

    cdef int statement(self, object s, object p, object o, object g, bint quad,
                       const unsigned char* at) except -1:
        """A triple row, or a quad row (``g`` None when it has no graph)."""
        if s is UNDEF or p is UNDEF or o is UNDEF:
            self.fail(at, f"UNDEF as the {_POSITIONS[0 if s is UNDEF else 1 if p is UNDEF else 2]} "
                          f"of a statement")
        if s is REPEAT:
            s = self.last_s
            if s is None:
                self.fail(at, "REPEAT subject in the first statement")
        if p is REPEAT:
            p = self.last_p
            if p is None:
                self.fail(at, "REPEAT predicate in the first statement")
        if o is REPEAT:
            o = self.last_o
            if o is None:
                self.fail(at, "REPEAT object in the first statement")
        self.last_s = s
        self.last_p = p
        self.last_o = o
        if quad:
            self.counts[R_QUAD] += 1
            if g is REPEAT:
                # The previous quad's graph (a triple row has none).  With terms="nt" the
                # default graph is None: a flag, not last_g, says whether there was a quad.
                if not self.had_quad:
                    self.fail(at, "REPEAT graph before the first quad")
                g = self.last_g
            if g is None or g is UNDEF or (g is self.jena_dgn and g is not None) or \
                    (g is self.jena_dg and g is not None):
                g = self.default_graph
            self.last_g = g
            self.had_quad = True
        else:
            self.counts[R_TRIPLE] += 1
            g = self.default_graph
        if g is self.default_graph:
            if self.as_quads:
                self.sink.quad(s, p, o, g)
            else:
                self.sink.triple(s, p, o)
        else:
            self.named += 1
            self.sink.quad(s, p, o, g)
        return 0

    cdef int prefix_decl(self, str prefix, str uri) except -1:
        cdef int i
        self.counts[R_PREFIX] += 1
        self.forget_rows()
        old = self.prefixes.get(prefix)
        if old is not None and old != uri:
            # Cached prefixed names may have used the old namespace.
            for i in range(CACHE_SLOTS):
                if self.ckeys[i].kind == T_PREFIXNAME or self.ckeys[i].kind == C_DTPREFIX:
                    self.ckeys[i].kind = 0
        self.prefixes[prefix] = uri
        self.namespaces_out.append((prefix, self.terms.iri(uri)))
        return 0

    cdef int set_variables(self, list names, const unsigned char* at) except -1:
        self.counts[R_VARS] += 1
        if len(set(names)) != len(names):
            self.fail(at, "result set header names a variable twice")
        self.variables = names
        return 0

    cdef int data_row(self, list values, const unsigned char* at) except -1:
        cdef Py_ssize_t i, n = len(values)
        if n != len(self.variables):
            self.fail(at, f"result row with {n} values for {len(self.variables)} variables")
        for i in range(n):
            v = values[i]
            if v is UNDEF:
                values[i] = None
            elif v is REPEAT:
                if self.last_row is None:
                    self.fail(at, "REPEAT in the first result row")
                values[i] = self.last_row[i]
        self.counts[R_DATA] += 1
        self.last_row = values
        self.rows_out.append(tuple(values))
        return 0


# ---------------------------------------------------------------------------------- writing

cdef tuple _JELLY_TERMS = (IRI, BlankNode, Literal, Triple, DefaultGraph)


cdef inline bint _same_term(object a, object b) except -1:
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if type(a) is IRI:
        return (<IRI>a).value == (<IRI>b).value
    return a == b


cdef class JenaEncoder:
    """Writing state of one RDF Binary stream (see the module docstring)."""

    def __cinit__(self):
        self.buf.data = NULL

    def __dealloc__(self):
        wb_free(&self.buf)

    def __init__(self, *, bint values=False, bint repeat=False, bint prefix_names=False,
                 term_adapter=None, int max_quoted_depth=64):
        wb_init(&self.buf, 1 << 16)
        self.values = values
        self.repeat = repeat
        self.prefix_names = prefix_names
        self.term_adapter = term_adapter
        self.max_depth = check_quoted_depth(max_quoted_depth)
        self.namespaces = {}
        self.keep = []
        self.nvars = -1

    # ------------------------------------------------------------------ terms

    cdef int abbreviate(self, str iri, JTerm* t, bint datatype) except -1:
        """Write ``iri`` as a prefixed name if a declared namespace ends where its local name
        starts (after the last '#', '/' or ':'); returns 1 if it did."""
        cdef Py_ssize_t i = len(iri) - 1
        cdef Py_UCS4 c
        while i >= 0:
            c = iri[i]
            if c == 35 or c == 47 or c == 58:
                break
            i -= 1
        if i < 0:
            return 0
        prefix = self.namespaces.get(iri[:i + 1])
        if prefix is None:
            return 0
        local = iri[i + 1:]
        self.keep.append(local)
        if datatype:
            utf8_of(<str>prefix, &t.s3, &t.n3)
            utf8_of(<str>local, &t.s2, &t.n2)
        else:
            t.kind = T_PREFIXNAME
            utf8_of(<str>prefix, &t.s1, &t.n1)
            utf8_of(<str>local, &t.s2, &t.n2)
        return 1

    cdef object resolve(self, object term):
        """``term`` as a jelly term (through the term adapter for other libraries' terms)."""
        if type(term) in _JELLY_TERMS or term is None or self.term_adapter is None:
            return term
        native = self.term_adapter(term)
        self.keep.append(native)
        return native

    cdef int classify(self, object term, JTerm* t, object last, int depth) except -1:
        """What to write for a jelly term (``last``: the previous row's term in the same
        position, for REPEAT; None inside triple terms)."""
        cdef type tp = type(term)
        cdef Literal lit
        cdef str dt
        t.s1 = NULL
        t.n1 = 0
        t.s3 = NULL
        t.n3 = 0
        t.s2 = NULL
        t.n2 = 0
        t.lang = False
        t.langdir = False
        if last is not None and self.repeat and _same_term(term, last):
            t.kind = T_REPEAT
            return 0
        if tp is IRI:
            if self.prefix_names and self.abbreviate((<IRI>term).value, t, False):
                return 0
            t.kind = T_IRI
            return utf8_of((<IRI>term).value, &t.s1, &t.n1)
        if tp is BlankNode:
            t.kind = T_BNODE
            return utf8_of((<BlankNode>term).value, &t.s1, &t.n1)
        if tp is Literal:
            lit = <Literal>term
            t.kind = T_LITERAL
            utf8_of(lit.lex, &t.s1, &t.n1)
            if lit.language is not None:
                t.lang = True
                t.langdir = "--" in <str>lit.language      # a base direction (RDF 1.2)
                if t.langdir:
                    why = bad_direction(<str>lit.language)
                    if why is not None:
                        raise JellyEncodeError(why)
                return utf8_of(<str>lit.language, &t.s2, &t.n2)
            if lit.datatype is None:
                return 0
            dt = (<IRI>lit.datatype).value
            if self.values:
                if dt == XSD_INTEGER:
                    v = integer_value(lit.lex)
                    if v is not None:
                        t.kind = T_INTEGER
                        t.ivalue = v
                        return 0
                elif dt == XSD_DECIMAL:
                    v = decimal_value(lit.lex)
                    if v is not None:
                        t.kind = T_DECIMAL
                        t.ivalue = v[0]
                        t.scale = v[1]
                        return 0
                elif dt == XSD_DOUBLE:
                    v = double_value(lit.lex)
                    if v is not None:
                        t.kind = T_DOUBLE
                        t.dvalue = v
                        return 0
            if self.prefix_names and self.abbreviate(dt, t, True):
                return 0
            return utf8_of(dt, &t.s2, &t.n2)
        if tp is Triple:
            if depth >= self.max_depth:
                raise JellyEncodeError(f"quoted triples nested deeper than {self.max_depth}")
            t.kind = T_TRIPLE
            return 0
        if term is None:
            if depth > 0:
                raise JellyEncodeError("missing term (None) in a quoted triple")
            t.kind = T_UNDEFINED
            return 0
        if tp is DefaultGraph:
            raise JellyEncodeError("the default graph is not an RDF term")
        raise JellyEncodeError(f"not an RDF term: {term!r}")

    cdef int write_term(self, object term, object last, int depth) except -1:
        cdef JTerm t
        term = self.resolve(term)
        self.classify(term, &t, last, depth)
        return self.term_body(&t, term, depth)

    cdef int term_body(self, JTerm* t, object term, int depth) except -1:
        raise NotImplementedError

    # ------------------------------------------------------------------ rows (per encoding)

    cdef int triple_row(self, object s, object p, object o) except -1:
        raise NotImplementedError

    cdef int quad_row(self, object s, object p, object o, object g) except -1:
        raise NotImplementedError

    cdef int prefix_row(self, str prefix, str iri) except -1:
        raise NotImplementedError

    cdef int base_row(self, str iri) except -1:
        raise JellyEncodeError("this encoding has no base row")

    cdef int vars_row(self, list names) except -1:
        raise NotImplementedError

    cdef int data_row(self, list values) except -1:
        raise NotImplementedError

    cdef int add_one(self, object st) except -1:
        return self.write_row(R_TRIPLE, st, None)

    cdef int write_row(self, int kind, object a, object b) except -1:
        """Write one row: a statement ``a`` (R_TRIPLE), a prefix declaration ``a`` ``b``, a
        base ``a``, the variables or a result row ``a``.  A row refused halfway leaves
        nothing of it behind, so the stream stays readable for a program that catches the
        error and writes on."""
        cdef Py_ssize_t start = self.buf.len
        try:
            if kind == R_TRIPLE:
                self.statement_row(a)
            elif kind == R_PREFIX:
                self.prefix_row(a, b)
            elif kind == R_BASE:
                self.base_row(a)
            elif kind == R_VARS:
                self.vars_row(a)
            else:
                self.data_row(a)
        except BaseException:
            self.buf.len = start
            raise
        return 0

    cdef int statement_row(self, object st) except -1:
        cdef Py_ssize_t n, i
        cdef object g
        if type(st) is not tuple:
            try:
                st = tuple(st)
            except TypeError:
                raise JellyEncodeError(f"a statement must be a tuple (s, p, o) or (s, p, o, g), "
                                       f"not {type(st).__name__}") from None
        n = PyTuple_GET_SIZE(st)
        if n != 3 and n != 4:
            raise JellyEncodeError(f"a statement must have 3 or 4 terms, not {n}")
        if self.nvars >= 0:
            raise JellyEncodeError("a result set stream holds result rows, not statements")
        self.keep.clear()
        for i in range(3):
            if <object>PyTuple_GET_ITEM(st, i) is None:
                raise JellyEncodeError(f"missing term (None) as the {_POSITIONS[i]}")
        if n == 4:
            g = <object>PyTuple_GET_ITEM(st, 3)
            if g is not None and type(g) is not DefaultGraph and not (
                    self.term_adapter is not None and
                    type(self.term_adapter(g)) is DefaultGraph):
                self.quad_row(<object>PyTuple_GET_ITEM(st, 0), <object>PyTuple_GET_ITEM(st, 1),
                              <object>PyTuple_GET_ITEM(st, 2), g)
                self.rows += 1
                self.statements += 1
                return 0
        self.triple_row(<object>PyTuple_GET_ITEM(st, 0), <object>PyTuple_GET_ITEM(st, 1),
                        <object>PyTuple_GET_ITEM(st, 2))
        self.rows += 1
        self.statements += 1
        return 0

    # ------------------------------------------------------------------ Python API

    def add(self, statement):
        """Write one statement: ``(s, p, o)`` or ``(s, p, o, g)`` (a graph of ``None`` or the
        default graph writes a triple row)."""
        self.add_one(statement)

    def add_statements(self, iterator, Py_ssize_t max_bytes=-1, stop=None):
        """Write statements from ``iterator`` until it ends (returns True), the output holds at
        least ``max_bytes`` (returns False; the iterator is left where it stopped), or it
        yields ``stop`` (returned)."""
        cdef object st
        it = iter(iterator)
        while max_bytes < 0 or self.buf.len < max_bytes:
            try:
                st = next(it)
            except StopIteration:
                return True
            if st is stop and stop is not None:
                return stop
            self.add_one(st)
        return False

    def declare_prefix(self, str prefix, iri):
        """Write a prefix declaration row; with ``prefix_names``, later IRIs in that namespace
        are written as prefixed names."""
        if self.nvars >= 0:
            raise JellyEncodeError("a result set stream has no prefix declarations")
        if isinstance(iri, str):            # also rdflib's URIRef
            value = iri
        elif type(iri) is IRI:
            value = (<IRI>iri).value
        else:
            native = self.term_adapter(iri) if self.term_adapter is not None else None
            if type(native) is not IRI:
                raise JellyEncodeError(f"a namespace must be an IRI, not {iri!r}")
            value = (<IRI>native).value
        self.keep.clear()
        self.write_row(R_PREFIX, prefix, value)
        self.rows += 1
        if self.prefix_names:
            for ns, p in list(self.namespaces.items()):
                if p == prefix:
                    del self.namespaces[ns]
            self.namespaces[value] = prefix

    def write_base(self, str iri):
        """Write a base IRI row (RDF Protobuf only)."""
        self.write_row(R_BASE, iri, None)
        self.rows += 1

    def write_variables(self, names):
        """Write the header of a result set: its variable names (without '?')."""
        cdef list ns = [n if isinstance(n, str) else str(n) for n in names]
        if self.nvars >= 0:
            raise JellyEncodeError("the result set header was already written")
        if self.rows:
            raise JellyEncodeError("the result set header must come first")
        self.write_row(R_VARS, ns, None)
        self.nvars = len(ns)
        self.rows += 1

    def add_rows(self, iterator, Py_ssize_t max_bytes=-1):
        """Write result rows (sequences of terms, ``None`` for unbound) until ``iterator`` ends
        (returns True) or the output holds at least ``max_bytes`` (returns False)."""
        cdef list values
        if self.nvars < 0:
            raise JellyEncodeError("write the result set header (write_variables) first")
        it = iter(iterator)
        while max_bytes < 0 or self.buf.len < max_bytes:
            try:
                values = list(next(it))
            except StopIteration:
                return True
            if len(values) != self.nvars:
                raise JellyEncodeError(f"result row with {len(values)} values for "
                                       f"{self.nvars} variables")
            self.keep.clear()
            self.write_row(R_DATA, values, None)
            self.rows += 1
        return False

    def take(self):
        """The bytes written since the last call."""
        return wb_take(&self.buf, False)

    @property
    def size(self):
        """Bytes written and not yet taken."""
        return self.buf.len
