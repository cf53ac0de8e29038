# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The Jelly term encoding, encode side, shared by Jelly-RDF and Jelly-Patch.

Each row's terms are encoded in two passes (quoted triples included, in the order the spec
fixes for IRI deltas): the first resolves every term to lookup slots, emitting the lookup entry
rows that must precede the row, and records what to write in a small C array (the plan); the
second writes the row.  Lookups are LRU tables.  A slot that the current row already uses is
never evicted (tables too small for one row are an error, not a corrupt stream), and a refused
row leaves the stream valid.
"""

from libc.stdint cimport uint32_t, uint64_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy

from ._wire cimport K_NONE, K_IRI, K_BNODE, K_LITERAL, K_TRIPLE, K_DEFAULT
from ._buffer cimport (WriteBuffer, wb_init, wb_free, wb_ensure, wb_byte, wb_varint, wb_open,
                       wb_close, wb_string_field, utf8_of)
from ._lookup cimport EncodeTable, IriSplit, et_touch
from ._terms cimport IRI, BlankNode, Literal, Triple, DefaultGraph

from ._lookup import TableFull
from .errors import JellyEncodeError

cdef tuple _POS_NAMES = ("subject", "predicate", "object", "graph", "graph")

# Each encoder gets an id, so that the split cached on an IRI object is known to be its own.
cdef unsigned long long _next_encoder_id = 0


cdef inline bint _same_term(object a, object b) except -1:
    # Equality for the repeated-term check, without a Python-level __eq__ call for the usual
    # cases (the same object, or two IRIs).
    if a is b:
        return True
    cdef type ta = type(a)
    if ta is not type(b):
        return False
    if ta is IRI:
        return (<IRI>a).value == (<IRI>b).value
    if ta is BlankNode:
        return (<BlankNode>a).value == (<BlankNode>b).value
    return a == b


def _table_full_message(names):
    what = "IRI names" if names else "datatypes"
    return (f"one statement uses more distinct {what} than the lookup table holds "
            f"(deeply nested quoted triples?); use a larger table")


cdef int _check_language(const char* tag, Py_ssize_t n) except -1:
    # An RDF 1.2 directional language tag ("en--ltr", as the N-Triples parser keeps it): Jelly
    # 1.1 has no field for the base direction, and writing the tag alone would lose it.  The
    # scan runs over the tag's UTF-8 bytes, which the row needs anyway: a few instructions.
    cdef Py_ssize_t i
    for i in range(1, n):
        if tag[i] == b'-' and tag[i - 1] == b'-':
            raise JellyEncodeError(
                f"the literal's language tag {tag[:n].decode('utf-8', 'replace')!r} has a base "
                f"direction (RDF 1.2 directional language-tagged string), which Jelly 1.1 cannot "
                f"represent: RdfLiteral has no field for it")
    return 0


#: IRI strings whose split an encoder keeps for IRI objects it has not met (see ``split``),
#: and the lookups that judge whether they pay.
DEF _SPLITS_HELD = 1 << 16
DEF _SPLITS_TRIAL = 4096


cdef class TermEncoder:

    def __cinit__(self):
        self.buf.data = NULL
        self.plan = NULL

    def __dealloc__(self):
        wb_free(&self.buf)
        free(self.plan)

    cdef int init_terms(self, options, object term_adapter, int max_depth,
                        unsigned char name_tag) except -1:
        """Tables of the option's sizes; ``name_tag`` is the row tag of name entries (prefix and
        datatype entries follow it in every Jelly format)."""
        global _next_encoder_id
        self.rdf_star = options.rdf_star
        self.generalized = options.generalized_statements
        self.n_names = options.max_name_table_size
        self.n_prefixes = options.max_prefix_table_size
        self.n_datatypes = options.max_datatype_table_size
        self.names = EncodeTable(self.n_names)
        self.prefixes = EncodeTable(self.n_prefixes)
        self.datatypes = EncodeTable(self.n_datatypes)
        self.name_tag = name_tag
        self.prefix_tag = name_tag + 8
        self.datatype_tag = name_tag + 16
        _next_encoder_id += 1
        self.encoder_id = _next_encoder_id
        self.term_adapter = term_adapter
        self.max_depth = max_depth
        self.splits = {}
        self.dt_splits = {}
        self.use_splits = True
        self.keep = []
        wb_init(&self.buf, 1 << 16)
        self.plan_cap = 16
        self.plan = <Planned*>malloc(self.plan_cap * sizeof(Planned))
        if self.plan == NULL:
            raise MemoryError()
        return 0

    cdef int reset_state(self) except -1:
        """Start afresh: empty tables, no previous terms, explicit ids for the next entries and
        IRIs, so nothing written from here on depends on what came before."""
        global _next_encoder_id
        self.names.clear()
        self.prefixes.clear()
        self.datatypes.clear()
        _next_encoder_id += 1
        self.encoder_id = _next_encoder_id
        self.last_s = self.last_p = self.last_o = self.last_g = None
        self.last_prefix_id = 0xFFFFFFFF
        self.last_name_id = 0xFFFFFFFE
        self.last_prefix = None
        self.splits.clear()         # as the splits on IRI objects: the segment starts afresh
        self.dt_splits.clear()
        return 0

    cdef int begin_row(self) except -1:
        self.rows += 1
        return 0

    cdef int entry_row(self, unsigned char row_tag, EncodeTable table, uint32_t slot,
                       str value) except -1:
        cdef Py_ssize_t n
        cdef const char* s
        cdef Py_ssize_t row, msg
        utf8_of(value, &s, &n)
        self.begin_row()
        wb_ensure(&self.buf, 24 + n)
        wb_byte(&self.buf, 0x0A)
        row = wb_open(&self.buf)
        wb_byte(&self.buf, row_tag)
        msg = wb_open(&self.buf)
        if slot != table.last_id + 1:
            wb_byte(&self.buf, 0x08)
            wb_varint(&self.buf, slot)
        table.last_id = slot
        if n:   # proto3 leaves out empty strings
            wb_string_field(&self.buf, 0x12, s, n)
        wb_close(&self.buf, msg)
        wb_close(&self.buf, row)
        return 0

    # ------------------------------------------------------------------ resolve pass

    cdef inline Planned* push(self) except NULL:
        cdef Planned* np
        if self.plan_len == self.plan_cap:
            self.plan_cap *= 2
            np = <Planned*>realloc(self.plan, self.plan_cap * sizeof(Planned))
            if np == NULL:
                raise MemoryError()
            self.plan = np
        self.plan_len += 1
        return &self.plan[self.plan_len - 1]

    cdef IriSplit split(self, IRI iri, dict splits):
        cdef IriSplit sp
        cdef object cached
        cdef str v, last
        cdef Py_ssize_t cut
        cdef const char* u
        # The same IRI object again (decoders and parsers share them): no lookup at all.  The
        # split lives on the IRI object; an equal but distinct IRI object (what a program that
        # builds its terms gives) finds it, and the slots it resolved to, by its string in
        # ``splits``: one lookup where splitting again costs two slices and two table lookups
        # (serializing such terms took 2.7x the time of shared ones).  Where terms are shared,
        # every object met for the first time is a new IRI and the lookup only costs (up to
        # 43% of serializing quads, see docs/performance.md): the first _SPLITS_TRIAL lookups
        # judge whether it pays.  ``splits`` is the dict to look in and keep the split in
        # (None: neither): ``self.splits`` while that pays, ``dt_splits`` for datatypes.
        if iri._enc_id == self.encoder_id:
            return <IriSplit>iri._enc
        v = iri.value
        if splits is not None:
            if splits is self.splits:
                self.split_lookups += 1
            cached = splits.get(v)
            if cached is not None:
                if splits is self.splits:
                    self.split_hits += 1
                iri._enc = cached
                iri._enc_id = self.encoder_id
                return <IriSplit>cached
        # Checked before any slot is taken, so a bad IRI cannot leave a slot without its row.
        utf8_of(v, &u, &cut)
        sp = IriSplit.__new__(IriSplit)
        if self.n_prefixes == 0 or self.whole_iris:
            sp.prefix = ""
            sp.name = v
        else:
            # Split after the last '/' or '#', as jelly-jvm does.
            cut = max(v.rfind("/"), v.rfind("#")) + 1
            last = self.last_prefix
            # Runs of IRIs share a prefix: reuse its string (and cached hash) when it fits.
            if last is not None and len(last) == cut and v.startswith(last):
                sp.prefix = last
            else:
                sp.prefix = v[:cut]
                self.last_prefix = sp.prefix
            sp.name = v[cut:]
        if splits is not None:
            self.keep_split(splits, v, sp)
            if splits is self.splits and self.split_lookups == _SPLITS_TRIAL:
                self.judge_splits()
        iri._enc = sp
        iri._enc_id = self.encoder_id
        return sp

    cdef int resolve_iri(self, IRI iri, Planned* pl) except -1:
        cdef IriSplit sp
        if self.retry_whole and not self.whole_iris:
            sp = IriSplit.__new__(IriSplit)
            sp.prefix = ""
            sp.name = iri.value
        else:
            sp = self.split(iri, self.splits if self.use_splits else None)
        return self.resolve_split(sp, pl)

    cdef int keep_split(self, dict splits, str value, IriSplit sp) except -1:
        if len(splits) >= _SPLITS_HELD:
            splits.clear()          # bounded; the IRIs met since come back one by one
        splits[value] = sp
        return 0

    cdef int judge_splits(self) except -1:
        """Keep looking IRIs up by their string only where one in eight was found (terms
        that come in new objects find most: predicates, types, repeated subjects)."""
        if self.split_hits * 8 < self.split_lookups:
            self.use_splits = False
            self.splits.clear()
        return 0

    cdef int resolve_split(self, IriSplit sp, Planned* pl) except -1:
        """Plan an IRI already split into prefix and name (slots cached on ``sp`` are this
        encoder's), emitting the entry rows it needs."""
        cdef uint32_t pid = 0, nid
        if self.n_prefixes:
            if sp.prefix_slot and self.prefixes.gen[sp.prefix_slot] == sp.prefix_gen:
                pid = sp.prefix_slot
                et_touch(self.prefixes, pid, self.epoch)
            else:
                pid = self.prefixes.find(sp.prefix, self.epoch)
                if pid == 0:
                    pid = self.prefixes.assign(sp.prefix, self.epoch)
                    self.entry_row(self.prefix_tag, self.prefixes, pid, sp.prefix)
                sp.prefix_slot = pid
                sp.prefix_gen = self.prefixes.gen[pid]
        if sp.name_slot and self.names.gen[sp.name_slot] == sp.name_gen:
            nid = sp.name_slot
            et_touch(self.names, nid, self.epoch)
        else:
            nid = self.names.find(sp.name, self.epoch)
            if nid == 0:
                nid = self.names.assign(sp.name, self.epoch)
                self.entry_row(self.name_tag, self.names, nid, sp.name)
            sp.name_slot = nid
            sp.name_gen = self.names.gen[nid]
        pl.kind = K_IRI
        pl.prefix_id = 0 if pid == self.last_prefix_id else pid
        pl.name_id = 0 if nid == self.last_name_id + 1 else nid
        self.last_prefix_id = pid
        self.last_name_id = nid
        return 0

    cdef int resolve(self, object term, int pos, int depth) except -1:
        """Resolve one term (recursively for quoted triples) into the plan."""
        cdef Planned* pl
        cdef type t = type(term)
        cdef Literal lit
        cdef Triple tr
        cdef uint32_t dt
        cdef str dts
        cdef IriSplit sp
        if t is IRI:
            pl = self.push()
            self.resolve_iri(<IRI>term, pl)
            return 0
        if t is BlankNode:
            if pos == POS_P and not self.generalized:
                raise JellyEncodeError("a blank node predicate is a generalized statement; "
                                       "enable generalized_statements")
            pl = self.push()
            pl.kind = K_BNODE
            utf8_of((<BlankNode>term).value, &pl.s1, &pl.n1)
            return 0
        if t is Literal:
            lit = <Literal>term
            if pos != POS_O and not self.generalized:
                raise JellyEncodeError(
                    f"a literal in the {_POS_NAMES[pos]} position is a generalized statement; "
                    f"enable generalized_statements")
            if lit.datatype is not None:
                if self.n_datatypes == 0:
                    raise JellyEncodeError(
                        f"typed literal {lit!r} needs the datatype table, whose size is 0")
                # Datatypes are few and met again and again, each in a new object where
                # Literal(x, datatype=str) makes one: always looked up by their string.
                sp = self.split(<IRI>lit.datatype, self.dt_splits)
                if sp.dt_slot and self.datatypes.gen[sp.dt_slot] == sp.dt_gen:
                    dt = sp.dt_slot
                    et_touch(self.datatypes, dt, self.epoch)
                else:
                    dts = (<IRI>lit.datatype).value
                    dt = self.datatypes.find(dts, self.epoch)
                    if dt == 0:
                        dt = self.datatypes.assign(dts, self.epoch)
                        self.entry_row(self.datatype_tag, self.datatypes, dt, dts)
                    sp.dt_slot = dt
                    sp.dt_gen = self.datatypes.gen[dt]
            else:
                dt = 0
            pl = self.push()
            pl.kind = K_LITERAL
            pl.datatype = dt
            utf8_of(lit.lex, &pl.s1, &pl.n1)
            if lit.language is not None:
                utf8_of(<str>lit.language, &pl.s2, &pl.n2)
                _check_language(pl.s2, pl.n2)
            else:
                pl.s2 = NULL
            return 0
        if t is Triple:
            if pos == POS_G or pos == POS_GRAPH_START:
                raise JellyEncodeError("a quoted triple cannot name a graph")
            if not self.rdf_star:
                raise JellyEncodeError("quoted triple (RDF-star, or an RDF 1.2 triple term) in a "
                                       "stream whose options do not enable rdf_star")
            if pos == POS_P and not self.generalized:
                raise JellyEncodeError("a quoted triple predicate is a generalized statement; "
                                       "enable generalized_statements")
            if depth >= self.max_depth:
                raise JellyEncodeError(f"quoted triples nested deeper than {self.max_depth}")
            tr = <Triple>term
            pl = self.push()
            pl.kind = K_TRIPLE
            self.resolve(tr.s, POS_S, depth + 1)
            self.resolve(tr.p, POS_P, depth + 1)
            self.resolve(tr.o, POS_O, depth + 1)
            return 0
        if t is DefaultGraph:
            if pos != POS_G and pos != POS_GRAPH_START:
                raise JellyEncodeError("the default graph is not an RDF term")
            pl = self.push()
            pl.kind = K_DEFAULT
            return 0
        if term is None:
            raise JellyEncodeError(f"missing term (None) in the {_POS_NAMES[pos]} position")
        if self.term_adapter is not None:
            native = self.term_adapter(term)
            self.keep.append(native)
            if type(native) in (IRI, BlankNode, Literal, Triple, DefaultGraph):
                return self.resolve(native, pos, depth)
        raise JellyEncodeError(f"not an RDF term: {term!r}")

    cdef int position(self, object term, int pos, object last) except -1:
        # A term equal to the previous row's in the same position is left out (repeated).
        cdef Planned* pl
        if last is not None and _same_term(term, last):
            pl = self.push()
            pl.kind = K_NONE
            return 0
        return self.resolve(term, pos, 0)

    cdef int plan_terms(self, object s, object p, object o, object g, int n) except -1:
        if n == PLAN_GRAPH:
            return self.resolve(g, POS_GRAPH_START, 0)
        if n == PLAN_TERM or n == PLAN_TERM_GRAPH:
            self.resolve(s, POS_O, 0)
            if n == PLAN_TERM_GRAPH:
                self.position(g, POS_G, self.last_g)
            return 0
        self.position(s, POS_S, self.last_s)
        self.position(p, POS_P, self.last_p)
        self.position(o, POS_O, self.last_o)
        if n == 4:
            self.position(g, POS_G, self.last_g)
        return 0

    cdef int plan_row(self, object s, object p, object o, object g, int n) except -1:
        """Plan the terms of one row (see plan_terms for ``n``).  A refused row leaves the
        stream as it was: lookup rows emitted while planning are complete, valid table updates,
        and the IRI delta state is rolled back here."""
        cdef uint32_t lp = self.last_prefix_id, ln = self.last_name_id
        if self.keep:
            self.keep.clear()
        self.epoch += 1
        self.plan_len = 0
        try:
            self.plan_terms(s, p, o, g, n)
            return 0
        except TableFull as exc:
            self.last_prefix_id = lp
            self.last_name_id = ln
            if exc.table is not self.prefixes or self.whole_iris:
                raise JellyEncodeError(_table_full_message(exc.table is self.names)) from None
        except BaseException:
            self.last_prefix_id = lp
            self.last_name_id = ln
            raise
        # Plan again with whole IRIs (only the IRI delta state and the plan are rolled back).
        global _next_encoder_id
        self.conflicts += 1
        if self.conflicts > 8:
            self.whole_iris = True
            _next_encoder_id += 1     # a new id invalidates the splits cached on IRI objects
            self.encoder_id = _next_encoder_id
            self.splits.clear()       # and these are split otherwise
            self.dt_splits.clear()
        self.epoch += 1
        self.plan_len = 0
        self.retry_whole = True
        try:
            self.plan_terms(s, p, o, g, n)
        except TableFull as exc:
            self.last_prefix_id = lp
            self.last_name_id = ln
            raise JellyEncodeError(_table_full_message(exc.table is self.names)) from None
        except BaseException:
            self.last_prefix_id = lp
            self.last_name_id = ln
            raise
        finally:
            self.retry_whole = False
        return 0

    # ------------------------------------------------------------------ write pass

    cdef int write_term(self, int* i, int field_base, bint graph_oneof) except -1:
        """Write the plan entry at i[0] as a field of the enclosing message."""
        cdef Planned* pl = &self.plan[i[0]]
        cdef WriteBuffer* b = &self.buf
        cdef Py_ssize_t at
        cdef int j
        i[0] += 1
        wb_ensure(b, 32)
        if pl.kind == K_IRI:
            wb_varint(b, field_base << 3 | 2)
            at = wb_open(b)
            if pl.prefix_id:
                wb_byte(b, 0x08)
                wb_varint(b, pl.prefix_id)
            if pl.name_id:
                wb_byte(b, 0x10)
                wb_varint(b, pl.name_id)
            b.data[at] = <unsigned char>(b.len - at - 1)   # at most 12 bytes
        elif pl.kind == K_BNODE:
            wb_string_field(b, (field_base + 1) << 3 | 2, pl.s1, pl.n1)
        elif pl.kind == K_LITERAL:
            wb_varint(b, (field_base + (3 if graph_oneof else 2)) << 3 | 2)
            at = wb_open(b)
            if pl.n1:
                wb_string_field(b, 0x0A, pl.s1, pl.n1)
            if pl.s2 != NULL:
                wb_string_field(b, 0x12, pl.s2, pl.n2)
            elif pl.datatype:
                wb_ensure(b, 6)
                wb_byte(b, 0x18)
                wb_varint(b, pl.datatype)
            wb_close(b, at)
        elif pl.kind == K_DEFAULT:
            wb_varint(b, (field_base + 2) << 3 | 2)
            wb_byte(b, 0)
        elif pl.kind == K_TRIPLE:
            wb_varint(b, (field_base + 3) << 3 | 2)
            at = wb_open(b)
            for j in range(3):
                self.write_term(i, 1 + 4 * j, False)
            wb_close(b, at)
        return 0

    cdef int write_terms(self, int nterms) except -1:
        """Write the planned terms of a statement as the fields of an RdfTriple / RdfQuad (a
        repeated term is left out)."""
        cdef int i = 0, k
        for k in range(nterms):
            if self.plan[i].kind == K_NONE:
                i += 1
            else:
                self.write_term(&i, 1 + 4 * k, k == 3)
        return 0
