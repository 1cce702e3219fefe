#!/usr/bin/env python3
"""tests/ci/ctest_summary.py's exit code on made-up JUnit files: 0 when every test passed, 1 when one
failed or printed the TOO NOISY TO DECIDE marker inside an entry ctest counts as passed (issue 54: a
test that could not decide has not passed), 2 when the file cannot be read."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SUMMARY = os.path.join(HERE, "ctest_summary.py")


def junit(cases):
    body = "".join(
        f'<testcase name="{n}" time="{t}" status="{s}"><system-out>{out}</system-out></testcase>'
        for n, t, s, out in cases)
    return f'<?xml version="1.0"?><testsuite name="gate">{body}</testsuite>'


def run(xml):
    with tempfile.NamedTemporaryFile("w", suffix=".xml", delete=False) as f:
        f.write(xml)
        path = f.name
    try:
        p = subprocess.run([sys.executable, SUMMARY, path, "12"], capture_output=True, text=True)
        return p.returncode, p.stdout
    finally:
        os.unlink(path)


def main():
    fails = []
    code, out = run(junit([("a", 1, "run", "ok"), ("b", 2, "run", "fine")]))
    if code != 0 or "2 passed, 0 failed" not in out:
        fails.append(f"all passed: exit {code}, {out!r}")
    code, out = run(junit([("a", 1, "run", "ok"), ("shards_e2e", 3, "run", "TOO NOISY TO DECIDE: [0.9, 1.6]")]))
    if code != 1 or "TOO NOISY TO DECIDE" not in out or "shards_e2e" not in out:
        fails.append(f"a noisy entry ctest passed: exit {code}, {out!r}")
    code, out = run(junit([("a", 1, "fail", "boom")]))
    if code != 1 or "FAILED: a" not in out:
        fails.append(f"a failure: exit {code}, {out!r}")
    code, out = run("not xml")
    if code != 2:
        fails.append(f"an unreadable file: exit {code}, {out!r}")
    for f in fails:
        print("FAIL:", f)
    print("ctest_summary_test:", "failed" if fails else "passed (4 cases)")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
