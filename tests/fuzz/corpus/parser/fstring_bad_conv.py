f"{x!}"
f"{x!rr}"
