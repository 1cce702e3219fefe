#!/usr/bin/env python3
"""The action's pull-request comment: gate's Markdown report, one comment per config, found again
by a hidden marker and updated in place on each push (so a pull request holds one current
report per config, not one per push).

When (GATE_COMMENT): always; on-change (default): when the report flags something (a regression,
a suspect, an improvement, or gate could not start or measure) or when an earlier comment of this
config exists (it is updated, e.g. to "no regression", so it never shows a stale verdict);
never. Outside a pull_request event (no pull request number in GITHUB_EVENT_PATH): nothing.

Environment (the action's step sets it): GITHUB_TOKEN, GITHUB_API_URL, GITHUB_REPOSITORY,
GITHUB_EVENT_PATH, GATE_COMMENT, GATE_CONFIG, GATE_REPORT_DIR, GATE_VERDICT, GATE_HOST,
GATE_ARTIFACT. Python's standard library only (GitHub's runners have python3).
A comment that cannot be posted (a fork's read-only token, an API error) is a warning, not a failed
job: the verdict is the job's, the comment only its messenger. Exit 0 always, but on a usage error."""
import json
import os
import sys
import urllib.error
import urllib.request

MAX_BODY = 65000  # GitHub refuses comment bodies over 65,536 characters


def warn(msg):
    print(f"::warning title=gate: no pull-request comment::{msg}", flush=True)


def api(method, url, token, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={
        "Accept": "application/vnd.github+json",
        "Authorization": f"Bearer {token}",
        "X-GitHub-Api-Version": "2022-11-28",
        "User-Agent": "gate-action",
        **({"Content-Type": "application/json"} if data is not None else {}),
    })
    with urllib.request.urlopen(req, timeout=30) as r:
        text = r.read().decode()
        return json.loads(text) if text else None, r.headers


def next_link(headers):
    for part in (headers.get("Link") or "").split(","):
        if 'rel="next"' in part:
            return part[part.index("<") + 1:part.index(">")]
    return None


def flagged(report_dir, verdict):
    if verdict not in ("pass", ""):
        return True  # a regression, or gate could not start or measure
    try:
        counts = json.load(open(os.path.join(report_dir, "report.json"))).get("counts", {})
    except (OSError, ValueError):
        return False
    return any(counts.get(k, 0) for k in ("regression", "suspect", "improvement"))


def main():
    mode = os.environ.get("GATE_COMMENT", "on-change")
    if mode not in ("on-change", "always", "never"):
        print(f"::error title=gate: comment input::comment is '{mode}': use on-change, always or never")
        return 2
    if mode == "never":
        return 0
    try:
        event = json.load(open(os.environ.get("GITHUB_EVENT_PATH", "")))
    except (OSError, ValueError):
        event = {}
    number = (event.get("pull_request") or {}).get("number")
    if not number:
        print("gate: not a pull_request event: no comment")
        return 0
    token = os.environ.get("GITHUB_TOKEN", "")
    api_url = os.environ.get("GITHUB_API_URL", "https://api.github.com").rstrip("/")
    repo = os.environ.get("GITHUB_REPOSITORY", "")
    config = os.environ.get("GATE_CONFIG", "gate.yaml")
    report_dir = os.environ.get("GATE_REPORT_DIR", "gate-report")
    verdict = os.environ.get("GATE_VERDICT", "")
    if not token or not repo:
        warn("no github-token or GITHUB_REPOSITORY: set the github-token input (default: the job's token)")
        return 0
    marker = f"<!-- gate-report config={config} -->"

    # The earlier comment of this config, if any (every page: busy pull requests have many).
    existing = None
    url = f"{api_url}/repos/{repo}/issues/{number}/comments?per_page=100"
    try:
        while url and existing is None:
            comments, headers = api("GET", url, token)
            existing = next((c for c in comments or [] if marker in (c.get("body") or "")), None)
            url = next_link(headers)
    except (urllib.error.URLError, OSError, ValueError) as e:
        warn(f"could not list the comments of pull request #{number} ({e}): give the job "
             "`permissions: pull-requests: write` (a pull request from a fork gets a read-only token)")
        return 0

    if mode == "on-change" and existing is None and not flagged(report_dir, verdict):
        print(f"gate: nothing flagged and no earlier comment for {config}: no comment (comment: on-change)")
        return 0

    try:
        report = open(os.path.join(report_dir, "report.md")).read()
    except OSError:
        report = "gate wrote no Markdown report: see the job's log."
    title = {"pass": "no regression", "regression": "**regression**", "error": "**could not run**"}.get(verdict, verdict)
    footer = []
    if os.environ.get("GATE_ARTIFACT"):
        footer.append(f"reports: artifact `{os.environ['GATE_ARTIFACT']}`")
    if os.environ.get("GATE_HOST"):
        footer.append(f"runner: {os.environ['GATE_HOST']}")
    body = f"{marker}\n### gate: `{config}`: {title}\n\n{report.strip()}\n"
    if footer:
        body += "\n<sub>" + "; ".join(footer) + "</sub>\n"
    if len(body) > MAX_BODY:
        body = body[:MAX_BODY - 200] + "\n\n... (cut: the whole report is in the artifact)\n"
    try:
        if existing is not None:
            api("PATCH", f"{api_url}/repos/{repo}/issues/comments/{existing['id']}", token, {"body": body})
            print(f"gate: updated comment {existing['id']} on pull request #{number}")
        else:
            made, _ = api("POST", f"{api_url}/repos/{repo}/issues/{number}/comments", token, {"body": body})
            print(f"gate: posted comment {(made or {}).get('id')} on pull request #{number}")
    except (urllib.error.URLError, OSError, ValueError) as e:
        warn(f"could not post on pull request #{number} ({e}): give the job `permissions: pull-requests: write`")
    return 0


if __name__ == "__main__":
    sys.exit(main())
