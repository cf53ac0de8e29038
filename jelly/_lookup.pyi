"""Lookup tables of the Jelly term encoding (stub of the compiled ``jelly._lookup``).

Decode side: the name, prefix and datatype tables of a stream and the IRI cache.  Encode side:
LRU tables and the split of an IRI into prefix and name.  Their operations are C-level only.
"""

class DecodeTables:
    """Name, prefix and datatype tables of a stream being decoded, with the IRI cache."""

    def __init__(self) -> None: ...

class EncodeTable:
    """An LRU table of strings to slots ``1..size``, with entry-id delta bookkeeping."""

    def __init__(self, size: int) -> None: ...

class IriSplit:
    """An IRI split into prefix and name, with the slots it last resolved to."""

    def __init__(self) -> None: ...

class TableFull(Exception):
    """Every slot of ``table`` is used by the statement being encoded."""

    table: EncodeTable

    def __init__(self, table: EncodeTable) -> None: ...
