#!/usr/bin/env python3
"""The closing line of ci/test.sh: counts and the slowest ten tests, from ctest's JUnit file
(ctest --output-junit FILE). Usage: ctest_summary.py FILE [WALL_SECONDS]

Prints a line that starts with "gate tests:" (passed, failed, skipped, total, ctest's wall time)
and a "slowest:" part with the ten longest tests and their seconds. Exits 1 when a test failed or
printed the TOO NOISY TO DECIDE marker (a test that could not decide has not passed, even where it
skipped inside a whole-binary ctest entry, which ctest counts as passed), 2 when the JUnit file
cannot be read, else 0; ci/test.sh fails on it."""
import sys
import xml.etree.ElementTree as ET


def main():
    if len(sys.argv) < 2:
        print("gate tests: no JUnit file given", file=sys.stderr)
        return 2
    try:
        root = ET.parse(sys.argv[1]).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"gate tests: could not read ctest's JUnit file {sys.argv[1]}: {e}")
        return 2
    cases = root.iter("testcase")
    passed = failed = skipped = 0
    times = []
    failures = []
    noisy = []
    for c in cases:
        name = c.get("name", "?")
        t = float(c.get("time", "0") or 0)
        times.append((t, name))
        status = c.get("status", "")
        out = c.findtext("system-out") or ""
        if "TOO NOISY TO DECIDE" in out:
            noisy.append(name)
        if c.find("failure") is not None or c.find("error") is not None or status == "fail":
            failed += 1
            failures.append(name)
        elif c.find("skipped") is not None or status in ("disabled", "notrun", "skipped"):
            skipped += 1
        else:
            passed += 1
    total = passed + failed + skipped
    wall = f", ctest wall {float(sys.argv[2]):.0f} s" if len(sys.argv) > 2 else ""
    times.sort(reverse=True)
    slow = ", ".join(f"{n} {t:.0f} s" for t, n in times[:10])
    print(f"gate tests: {passed} passed, {failed} failed, {skipped} skipped (of {total}){wall}; "
          f"slowest: {slow}")
    if noisy:
        print("gate tests: TOO NOISY TO DECIDE (a failure; figures in their output): " + ", ".join(noisy))
    if failures:
        print("gate tests: FAILED: " + ", ".join(failures))
    return 1 if failures or noisy else 0


if __name__ == "__main__":
    sys.exit(main())
