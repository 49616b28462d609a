*a
a = *b
(*c)
