f"\N{BULLET} {x}\{y}"
