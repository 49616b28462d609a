# A helper module with a syntax error (tests/errors/fail_import_failed.py imports it): importing
# it is an error at the import line.
def broken(x)
    return x
