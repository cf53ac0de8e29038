# Literal values of Jena's value forms, from their canonical lexical forms (``_xsdvalues.pyx``):
# None when the form is not canonical or the value does not fit the wire's integer.
cdef object integer_value(str lex)
cdef object decimal_value(str lex)
cdef object double_value(str lex)
