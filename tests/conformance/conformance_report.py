"""Tables of a conformance run (run_conformance.py): by folder, totals and the blockers that stop
the most kernels, as plain text or Markdown."""
import collections
import re

COLUMNS = ("kernels", "sm100", "unresolved", "sm_80", "sm_90a", "both", "cpu")


# A step passes when it compiled or ran ("ok"), or, for a kernel its file marks as buggy
# (expects: error), when tilec refused it with a located error ("refused").
PASSED = ("ok", "refused")


def _passes(r, arch):
    return r.get(arch) in PASSED or (arch == "sm_80" and r.get(arch) == "n/a" and r.get("sm_90a") == "ok")


def count_resolved(c, r):
    """Counts r in c's kernels, sm100 and unresolved columns; True when it is a resolved
    sm_80/sm_90 kernel, the ones the other columns count."""
    c["kernels"] += 1
    if r.get("needs"):
        c["sm100"] += 1
        return False
    if r["status"] in ("unresolved", "missing"):
        c["unresolved"] += 1
        return False
    return True


def row(results):
    c = dict.fromkeys(COLUMNS, 0)
    for r in results:
        if not count_resolved(c, r):
            continue
        c["sm_80"] += _passes(r, "sm_80")
        c["sm_90a"] += _passes(r, "sm_90a")
        c["both"] += _passes(r, "sm_80") and _passes(r, "sm_90a")
        c["cpu"] += r.get("cpu") in PASSED
    return c


def totals(results):
    c = row(results)
    ours = c["kernels"] - c["sm100"]
    return {"kernels": c["kernels"], "ours": ours, "compile_sm80": c["sm_80"], "compile_sm90a": c["sm_90a"],
            "compile_both": c["both"], "cpu_small": c["cpu"],
            "sm100_diagnosed": sum(r.get("status") == "diagnosed" for r in results)}


def drawn_line(results):
    """How many of the counted kernels have sizes the file draws at random (taken at their upper
    bound by the generator), so a reader can tell them from sizes the file states."""
    drawn = [r for r in results if r.get("drawn") and r.get("status") == "checked"]
    both = sum(_passes(r, "sm_80") and _passes(r, "sm_90a") for r in drawn)
    line = "of them sized by random draws at their upper bound: %d kernels, %d compile for both, %d run on the CPU" % (
        len(drawn), both, sum(r.get("cpu") == "ok" for r in drawn))
    buggy = [r for r in results if r.get("expects") == "error"]
    if buggy:
        line += "\nof them marked buggy by their files (expects: error): %d kernels, %d refused with a located error at every step" % (
            len(buggy), sum(all(r.get(k) == "refused" for k in ("sm_80", "sm_90a", "cpu")) for r in buggy))
    return line


def _fmt(rows, markdown):
    if markdown:
        out = ["| " + " | ".join(rows[0]) + " |", "|" + " --- |" * len(rows[0])]
        out += ["| " + " | ".join(str(x) for x in r) + " |" for r in rows[1:]]
        return "\n".join(out)
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(str(x).ljust(w) if i == 0 else str(x).rjust(w) for i, (x, w) in enumerate(zip(r, widths)))
                     for r in rows)


def folder_rows(results, count, columns):
    """The table's rows by folder and a TOTAL row, each counted by `count`; and the totals."""
    by = collections.defaultdict(list)
    for r in results:
        by[r["folder"]].append(r)
    rows = [("folder",) + columns]
    for folder in sorted(by):
        c = count(by[folder])
        rows.append((folder,) + tuple(c[k] for k in columns))
    c = count(results)
    rows.append(("TOTAL",) + tuple(c[k] for k in columns))
    return rows, c


def folder_table(results, markdown=False):
    rows, c = folder_rows(results, row, COLUMNS)
    ours = c["kernels"] - c["sm100"]
    note = ("\nsm100: needs sm_100a/sm_120 or an AMD gfx target (counted apart); unresolved: arguments not found in the file; "
            "sm_80 counts a kernel refused there with FeatureNeedsTarget (fp8) or SharedMemoryExceeded (the file's sizes need more than 164 KiB) when sm_90a compiles.\n"
            "of %d sm_80/sm_90 kernels: both targets %d (%.0f%%), CPU at the small size %d (%.0f%%)"
            % (ours, c["both"], 100.0 * c["both"] / max(ours, 1), c["cpu"], 100.0 * c["cpu"] / max(ours, 1)))
    return _fmt(rows, markdown) + note + "\n" + drawn_line(results)


def _template(msg):
    """A message without its numbers, so one blocker seen at several sizes counts once."""
    return re.sub(r"\b\d+\b", "N", msg)[:140]


def blockers(results, markdown=False, top=25):
    kernels = collections.Counter()
    for r in results:
        seen = set()
        for key in ("error", "cpu_error"):
            # sm_100a-only kernels are counted apart; their unresolved arguments are no blocker of ours.
            if r.get(key) and r.get("status") != "diagnosed" and not r.get("needs"):
                seen.add(_template(r[key]))
        for s in seen:
            kernels[s] += 1
    rows = [("kernels", "first error")] + [(n, m) for m, n in kernels.most_common(top)]
    return "blockers (first error of each failing kernel):\n" + _fmt(rows, markdown)
