"""One module per operator family; the registry imports every module here (none is listed by hand).

Each module holds small pure formulas (shapes and dtypes in, ``OpCost`` out), each registered
under its operator kind with ``@register``. Adding an operator is one file here plus its test;
see docs/analytic.md.
"""
