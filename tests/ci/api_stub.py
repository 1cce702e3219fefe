"""A local HTTP server standing for what CI jobs talk to (imported by action_test.py and adopt_test.py):
a release's download folder, GitHub's issue-comment API and GitLab's merge-request-note API. Every
request is recorded (method, path, credentials, body), so a test can say what was downloaded, posted
and updated. Tokens: GitHub `Bearer test-token`, GitLab `PRIVATE-TOKEN: gl-token`; anything else is 401.

  GET  /OWNER/REPO/releases/download/...        files under release_dir (404 when absent)
  GET  /repos/acme/shop/issues/N/comments        POST the same; PATCH /repos/acme/shop/issues/comments/ID
  GET  /api/v4/projects/42/merge_requests/N/notes  POST the same; PUT .../notes/ID"""
import http.server
import json
import os
import re
import threading


class Stub:
    def __init__(self, release_dir=None):
        self.release_dir = release_dir
        self.requests = []
        self.comments = {}   # GitHub: id -> {"id", "issue", "body"}
        self.notes = {}      # GitLab: id -> {"id", "mr", "body"}
        self._next = [1000]
        stub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _send(self, code, obj):
                data = json.dumps(obj).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _handle(self, method):
                n = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(n)) if n else None
                stub.requests.append({"method": method, "path": self.path, "auth": self.headers.get("Authorization"),
                                      "private_token": self.headers.get("PRIVATE-TOKEN"), "body": body})
                code, obj = stub.route(method, self.path, self.headers, body)
                if isinstance(obj, bytes):
                    self.send_response(code)
                    self.send_header("Content-Length", str(len(obj)))
                    self.end_headers()
                    self.wfile.write(obj)
                else:
                    self._send(code, obj)

            def do_GET(self):
                self._handle("GET")

            def do_POST(self):
                self._handle("POST")

            def do_PATCH(self):
                self._handle("PATCH")

            def do_PUT(self):
                self._handle("PUT")

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def shutdown(self):
        self.server.shutdown()

    def new_id(self):
        self._next[0] += 1
        return self._next[0]

    def route(self, method, path, headers, body):
        m = re.fullmatch(r"/[\w.-]+/[\w.-]+/releases/download/(.*)", path)
        if m and method == "GET":
            f = os.path.join(self.release_dir or "/nonexistent", os.path.normpath(m.group(1)).lstrip("/."))
            return (200, open(f, "rb").read()) if self.release_dir and os.path.isfile(f) else (404, {"message": "Not Found"})
        if path.startswith("/repos/"):
            if headers.get("Authorization") != "Bearer test-token":
                return 401, {"message": "Bad credentials"}
            m = re.fullmatch(r"/repos/acme/shop/issues/(\d+)/comments(\?.*)?", path)
            if m and method == "GET":
                return 200, [c for c in self.comments.values() if c["issue"] == int(m.group(1))]
            if m and method == "POST":
                cid = self.new_id()
                self.comments[cid] = {"id": cid, "issue": int(m.group(1)), "body": body["body"]}
                return 201, self.comments[cid]
            m = re.fullmatch(r"/repos/acme/shop/issues/comments/(\d+)", path)
            if m and method == "PATCH" and int(m.group(1)) in self.comments:
                self.comments[int(m.group(1))]["body"] = body["body"]
                return 200, self.comments[int(m.group(1))]
        if path.startswith("/api/v4/"):
            if headers.get("PRIVATE-TOKEN") != "gl-token":
                return 401, {"message": "401 Unauthorized"}
            m = re.fullmatch(r"/api/v4/projects/42/merge_requests/(\d+)/notes(\?.*)?", path)
            if m and method == "GET":
                return 200, [n for n in self.notes.values() if n["mr"] == int(m.group(1))]
            if m and method == "POST":
                nid = self.new_id()
                self.notes[nid] = {"id": nid, "mr": int(m.group(1)), "body": body["body"], "system": False}
                return 201, self.notes[nid]
            m = re.fullmatch(r"/api/v4/projects/42/merge_requests/(\d+)/notes/(\d+)", path)
            if m and method == "PUT" and int(m.group(2)) in self.notes:
                self.notes[int(m.group(2))]["body"] = body["body"]
                return 200, self.notes[int(m.group(2))]
        return 404, {"message": "Not Found"}

    def made(self, method=None, since=0):
        return [q for q in self.requests[since:] if method is None or q["method"] == method]
