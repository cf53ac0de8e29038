# Lookup tables: the decode side (names, prefixes, datatypes and the IRI cache) and the encode
# side (LRU tables and the IRI split cached on IRI objects).
from libc.stdint cimport uint32_t, uint64_t


cdef class DecodeTables:
    # Declared sizes (from the stream options) and allocated sizes: storage grows with the
    # entries a stream actually defines, never with what its options declare.
    cdef uint32_t n_names, n_prefixes, n_datatypes
    cdef uint64_t cap_names, cap_prefixes, cap_datatypes
    # Entry rows applied so far: the dense storage holds at most DENSE_PER_ENTRY slots per
    # entry (plus a start); an id beyond that goes to ``sparse`` (key: slot * 4 + table), so a
    # few entries with huge ids cannot make the tables large.
    cdef uint64_t entries
    cdef dict sparse
    cdef list names          # slot -> str (None: never defined); slot 0 unused
    cdef list prefixes       # slot -> str; slot 0 is "" (no prefix)
    cdef list datatypes      # slot -> the factory's datatype object, False for xsd:string
    # IRI cache: per name slot, the IRI built with prefix slot cache_pid at generation
    # cache_gen of that prefix slot; a rewritten prefix slot bumps prefix_gen.
    cdef list iri_cache
    cdef long long* cache_pid
    cdef unsigned long long* cache_gen
    cdef unsigned long long* prefix_gen
    # Delta state of entry ids and IRI references.
    cdef uint32_t last_name_entry, last_prefix_entry, last_datatype_entry
    cdef uint32_t last_name_id
    # 64 bits: a value above any uint32 id can say "not known" (TermDecoder.unknown_past)
    cdef uint64_t last_prefix_id

    cdef int reset(self, uint32_t names, uint32_t prefixes, uint32_t datatypes) except -1
    cdef int grow_names(self, uint32_t slot) except -1
    cdef int grow_prefixes(self, uint32_t slot) except -1
    cdef int grow_datatypes(self, uint32_t slot) except -1
    cdef int set_name(self, uint32_t slot, str value) except -1
    cdef int set_prefix(self, uint32_t slot, str value) except -1
    cdef int set_datatype(self, uint32_t slot, object value) except -1
    cdef bint dense_ok(self, uint32_t slot) noexcept
    # table: 0 names, 1 prefixes, 2 datatypes (the ENTRY_* numbers of _termdecoder)
    cdef object sparse_get(self, int table, uint32_t slot)
    cdef int migrate(self, int table, uint64_t cap) except -1


cdef class EncodeTable:
    """An LRU table of strings -> slots 1..size, with entry-id delta bookkeeping."""
    cdef uint32_t size, used, head, tail, last_id
    cdef uint64_t cap          # slots allocated (grown as they are used, up to size + 1)
    cdef dict slots
    cdef list keys
    cdef uint32_t* prev
    cdef uint32_t* next
    cdef uint64_t* gen
    cdef uint64_t* epoch

    cdef uint32_t find(self, str key, uint64_t epoch) except? 0
    cdef uint32_t assign(self, str key, uint64_t epoch) except 0
    cdef int clear(self) except -1
    cdef int grow(self, uint64_t cap) except -1


cdef inline void et_touch(EncodeTable t, uint32_t slot, uint64_t epoch) noexcept:
    # Move slot to the head (most recently used) of t's list.  Inline here, in the .pxd, so
    # that the term encoders of other modules, which touch a slot for most terms, get it
    # inlined rather than through a method call.
    t.epoch[slot] = epoch
    if t.head == slot:
        return
    cdef uint32_t p = t.prev[slot], n = t.next[slot]
    if p:
        t.next[p] = n
    if n:
        t.prev[n] = p
    if t.tail == slot:
        t.tail = p
    t.prev[slot] = 0
    t.next[slot] = t.head
    if t.head:
        t.prev[t.head] = slot
    t.head = slot
    if t.tail == 0:
        t.tail = slot


cdef class IriSplit:
    """An IRI split into prefix and name, with the slots it last resolved to (as a name and as
    a datatype)."""
    cdef str prefix
    cdef str name
    cdef uint32_t prefix_slot
    cdef uint64_t prefix_gen
    cdef uint32_t name_slot
    cdef uint64_t name_gen
    cdef uint32_t dt_slot
    cdef uint64_t dt_gen
