x = f"{x
