#!/usr/bin/env python3
"""gate's report as one pull-request comment (GitHub) or merge-request note (GitLab) per config,
found again by a hidden marker and updated in place on each push (so a change holds one current
report per config, not one per push). Shipped in the release beside gate (ci/comment.py).

Usage: comment.py github | gitlab [--outputs FILE]
  --outputs FILE: also append the verdict as KEY=VALUE lines (GATE_VERDICT, GATE_EXIT_CODE,
  GATE_REGRESSIONS, GATE_SUSPECTS): GitLab's dotenv report, read by later jobs.

When (GATE_COMMENT): always; on-change (default): when the report flags something (a regression,
a suspect, an improvement, or gate could not start or measure) or when an earlier comment of this
config exists (it is updated, e.g. to "no regression", so it never shows a stale verdict);
never. Outside a pull or merge request: nothing.

Environment: GATE_COMMENT, GATE_CONFIG, GATE_REPORT_DIR, GATE_VERDICT (pass, regression, error),
GATE_HOST, GATE_ARTIFACT; GitHub (the action's step sets it): GITHUB_TOKEN, GITHUB_API_URL,
GITHUB_REPOSITORY, GITHUB_EVENT_PATH; GitLab (the job's predefined variables): CI_API_V4_URL,
CI_PROJECT_ID, CI_MERGE_REQUEST_IID, and GATE_GITLAB_TOKEN, a project or personal access token with
the api scope (CI_JOB_TOKEN may not write notes), sent as PRIVATE-TOKEN.
Python's standard library only (GitHub's runners and the golang:*-bookworm images have python3).
A comment that cannot be posted (a fork's read-only token, no token, an API error) is a warning, not a
failed job: the verdict is the job's, the comment only its messenger. Exit 0 always, but on a usage error."""
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

MAX_BODY = 65000  # GitHub refuses comment bodies over 65,536 characters (GitLab allows 1,000,000)


def warn(platform, msg):
    if platform == "github":
        print(f"::warning title=gate: no pull-request comment::{msg}", flush=True)
    else:
        print(f"gate: WARNING: no merge-request note: {msg}", flush=True)


def api(method, url, headers, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={
        "User-Agent": "gate-ci", **headers,
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


def counts(report_dir):
    try:
        return json.load(open(os.path.join(report_dir, "report.json"))).get("counts", {})
    except (OSError, ValueError):
        return {}


def flagged(report_dir, verdict):
    if verdict not in ("pass", ""):
        return True  # a regression, or gate could not start or measure
    c = counts(report_dir)
    return any(c.get(k, 0) for k in ("regression", "suspect", "improvement"))


class GitHub:
    """Issue comments of the pull request in GITHUB_EVENT_PATH."""
    name, thing, fix = "github", "pull request", "give the job `permissions: pull-requests: write` (a pull request from a fork gets a read-only token)"

    def __init__(self):
        try:
            event = json.load(open(os.environ.get("GITHUB_EVENT_PATH", "")))
        except (OSError, ValueError):
            event = {}
        self.number = (event.get("pull_request") or {}).get("number")
        self.token = os.environ.get("GITHUB_TOKEN", "")
        self.api = os.environ.get("GITHUB_API_URL", "https://api.github.com").rstrip("/")
        self.repo = os.environ.get("GITHUB_REPOSITORY", "")
        self.missing = "" if self.token and self.repo else "no github-token or GITHUB_REPOSITORY: set the github-token input (default: the job's token)"
        self.headers = {"Accept": "application/vnd.github+json", "Authorization": f"Bearer {self.token}",
                        "X-GitHub-Api-Version": "2022-11-28"}
        self.list_url = f"{self.api}/repos/{self.repo}/issues/{self.number}/comments?per_page=100"
        self.post_url = f"{self.api}/repos/{self.repo}/issues/{self.number}/comments"

    def update(self, item, body):
        api("PATCH", f"{self.api}/repos/{self.repo}/issues/comments/{item['id']}", self.headers, {"body": body})


class GitLab:
    """Notes of the merge request CI_MERGE_REQUEST_IID, through GitLab's REST API (v4)."""
    name, thing = "gitlab", "merge request"
    fix = "set GATE_GITLAB_TOKEN to a project access token with the api scope (Reporter or above), as a masked CI/CD variable"

    def __init__(self):
        self.number = os.environ.get("CI_MERGE_REQUEST_IID", "")
        self.token = os.environ.get("GATE_GITLAB_TOKEN", "")
        self.api = os.environ.get("CI_API_V4_URL", "").rstrip("/")
        project = urllib.parse.quote(os.environ.get("CI_PROJECT_ID", ""), safe="")
        self.missing = "" if self.token and self.api and project else \
            "GATE_GITLAB_TOKEN is not set (or CI_API_V4_URL / CI_PROJECT_ID are missing): " + self.fix
        self.headers = {"PRIVATE-TOKEN": self.token}
        self.post_url = f"{self.api}/projects/{project}/merge_requests/{self.number}/notes"
        self.list_url = self.post_url + "?per_page=100&sort=asc"

    def update(self, item, body):
        api("PUT", f"{self.post_url}/{item['id']}", self.headers, {"body": body})


def write_outputs(path, report_dir, verdict):
    """The verdict as KEY=VALUE lines (GitLab's dotenv report; an env file for any CI)."""
    c = counts(report_dir)
    exit_code = {"pass": "0", "regression": "1"}.get(verdict, os.environ.get("GATE_EXIT_CODE", ""))
    with open(path, "a") as f:
        f.write(f"GATE_VERDICT={verdict}\nGATE_EXIT_CODE={exit_code}\n"
                f"GATE_REGRESSIONS={c.get('regression', '')}\nGATE_SUSPECTS={c.get('suspect', '')}\n")


def main(argv):
    if len(argv) < 1 or argv[0] not in ("github", "gitlab") or (len(argv) > 1 and (argv[1] != "--outputs" or len(argv) != 3)):
        print("usage: comment.py github | gitlab [--outputs FILE]", file=sys.stderr)
        return 2
    report_dir = os.environ.get("GATE_REPORT_DIR", "gate-report")
    verdict = os.environ.get("GATE_VERDICT", "")
    if len(argv) == 3:
        write_outputs(argv[2], report_dir, verdict)
    platform = GitHub() if argv[0] == "github" else GitLab()
    mode = os.environ.get("GATE_COMMENT", "on-change")
    if mode not in ("on-change", "always", "never"):
        print(f"gate: error: the comment setting is '{mode}': use on-change, always or never", flush=True)
        return 2
    if mode == "never":
        return 0
    number = platform.number
    if not number:
        print(f"gate: not a {platform.thing}: no comment")
        return 0
    if platform.missing:
        warn(platform.name, platform.missing)
        return 0
    config = os.environ.get("GATE_CONFIG", "gate.yaml")
    marker = f"<!-- gate-report config={config} -->"

    # The earlier comment of this config, if any (every page: busy pull requests have many).
    existing = None
    url = platform.list_url
    try:
        while url and existing is None:
            items, headers = api("GET", url, platform.headers)
            existing = next((c for c in items or [] if marker in (c.get("body") or "")), None)
            url = next_link(headers)
    except (urllib.error.URLError, OSError, ValueError) as e:
        warn(platform.name, f"could not list the comments of {platform.thing} {number} ({e}): {platform.fix}")
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
            platform.update(existing, body)
            print(f"gate: updated comment {existing['id']} on {platform.thing} {number}")
        else:
            made, _ = api("POST", platform.post_url, platform.headers, {"body": body})
            print(f"gate: posted comment {(made or {}).get('id')} on {platform.thing} {number}")
    except (urllib.error.URLError, OSError, ValueError) as e:
        warn(platform.name, f"could not post on {platform.thing} {number} ({e}): {platform.fix}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
