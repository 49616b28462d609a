#!/usr/bin/env python3
"""Every lesson (lessons/*.py) is an exercise that works: it has a title, hints and one marked
gap; as shipped it FAILS `tilec run --device cpu --check` (a wrong result, or a compile error
with a diagnostic); its solution (lessons/solutions/<name>) has no gap and PASSES, with the
race checker finding nothing; and `tilec lessons` lists them all in order.
Usage: check_lessons.py TILEC SOURCE_DIR"""
import pathlib
import re
import subprocess
import sys
import time

tilec, root = sys.argv[1], pathlib.Path(sys.argv[2])
lessons_dir = root / "lessons"
failures = []


def fail(msg):
    failures.append(msg)
    print("[FAIL] " + msg)


def run(*args, timeout=120):
    t0 = time.monotonic()
    p = subprocess.run([tilec, *args], capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout + p.stderr, time.monotonic() - t0


lessons = sorted(p for p in lessons_dir.glob("*.py") if re.search(r"^#\s*tileplay:\s*lesson\s+\S", p.read_text(), re.M))
if len(lessons) < 6:
    fail(f"expected at least 6 lessons under {lessons_dir}, found {len(lessons)}")

titles = []
for lesson in lessons:
    text = lesson.read_text()
    name = lesson.name
    title = re.search(r"^#\s*tileplay:\s*lesson\s+(.+)$", text, re.M).group(1).strip()
    titles.append(title)
    if not re.search(r"^#\s*tileplay:\s*hint\s+\S", text, re.M):
        fail(f"{name}: no `# tileplay: hint` line")
    if not re.search(r"^#\s*tileplay:\s*baseline\s+\S", text, re.M):
        fail(f"{name}: no `# tileplay: baseline` line, so nothing can check it")
    if len(re.findall(r"#\s*TODO\(lesson\):", text)) != 1:
        fail(f"{name}: needs exactly one `# TODO(lesson):` gap")

    # As shipped: the run stops at a located error, or runs and the check fails.
    rc, out, secs = run("run", str(lesson), "--device", "cpu", "--check")
    compile_error = re.search(r"\.py:\d+:\d+: error: ", out)
    check_failed = re.search(r"^check: .* FAIL$", out, re.M)
    if rc == 0 or not (compile_error or check_failed):
        fail(f"{name}: the shipped lesson must fail its check (rc {rc}):\n{out}")
    else:
        print(f"[PASS] {name} fails as shipped ({'error' if compile_error else 'check FAIL'}, {secs:.1f} s)")

    solution = lessons_dir / "solutions" / name
    if not solution.exists():
        fail(f"{name}: no solution at {solution}")
        continue
    stext = solution.read_text()
    if re.search(r"#\s*TODO\(lesson\):", stext):
        fail(f"solutions/{name}: still has the `# TODO(lesson):` gap")
    rc, out, secs = run("run", str(solution), "--device", "cpu", "--check", "--check-races")
    if rc != 0 or not re.search(r"^check: .* PASS$", out, re.M) or "race check: 0 finding(s)" not in out:
        fail(f"solutions/{name}: must pass the check with no race findings (rc {rc}):\n{out}")
    else:
        print(f"[PASS] solutions/{name} passes, no races ({secs:.1f} s)")

# The lesson whose point is a race: the checker finds it in the shipped file, at both lines.
for lesson in lessons:
    if "race" not in lesson.name:
        continue
    rc, out, _ = run("run", str(lesson), "--device", "cpu", "--check-races")
    if rc == 0 or "[SharedMemoryRace]" not in out or "note: the other access" not in out:
        fail(f"{lesson.name}: the race checker must report the race with both lines (rc {rc}):\n{out}")

rc, out, _ = run("lessons", "--dir", str(lessons_dir))
positions = [out.find(f"{i + 1:2d}. {lesson.name}") for i, lesson in enumerate(lessons)]
if rc != 0 or -1 in positions or positions != sorted(positions) or any(t not in out for t in titles) or \
        "--device cpu --check" not in out:
    fail(f"`tilec lessons` must list every lesson in order with its title and how to check one (rc {rc}):\n{out}")
rc, out, _ = run("lessons", "--dir", str(root / "tests"))
if rc != 1 or "no lessons" not in out:
    fail(f"`tilec lessons --dir` of a folder without lessons must say so and exit 1 (rc {rc}):\n{out}")

print(f"{len(lessons)} lesson(s), {len(failures)} failure(s)")
sys.exit(1 if failures else 0)
