# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Lookup tables of the Jelly term encoding (shared by Jelly-RDF and Jelly-Patch).

Decode side: the name, prefix and datatype tables of a stream and a cache of the IRIs built from
them.  An IRI is cached per name slot together with the prefix slot and that prefix slot's
generation, so a repeated IRI costs two integer comparisons, and a rewritten prefix or name
slot invalidates exactly the IRIs that used it.  Storage grows with the entries the stream
defines (doubling), never with the sizes its options declare; an id far beyond the entries
defined so far is kept in a dict instead, so a few bytes of input can never make the reader
allocate much, whatever the limits.

Encode side: LRU tables (a doubly linked list over slots plus a dict from string to slot) and
the split of an IRI into prefix and name, which the encoder caches on the IRI object.
"""

cimport cython
from libc.stdint cimport uint32_t, uint64_t
from libc.stdlib cimport malloc, realloc, free

# First allocation of a decode table, in slots (grown by doubling up to the declared size).
DEF INITIAL_SLOTS = 64
# Dense slots allowed per entry row applied: an encoder that assigns ids in order (every
# known one does) always stays dense; ids far beyond the entries seen go to a dict.
DEF DENSE_PER_ENTRY = 4

# Tables, as the low bits of a sparse key.
cdef enum:
    T_NAME = 0
    T_PREFIX = 1
    T_DATATYPE = 2


# In 64 bits: a table declared with 2**32 - 1 slots has 2**32 of them (slot 0 unused).
cdef uint64_t _first_cap(uint64_t declared) noexcept:
    return declared + 1 if declared + 1 < INITIAL_SLOTS else INITIAL_SLOTS


cdef uint64_t _grown(uint64_t cap, uint64_t slot, uint64_t declared) noexcept:
    # A capacity holding ``slot``: doubled until it does, at most declared + 1.
    while cap <= slot:
        cap *= 2
    return cap if cap < declared + 1 else declared + 1


cdef class DecodeTables:

    def __cinit__(self):
        self.cache_pid = NULL
        self.cache_gen = NULL
        self.prefix_gen = NULL

    def __dealloc__(self):
        free(self.cache_pid)
        free(self.cache_gen)
        free(self.prefix_gen)

    cdef int reset(self, uint32_t names, uint32_t prefixes, uint32_t datatypes) except -1:
        """Empty tables of the declared sizes (callers have checked them against limits)."""
        self.n_names = names
        self.n_prefixes = prefixes
        self.n_datatypes = datatypes
        self.cap_names = 0
        self.cap_prefixes = 0
        self.cap_datatypes = 0
        self.names = []
        self.iri_cache = []
        self.prefixes = []
        self.datatypes = []
        free(self.cache_pid)
        free(self.cache_gen)
        free(self.prefix_gen)
        self.cache_pid = NULL
        self.cache_gen = NULL
        self.prefix_gen = NULL
        self.last_name_entry = self.last_prefix_entry = self.last_datatype_entry = 0
        self.last_prefix_id = self.last_name_id = 0
        self.entries = 0
        self.sparse = {}
        self.grow_names(0)
        self.grow_prefixes(0)
        self.grow_datatypes(0)
        self.prefixes[0] = ""
        return 0

    cdef int grow_names(self, uint32_t slot) except -1:
        cdef uint64_t cap = _grown(_first_cap(self.n_names) if self.cap_names == 0
                                   else self.cap_names, slot, self.n_names)
        cdef uint64_t i, old = self.cap_names
        cdef long long* pid
        cdef unsigned long long* gen
        if cap <= old:
            return 0
        pid = <long long*>realloc(self.cache_pid, cap * sizeof(long long))
        if pid == NULL:
            raise MemoryError()
        self.cache_pid = pid
        gen = <unsigned long long*>realloc(self.cache_gen, cap * sizeof(unsigned long long))
        if gen == NULL:
            raise MemoryError()
        self.cache_gen = gen
        for i in range(old, cap):
            self.cache_pid[i] = -1
            self.cache_gen[i] = 0
        self.names.extend([None] * (cap - old))
        self.iri_cache.extend([None] * (cap - old))
        self.cap_names = cap
        return self.migrate(T_NAME, cap)

    cdef int grow_prefixes(self, uint32_t slot) except -1:
        cdef uint64_t cap = _grown(_first_cap(self.n_prefixes) if self.cap_prefixes == 0
                                   else self.cap_prefixes, slot, self.n_prefixes)
        cdef uint64_t i, old = self.cap_prefixes
        cdef unsigned long long* gen
        if cap <= old:
            return 0
        gen = <unsigned long long*>realloc(self.prefix_gen, cap * sizeof(unsigned long long))
        if gen == NULL:
            raise MemoryError()
        self.prefix_gen = gen
        for i in range(old, cap):
            self.prefix_gen[i] = 0
        self.prefixes.extend([None] * (cap - old))
        self.cap_prefixes = cap
        return self.migrate(T_PREFIX, cap)

    cdef int grow_datatypes(self, uint32_t slot) except -1:
        cdef uint64_t cap = _grown(_first_cap(self.n_datatypes) if self.cap_datatypes == 0
                                   else self.cap_datatypes, slot, self.n_datatypes)
        if cap > self.cap_datatypes:
            self.datatypes.extend([None] * (cap - self.cap_datatypes))
            self.cap_datatypes = cap
        return self.migrate(T_DATATYPE, cap)

    cdef bint dense_ok(self, uint32_t slot) noexcept:
        return slot < INITIAL_SLOTS + DENSE_PER_ENTRY * self.entries

    cdef object sparse_get(self, int table, uint32_t slot):
        """The value of a slot beyond the dense storage (None: never defined)."""
        return self.sparse.get((<uint64_t>slot << 2) | table)

    cdef int migrate(self, int table, uint64_t cap) except -1:
        # Sparse entries of ``table`` that the dense storage now covers move into it.
        cdef uint32_t slot
        if not self.sparse:
            return 0
        for key in [k for k in self.sparse if (k & 3) == table and (k >> 2) < cap]:
            slot = key >> 2
            value = self.sparse.pop(key)
            if table == T_NAME:
                self.names[slot] = value
                self.cache_pid[slot] = -1
            elif table == T_PREFIX:
                self.prefixes[slot] = value
                self.prefix_gen[slot] += 1
            else:
                self.datatypes[slot] = value
        return 0

    cdef int set_name(self, uint32_t slot, str value) except -1:
        self.entries += 1
        self.last_name_entry = slot
        if slot >= self.cap_names:
            if not self.dense_ok(slot):
                self.sparse[(<uint64_t>slot << 2) | T_NAME] = value
                return 0
            self.grow_names(slot)
        self.names[slot] = value
        self.cache_pid[slot] = -1
        return 0

    cdef int set_prefix(self, uint32_t slot, str value) except -1:
        self.entries += 1
        self.last_prefix_entry = slot
        if slot >= self.cap_prefixes:
            if not self.dense_ok(slot):
                self.sparse[(<uint64_t>slot << 2) | T_PREFIX] = value
                return 0
            self.grow_prefixes(slot)
        self.prefixes[slot] = value
        self.prefix_gen[slot] += 1
        return 0

    cdef int set_datatype(self, uint32_t slot, object value) except -1:
        self.entries += 1
        self.last_datatype_entry = slot
        if slot >= self.cap_datatypes:
            if not self.dense_ok(slot):
                self.sparse[(<uint64_t>slot << 2) | T_DATATYPE] = value
                return 0
            self.grow_datatypes(slot)
        self.datatypes[slot] = value
        return 0


cdef class EncodeTable:

    def __cinit__(self, uint32_t size):
        self.size = size
        self.slots = {}
        self.keys = []
        self.cap = 0
        self.prev = self.next = NULL
        self.gen = self.epoch = NULL
        # Storage follows the slots used, not the size (output options may come from an
        # untrusted input's, as in the transcoder).
        self.grow(size + 1 if size < INITIAL_SLOTS else INITIAL_SLOTS)
        self.clear()
        self.last_id = 0       # a fresh stream: the first entry is id 1, written as 0

    def __dealloc__(self):
        free(self.prev)
        free(self.next)
        free(self.gen)
        free(self.epoch)

    cdef int grow(self, uint64_t cap) except -1:
        cdef uint32_t* p
        cdef uint64_t* g
        cdef uint64_t i
        p = <uint32_t*>realloc(self.prev, cap * sizeof(uint32_t))
        if p == NULL:
            raise MemoryError()
        self.prev = p
        p = <uint32_t*>realloc(self.next, cap * sizeof(uint32_t))
        if p == NULL:
            raise MemoryError()
        self.next = p
        g = <uint64_t*>realloc(self.gen, cap * sizeof(uint64_t))
        if g == NULL:
            raise MemoryError()
        self.gen = g
        g = <uint64_t*>realloc(self.epoch, cap * sizeof(uint64_t))
        if g == NULL:
            raise MemoryError()
        self.epoch = g
        for i in range(self.cap, cap):
            self.prev[i] = self.next[i] = 0
            self.gen[i] = self.epoch[i] = 0
        self.keys.extend([None] * <Py_ssize_t>(cap - self.cap))
        self.cap = cap
        return 0

    cdef int clear(self) except -1:
        """Forget every entry (a segment start); cached slots stay invalid (generations move
        on), and the next entry row names its id explicitly."""
        cdef uint64_t i
        self.used = 0
        self.head = 0
        self.tail = 0
        self.last_id = 0xFFFFFFFF
        self.slots.clear()
        for i in range(self.cap):
            self.prev[i] = 0
            self.next[i] = 0
            self.gen[i] += 1
            self.epoch[i] = 0
            self.keys[i] = None
        return 0

    cdef uint32_t find(self, str key, uint64_t epoch) except? 0:
        """The slot holding key (touched), or 0."""
        cdef object s = self.slots.get(key)
        if s is None:
            return 0
        cdef uint32_t slot = <uint32_t>s
        et_touch(self, slot, epoch)
        return slot

    cdef uint32_t assign(self, str key, uint64_t epoch) except 0:
        """A slot for a key not in the table: a free one, or the least recently used."""
        cdef uint32_t slot
        if self.used < self.size:
            self.used += 1
            slot = self.used
            if slot >= self.cap:
                self.grow(min(2 * self.cap, <uint64_t>self.size + 1))
        else:
            slot = self.tail
            if self.epoch[slot] == epoch:
                raise TableFull(self)
            del self.slots[self.keys[slot]]
        self.keys[slot] = key
        self.slots[key] = slot
        self.gen[slot] += 1
        et_touch(self, slot, epoch)
        return slot


class TableFull(Exception):
    # Every slot of a table is used by the statement being encoded.
    def __init__(self, table):
        self.table = table


@cython.no_gc
cdef class IriSplit:
    pass
