match
match.x
match:
