"""Results of the example runner: a failed script's output classified by its error line (the
exception that ended it), the JSON written beside the Markdown table by folder with totals, and
the excluded (sm100-only, amd-only) scripts counted apart."""

import ast
import json
import re

# Categories, in the order the table shows them.
CATEGORIES = ("missing_api", "compiler", "launch", "numerical", "dependency", "timeout", "other")

_EXC_LINE = re.compile(r"^([A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt|Warning|Skipped)|AssertionError|"
                       r"[A-Za-z_][\w.]*\.(CompileError|TilePlayError))\b(:.*)?$")


def error_line(output):
    """The line naming the exception that ended the run: the last `Type: message` line after
    the last traceback, else the last non-empty line."""
    lines = [ln.rstrip() for ln in output.splitlines()]
    last_tb = max((i for i, ln in enumerate(lines) if ln.startswith("Traceback (most recent call last)")), default=-1)
    tail = lines[last_tb + 1:] if last_tb >= 0 else []
    found = [i for i, ln in enumerate(tail) if _EXC_LINE.match(ln)]
    if found:
        i = found[-1]
        line = tail[i]
        if line.endswith(":"):  # the message is on the lines below (numpy's assert_allclose)
            line += " " + " / ".join(ln.strip() for ln in tail[i + 1:] if ln.strip())[:300]
        return line[:400]
    for ln in reversed(lines):
        if ln.strip() and not ln.startswith("[driver]"):
            return ln.strip()[:400]
    return ""


def _is_ours(text):
    return bool(re.search(r"\b(tilelang|tvm|tileplay)\b", text))


_IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}


def optional_imports(source):
    """{name: module} for what a script imports inside `try: ... except ImportError:`, an
    optional package it goes on without (gdn's `from fla.ops... import chunk_fwd_o`)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    out = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Try) or not any(_catches_import_error(h) for h in node.handlers):
            continue
        for stmt in node.body:
            for n in ast.walk(stmt):
                if isinstance(n, ast.ImportFrom) and n.module:
                    out.update({a.asname or a.name: n.module for a in n.names})
                elif isinstance(n, ast.Import):
                    out.update({a.asname or a.name.split(".")[0]: a.name for a in n.names})
    return out


def _catches_import_error(handler):
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return handler.type is None or any(isinstance(t, ast.Name) and t.id in _IMPORT_ERRORS for t in types)


def classify(line, output="", source=""):
    """The category of a failure from its error line (and the output for context). `source`,
    the script's text, tells a NameError of an optional import that failed (a dependency)."""
    exc = line.split(":", 1)[0]
    msg = line[len(exc) + 1:]
    base = exc.rsplit(".", 1)[-1]
    if base == "NameError":
        m = re.search(r"name '(\w+)' is not defined", msg)
        module = optional_imports(source).get(m.group(1)) if m and source else None
        if module and not _is_ours(module.split(".")[0]):
            return "dependency"
    if base == "CompileError":
        return "compiler"
    if base == "TilePlayError" or "CUDA error" in line or "cudaError" in line or "illegal memory access" in line:
        return "launch"
    if base == "TilePlayNotImplementedError" or "not supported on TilePlay" in msg or "TilePlay does not" in msg:
        return "missing_api"
    if base in ("ModuleNotFoundError", "ImportError"):
        m = re.search(r"No module named '([\w.]+)'", msg)
        if m and not _is_ours(m.group(1).split(".")[0]):
            return "dependency"
        return "missing_api"
    if base == "AttributeError" and re.search(r"module '(tilelang|tvm)[\w.]*' has no attribute", msg):
        return "missing_api"
    if base in ("NotImplementedError", "AttributeError", "TypeError") and _is_ours(msg):
        return "missing_api"
    if base == "AssertionError" or re.search(r"[Mm]ismatch|not close|allclose|assert_close", line):
        return "numerical"
    if base in ("RuntimeError", "AcceleratorError") and re.search(r"CUDA|cuda|launch", msg):
        return "launch"
    return "other"


def folder_table(results):
    """Per folder: scripts (run), passed, failed by category, and excluded ones."""
    rows = {}
    for r in results:
        row = rows.setdefault(r["folder"], {"scripts": 0, "pass": 0, "skipped": 0, "excluded": 0,
                                            **{c: 0 for c in CATEGORIES}, "not_run": 0})
        if r["status"] == "excluded":
            row["excluded"] += 1
            continue
        row["scripts"] += 1
        if r["status"] == "pass":
            row["pass"] += 1
        elif r["status"] == "skipped":
            row["skipped"] += 1
        elif r["status"] == "not_run":
            row["not_run"] += 1
        else:
            row[r["category"]] += 1
    return dict(sorted(rows.items()))


def totals(rows):
    out = {}
    for row in rows.values():
        for k, v in row.items():
            out[k] = out.get(k, 0) + v
    return out


def markdown(results, meta):
    rows = folder_table(results)
    tot = totals(rows) if rows else {}
    cols = ["scripts", "pass"] + list(CATEGORIES) + ["skipped", "not_run", "excluded"]
    out = ["# TileLang examples on TilePlay", "",
           "entry: %s; timeout %ss per script; %s jobs; %.0f s wall; target %s" % (
               meta.get("entry"), meta.get("timeout"), meta.get("jobs"), meta.get("wall_s", 0), meta.get("target")),
           "",
           "| folder | " + " | ".join(cols) + " |",
           "| --- |" + " ---: |" * len(cols)]
    for folder, row in rows.items():
        out.append("| %s | " % folder + " | ".join(str(row[c]) for c in cols) + " |")
    if rows:
        out.append("| **total** | " + " | ".join("**%d**" % tot[c] for c in cols) + " |")
        ran = tot["scripts"]
        out += ["", "pass: %d of %d sm_80/sm_90-capable scripts (%.1f%%); excluded (sm100-only / amd-only): %d"
                % (tot["pass"], ran, 100.0 * tot["pass"] / ran if ran else 0.0, tot["excluded"])]
    out += ["", "## Failures", "", "| script | entry | category | error line |", "| --- | --- | --- | --- |"]
    for r in results:
        if r["status"] in ("fail", "timeout"):
            out.append("| %s | %s | %s | %s |" % (r["script"], r["entry"], r["category"],
                                                  r["error"].replace("|", "\\|")[:200]))
    excluded = [r for r in results if r["status"] == "excluded"]
    if excluded:
        out += ["", "## Excluded", ""] + ["- %s: %s" % (r["script"], r["reason"]) for r in excluded]
    return "\n".join(out) + "\n"


def write(out_dir, results, meta):
    import os
    os.makedirs(out_dir, exist_ok=True)
    rows = folder_table(results)
    doc = {"meta": meta, "folders": rows, "totals": totals(rows), "results": results}
    tmp = os.path.join(out_dir, "results.json.tmp")
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
    os.replace(tmp, os.path.join(out_dir, "results.json"))
    with open(os.path.join(out_dir, "results.md"), "w") as f:
        f.write(markdown(results, meta))
