# A sibling module the example star-imports: its public names are bound, its private ones not.
ROWS = 256
_ROWS = 64
