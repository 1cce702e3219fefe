#!/usr/bin/env python3
"""The CLI's shape (issue 57): gate/cli/ parses and prints, so none of its files is over 120 lines,
and every flag is declared once, with its rerun rule, through gate/cli/flags.hpp: no file of
gate/cli/ but flags.* calls CLI11's add_option, add_flag, add_flag_callback or add_option_function
(or their kin), so no flag can skip saying whether a report's "reproduce:" line carries it.
Usage: cli_shape_test.py GATE_ROOT

Comments are not read (a comment may name the calls); a call is the name followed by "(". CLI11's
own --help and --version (set_help_flag, set_version_flag) are not declarations of ours."""
import os
import re
import sys

root = sys.argv[1]
MAX_LINES = 120
CALL = re.compile(r"\badd_(?:option|option_function|option_no_stream|flag|flag_callback|flag_function)\s*\(")
DECLARES = ("flags.hpp", "flags.cpp")  # the one place that calls them


def without_comments(text):
    """The text with // and /* */ comments blanked (newlines kept, so line numbers hold); string
    literals are kept whole, so a "//" inside one is not a comment."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text[i] in "\"'":
            q, j = text[i], i + 1
            while j < n and text[j] != q:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


cli = os.path.join(root, "gate", "cli")
failures, files, calls, longest = [], 0, 0, ("", 0)
for dirpath, _, names in os.walk(cli):
    for name in sorted(names):
        path = os.path.join(dirpath, name)
        rel = os.path.relpath(path, root)
        text = open(path, encoding="utf-8").read()
        files += 1
        lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
        longest = max(longest, (rel, lines), key=lambda x: x[1])
        if lines > MAX_LINES:
            failures.append(f"FAIL: {rel} has {lines} lines, over {MAX_LINES}: gate/cli/ parses and prints; split "
                            f"it (a file per subcommand, or the shared flags apart), or move what is not parsing "
                            f"or printing to the layer below")
        code = without_comments(text)
        for m in CALL.finditer(code):
            if name in DECLARES:
                calls += 1
                continue
            line = code.count("\n", 0, m.start()) + 1
            failures.append(f"FAIL: {rel}:{line} calls CLI11's {m.group(0).rstrip('( ')}: declare the flag "
                            f"through gate/cli/flags.hpp (option, flag, flag_callback) with its Rerun rule")
if files == 0:
    sys.exit(f"FAIL: no files under {os.path.relpath(cli, root)}")
if calls == 0:
    failures.append("FAIL: gate/cli/flags.* calls none of CLI11's add_option or add_flag: where are flags declared?")
if failures:
    print("\n".join(failures))
    sys.exit(1)
print(f"ok: {files} files under gate/cli/, the longest {longest[0]} ({longest[1]} lines, at most {MAX_LINES}); "
      f"CLI11's add_option/add_flag called only in flags.* ({calls} calls)")
