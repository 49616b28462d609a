"""tilelang.tools.cuda.iket on TilePlay: the host side of in-kernel event tracing.

Inside a kernel, iket.mark / iket.range / iket.payload are read by TilePlay's front end from the
source file (core/eval/iket.cpp), which emits each event as a `pmevent.mask ID` for a profiler
that samples the SM's performance-monitor events. Python never runs a kernel body, so here the
event table is read from the source of each @T.prim_func made while events are being recorded,
numbered as the front end numbers them: one id per (kind, name), from 1, skipping 31 (the id
every range end carries). This module writes no traces itself: trace_files() lists what an
external IKET profiler left in the output directory, as TileLang's does."""

import ast
import inspect
import os
import shlex
import textwrap
import zlib
from pathlib import Path

from ....language import on_prim_func

MAX_EVENT_NAME_BYTES = 32
_RANGE_END_ID = 31
_PAYLOAD_IDS = {"int32": 5, "uint32": 6, "float32": 13}
_STARTS = {"mark": "mark", "range": "range", "range_push": "range", "range_start": "range"}

_events = {}  # (kind, name) -> event dict, in id order
_output_dir = None
_enabled = 0
_runtime_payloads = False


# ---- events --------------------------------------------------------------------------------

def reset():
    """Forget the recorded events; kernels made afterwards number theirs from 1 again."""
    _events.clear()


def event_table():
    """The events of the kernels made since the last reset, in id order."""
    return [dict(e, runtime_payload_iket_id=e["payload_iket_id"] if _runtime_payloads else 0)
            for e in sorted(_events.values(), key=lambda e: e["event_id"])]


def _payload_type(call):
    """The payload type of `iket.mark(name, payload=iket.payload(x, dtype=...))` as written;
    an index or block expression without a dtype is int32, as TileLang infers for it."""
    p = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "payload"), None)
    if p is None:
        return "NoPayload"
    expr, dtype = p, None
    if isinstance(p, ast.Call) and getattr(p.func, "attr", None) == "payload":
        expr = p.args[0] if p.args else None
        d = p.args[1] if len(p.args) > 1 else next((k.value for k in p.keywords if k.arg == "dtype"), None)
        dtype = d.value if isinstance(d, ast.Constant) and isinstance(d.value, str) else None
    if dtype is None:
        dtype = "float32" if isinstance(expr, ast.Constant) and isinstance(expr.value, float) else "int32"
    return {"int": "int32", "uint": "uint32", "float": "float32"}.get(dtype.lower(), dtype.lower())


def _record(call, kind):
    name = call.args[0].value if call.args and isinstance(call.args[0], ast.Constant) else None
    if not isinstance(name, str) or not name or len(name.encode("utf-8")) > MAX_EVENT_NAME_BYTES:
        return  # the front end reports it at the line when the kernel compiles
    if (kind, name) in _events:
        return
    event_id = max((e["event_id"] for e in _events.values()), default=0) + 1
    event_id += event_id == _RANGE_END_ID
    ptype = _payload_type(call)
    _events[(kind, name)] = {
        "name": name, "event_id": event_id, "kind": kind,
        "range_id": (zlib.crc32(name.encode("utf-8")) or 1) if kind == "range" else 0,
        "payload_type": ptype, "payload_iket_id": _PAYLOAD_IDS.get(ptype, 0),
    }


def _read_kernel(prim_func):
    """Records the iket events of a @T.prim_func's body, in source order."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(prim_func.func)))
    except (OSError, TypeError, SyntaxError):
        return
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and isinstance(n.func.value, ast.Name) and n.func.value.id == "iket" and n.func.attr in _STARTS]
    for call in sorted(calls, key=lambda c: (c.lineno, c.col_offset)):
        _record(call, _STARTS[call.func.attr])


on_prim_func(_read_kernel)


def _kernel_only(name):
    def f(*args, **kwargs):
        raise RuntimeError("iket.%s runs only inside a kernel, which TilePlay compiles from the source file; "
                           "Python never executes the kernel body" % name)
    f.__name__ = name
    return f


mark, payload, range, range_push, range_pop, range_start, range_end = (  # noqa: A001 - TileLang's names
    _kernel_only(n) for n in ("mark", "payload", "range", "range_push", "range_pop", "range_start", "range_end"))


# ---- sessions ------------------------------------------------------------------------------

def enable(*, override=True):
    global _enabled
    _enabled += 1


def disable(*, restore=True):
    global _enabled
    _enabled = max(0, _enabled - 1)


def is_enabled():
    return _enabled > 0


def enable_runtime_payloads():
    global _runtime_payloads
    _runtime_payloads = True


def disable_runtime_payloads():
    global _runtime_payloads
    _runtime_payloads = False


def runtime_payloads_enabled():
    return _runtime_payloads


class session:
    """`with iket.session(output_dir=..., runtime_payloads=...)`: events recorded from a fresh
    table, the output directory and payload switch set for the block and restored after."""

    def __init__(self, *, reset_events=True, override=True, disable_on_exit=True, output_dir=None,
                 runtime_payloads=None, disable_cache=True):
        self.reset_events, self.output_dir, self.runtime_payloads = reset_events, output_dir, runtime_payloads
        self.disable_on_exit = disable_on_exit

    def __enter__(self):
        self._saved = (_output_dir, os.environ.get("TL_IKET_OUTPUT_DIR"), _runtime_payloads)
        if self.output_dir is not None:
            set_output_dir(self.output_dir)
        if self.runtime_payloads is not None:
            (enable_runtime_payloads if self.runtime_payloads else disable_runtime_payloads)()
        if self.reset_events:
            reset()
        enable()
        return self

    def __exit__(self, *exc):
        global _output_dir, _runtime_payloads
        if self.disable_on_exit:
            disable()
        _output_dir, env, _runtime_payloads = self._saved
        if env is None:
            os.environ.pop("TL_IKET_OUTPUT_DIR", None)
        else:
            os.environ["TL_IKET_OUTPUT_DIR"] = env
        return False


# ---- output files --------------------------------------------------------------------------

def set_output_dir(path):
    global _output_dir
    if path is None:
        _output_dir = None
        os.environ.pop("TL_IKET_OUTPUT_DIR", None)
        return None
    _output_dir = Path(path).expanduser().absolute()
    _output_dir.mkdir(parents=True, exist_ok=True)
    os.environ["TL_IKET_OUTPUT_DIR"] = str(_output_dir)
    return _output_dir


def output_dir(default=None):
    if _output_dir is not None:
        return _output_dir
    env = os.environ.get("TL_IKET_OUTPUT_DIR")
    if env or default is not None:
        return Path(env or default).expanduser().absolute()
    return None


def output_path(name, *, directory=None):
    base = output_dir(directory)
    if base is None:
        raise RuntimeError("IKET output directory is not configured")
    base.mkdir(parents=True, exist_ok=True)
    return base / name


def trace_files(*, directory=None):
    """The IKET profiler's JSON traces in the output directory, largest first."""
    base = output_dir(directory)
    if base is None or not base.exists():
        return []
    return sorted(base.glob("*.trace.json"), key=lambda p: p.stat().st_size, reverse=True)


def profile_command(command, *, directory, postprocess="all", clobber=True):
    """The IKET profiler's command line that runs `command` and exports traces to `directory`."""
    parts = ["python", "-m", "iket.cli.main", "--output-dir", str(Path(directory).expanduser())]
    parts += (["--clobber"] if clobber else []) + ["profile", "--postprocess", postprocess, "--"]
    head = " ".join(shlex.quote(p) for p in parts)
    tail = command if isinstance(command, str) else " ".join(shlex.quote(str(c)) for c in command)
    return head + " " + tail
