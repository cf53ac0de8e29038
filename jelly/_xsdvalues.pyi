"""Canonical lexical forms of xsd:integer, xsd:decimal and xsd:double (stub of the compiled
``jelly._xsdvalues``)."""

def decimal_lexical(value: int, scale: int) -> str:
    """The canonical xsd:decimal form (XSD 1.1) of ``value`` * 10**-``scale``."""
def double_lexical(d: float) -> str:
    """The canonical xsd:double form (XSD 1.1): shortest digits, one before the point."""
