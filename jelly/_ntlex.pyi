"""The term lexer of the N-Triples / N-Quads parser (stub of the compiled ``jelly._ntlex``).

IRIREF, BLANK_NODE_LABEL and STRING_LITERAL_QUOTE with LANG_DIR or a datatype, as the W3C
grammars spell them, with a term cache; ``jelly._ntriples`` builds the statement grammar on
:class:`TermLexer`.  It has no Python-level API of its own.
"""

class TermLexer:
    """The base of the N-Triples parser: reads single terms from a buffer (C-level only)."""
