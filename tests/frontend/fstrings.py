# RUN: %tilec compile %s --emit=ast | FileCheck %s
# f-strings split into JoinedStr parts; replacement fields keep their own file positions,
# including PEP 701 nested quotes, conversions, `=` and nested format specs.
msg = f"tile {block_M}x{block_N}: {cfg["stages"]!r:>{width}}"
# CHECK: JoinedStr@[[#@LINE-1]]:7-[[#@LINE-1]]:62(
# CHECK: Constant@{{.*}}(value='tile ')
# CHECK: Name@[[#@LINE-3]]:15-[[#@LINE-3]]:22(id='block_M', ctx=Load())
# CHECK: Constant@{{.*}}(value='x')
# CHECK: Subscript@[[#@LINE-5]]:36-[[#@LINE-5]]:49(
# CHECK: slice=Constant@[[#@LINE-6]]:40-[[#@LINE-6]]:48(value='stages')
# CHECK: conversion=114,
# CHECK: format_spec=JoinedStr@
# CHECK: Constant@{{.*}}(value='>')
# CHECK: Name@[[#@LINE-10]]:54-[[#@LINE-10]]:59(id='width', ctx=Load())
dbg = f"{M=}"
# CHECK: Constant@{{.*}}(value='M=')
# CHECK: conversion=114)
