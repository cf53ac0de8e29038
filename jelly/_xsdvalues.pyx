# cython: language_level=3
"""Canonical lexical forms of xsd:integer, xsd:decimal and xsd:double (XSD 1.1): the value
forms of Jena's RDF Binary (``_jena``) are written for literals in exactly these forms and
read back to them."""

__all__ = ["decimal_lexical", "double_lexical"]


def decimal_lexical(value, long long scale):
    """The canonical xsd:decimal form (XSD 1.1) of ``value`` * 10**-``scale``: no exponent, no
    leading or trailing zeros, and no decimal point for an integral value ("3", "-0.25")."""
    cdef str digits = str(abs(int(value)))
    cdef str sign = "-" if value < 0 else ""
    cdef Py_ssize_t n
    if value == 0:
        return "0"
    if scale <= 0:
        return sign + digits + "0" * (-scale)
    n = len(digits)
    while scale > 0 and digits[n - 1] == "0":
        n -= 1
        scale -= 1
    digits = digits[:n]
    if scale == 0:
        return sign + digits
    if n > scale:
        return f"{sign}{digits[:n - scale]}.{digits[n - scale:]}"
    return f"{sign}0.{'0' * (scale - n)}{digits}"


def double_lexical(double d):
    """The canonical xsd:double form (XSD 1.1): one digit before the point, the shortest digits
    that read back to the same double, and an exponent ("1.0E2", "-2.5E-3", "0.0E0", "INF",
    "NaN")."""
    cdef str r, mant, exp, ip, fp, alld, digits
    cdef Py_ssize_t lead, e
    if d != d:
        return "NaN"
    if d == float("inf"):
        return "INF"
    if d == float("-inf"):
        return "-INF"
    r = repr(d)
    sign = ""
    if r[0] == "-":
        sign = "-"
        r = r[1:]
    if d == 0:
        return sign + "0.0E0"
    mant, _, exp = r.partition("e")
    ip, _, fp = mant.partition(".")
    alld = ip + fp
    digits = alld.lstrip("0")
    lead = len(alld) - len(digits)
    e = (int(exp) if exp else 0) + len(ip) - lead - 1
    digits = digits.rstrip("0") or "0"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{e}"


cdef bint _ascii_digits(str s, Py_ssize_t start, Py_ssize_t stop):
    cdef Py_ssize_t i
    cdef Py_UCS4 c
    for i in range(start, stop):
        c = s[i]
        if c < 48 or c > 57:
            return False
    return stop > start


cdef object integer_value(str lex):
    """The int of a canonical xsd:integer lexical form that fits an i64, else None."""
    cdef Py_ssize_t n = len(lex)
    cdef Py_ssize_t start = 1 if n and lex[0] == "-" else 0
    if not _ascii_digits(lex, start, n) or (lex[start] == "0" and n - start > 1) or lex == "-0":
        return None
    v = int(lex)
    return v if -(1 << 63) <= v < (1 << 63) else None


cdef object decimal_value(str lex):
    """(unscaled, scale) of a canonical xsd:decimal lexical form whose unscaled value fits an
    i64, else None."""
    cdef str ip, fp
    cdef Py_ssize_t dot = lex.find(".")
    if dot < 0:
        v = integer_value(lex)
        return None if v is None else (v, 0)
    ip = lex[:dot]
    fp = lex[dot + 1:]
    if not _ascii_digits(fp, 0, len(fp)) or fp[len(fp) - 1] == "0":
        return None
    if ip != "0" and ip != "-0" and integer_value(ip) is None:
        return None
    v = int(ip + fp)
    if not -(1 << 63) <= v < (1 << 63):
        return None
    return (v, len(fp)) if decimal_lexical(v, len(fp)) == lex else None


cdef object double_value(str lex):
    """The float of a canonical xsd:double lexical form, else None."""
    try:
        d = float(lex)
    except ValueError:
        return None
    return d if double_lexical(d) == lex else None
