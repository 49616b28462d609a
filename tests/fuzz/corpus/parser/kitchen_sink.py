@dec
async def f(a, b=1, /, c=2, *d, e, f=3, **g) -> int:
    async with a as b:
        async for x in y:
            yield await x
    return [i async for i in z if i]
