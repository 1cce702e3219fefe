#!/usr/bin/env python3
"""No sentences in gate/stats/, gate/verdict/ and the folders that left it (issue 57): they return values and
enums, and gate/explain/ writes every sentence a report, a log or a progress line shows from them. Usage:
no_sentences_test.py GATE_ROOT

A sentence here is a string literal holding a space followed by a lowercase word ("all functions
together", "%d pairs of A/A runs"). Not counted:
- error messages, which stay where the error is raised: a literal inside the arguments of a call
  that builds a gate::Error (ERROR_CALLS), in a `throw` statement, or assigned to a variable whose
  name starts with `cause` or `fix` (the parts of an Error built over several lines);
- comments;
- NAMES below: a name some schema or seed holds, which no sentence replaces.
TODO below lists, per file, how many sentences are still to move (issue 57 phase 2a ran out of
time): the count must match, so a new sentence fails the test and a moved one asks to lower it."""
import os
import re
import sys

# Calls whose string arguments are an error's text, each a helper that returns or throws gate::Error.
ERROR_CALLS = {
    "make",          # Error::make(object, cause, fix)
    "Error",         # Error(cause)
    "err",           # runner's Ctx::err(node, key, cause, fix): a config error at file:line
    "bad",           # stats/compare_options.cpp, sharding/shards.cpp: an Error of the option or flag at hand
    "usage",         # sharding/shards.cpp: Error::make with ExitCode::kUsage
    "require_same",  # sharding/shards.cpp: throws usage(...) naming the partial that differs
    "static_assert", # a compile-time message
}

# The folders that return values: verdict/ and what left it (annotate/: the why-annotations;
# sharding/: the shards' plan and merge; calibrate/: gate calibrate's A/A).
FOLDERS = ("gate/stats", "gate/verdict", "gate/annotate", "gate/sharding", "gate/calibrate")

# (file, literal): a name, not a sentence; each says why it stays.
NAMES = {
    # Verdict's name as the JSON and JUnit write it (stats::to_string(Verdict)): a schema value.
    ("gate/stats/comparison.cpp", "insufficient data"),
    # Multiplicity's name as the config's `multiplicity:` and the JSON spell it: a schema value.
    ("gate/stats/multiplicity.cpp", "Holm, p50 first"),
    # The common shift's test name in the JSON ("name": "all functions"): a schema value.
    ("gate/stats/compare.cpp", "all functions"),
    # Seed keys (test_seed, fnv1a64): renaming one changes every bootstrap drawn from it.
    ("gate/stats/compare.cpp", "(all functions)"),
    ("gate/stats/instrument.cpp", "sampled cpu/call"),
    # A command line the user runs (the report's "pprof:" value and its log line), not prose.
    ("gate/annotate/change_notes.cpp", "go tool pprof -diff_base "),
}

# File -> sentences still to move to explain/ (TODO, issue 57 phase 2b with verdict/'s split).
TODO = {
}


def literals(src):
    """(line, text, enclosing call names, the statement before the literal) of each string literal
    outside comments."""
    out, stack, i, line, stmt = [], [], 0, 1, 0
    n = len(src)
    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
        elif src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
            continue
        elif src.startswith("/*", i):
            j = src.find("*/", i)
            line += src.count("\n", i, j)
            i = j + 2
            continue
        elif src.startswith('R"', i) and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")):
            m = re.match(r'R"([^(]*)\(', src[i:])
            end = src.find(")" + m.group(1) + '"', i)
            text = src[i + len(m.group(0)):end]
            out.append((line, text, list(stack), src[stmt:i]))
            line += text.count("\n")
            i = end + len(m.group(1)) + 2
            continue
        elif c == "'":
            j = i + 1
            while src[j] != "'":
                j += 2 if src[j] == "\\" else 1
            i = j + 1
            continue
        elif c == '"':
            j = i + 1
            while src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            out.append((line, src[i + 1:j], list(stack), src[stmt:i]))
            i = j + 1
            continue
        elif c == "(":
            m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*$", src[max(0, i - 80):i])
            stack.append(m.group(1) if m else "")
        elif c == ")":
            if stack:
                stack.pop()
        elif c in ";{}":
            stmt = i + 1
        i += 1
    return out


def is_error_text(calls, stmt):
    s = re.sub(r"//[^\n]*|/\*.*?\*/", "", stmt, flags=re.S).strip()  # the statement, its comments left out
    return (any(k in ERROR_CALLS for k in calls) or s.startswith("throw") or
            re.match(r"(const\s+)?(std::string|auto)\s+(cause|fix)\w*\s*=", s) or re.match(r"(cause|fix)\w*\s*\+?=", s))


def main():
    root = sys.argv[1]
    found = {}
    for folder in FOLDERS:
        for name in sorted(os.listdir(os.path.join(root, folder))):
            if not name.endswith((".cpp", ".hpp")):
                continue
            rel = f"{folder}/{name}"
            for line, text, calls, stmt in literals(open(os.path.join(root, rel)).read()):
                if re.search(r" [a-z][a-z]+", text) and not is_error_text(calls, stmt) and (rel, text) not in NAMES:
                    found.setdefault(rel, []).append((line, text))
    failed = False
    for rel, hits in sorted(found.items()):
        if rel in TODO and len(hits) == TODO[rel]:
            continue
        failed = True
        why = (f"TODO says {TODO[rel]}: lower it" if rel in TODO and len(hits) < TODO[rel] else
               "move the wording to gate/explain/ (a function from the values this file returns)")
        print(f"FAIL: {rel}: {len(hits)} sentence(s) in string literals; {why}")
        for line, text in hits:
            print(f"  {rel}:{line}: \"{text}\"")
    for rel in sorted(set(TODO) - set(found)):
        failed = True
        print(f"FAIL: {rel} has no sentence left: remove its TODO entry")
    if failed:
        sys.exit(1)
    print(f"ok: no sentence in {', '.join(f + '/' for f in FOLDERS)} outside error messages and {len(NAMES)} names; "
          f"TODO: {sum(TODO.values())} in {len(TODO)} files")


main()
