if 1:
        a
	b
