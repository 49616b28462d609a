s = f'{x'
