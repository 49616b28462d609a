f'{a'b'}'
f'{ab"c"}'
