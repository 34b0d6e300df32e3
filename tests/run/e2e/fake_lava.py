#!/usr/bin/python3
"""A LAVA server's REST API as far as one failing job goes, for the tests
that need a server but not LAVA itself (run.e2e.lava_secrets): a submission
is job 7, which is at once Finished, Incomplete, with an empty log. Every
request's Authorization header is appended to the file given second.
Usage: fake_lava.py PORT_FILE AUTH_LOG (it writes the port it listens on)."""
import http.server
import json
import os
import sys


class Handler(http.server.BaseHTTPRequestHandler):
    def answer(self, code, body, kind="application/json"):
        data = body.encode()
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def record(self):
        with open(sys.argv[2], "a") as log:
            log.write("%s %s %s\n" % (self.command, self.path, self.headers.get("Authorization", "-")))

    def do_POST(self):
        self.record()
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path == "/api/v0.2/jobs/":
            self.answer(201, json.dumps({"job_ids": [7]}))
        else:
            self.answer(200, "{}")

    def do_GET(self):
        self.record()
        if self.path == "/api/v0.2/jobs/7/":
            self.answer(200, json.dumps({"id": 7, "state": "Finished", "health": "Incomplete",
                                         "actual_device": "qemu-01",
                                         "failure_comment": "the fake server runs nothing"}))
        elif self.path == "/api/v0.2/jobs/7/logs/":
            self.answer(200, "[]\n", "application/yaml")
        else:
            self.answer(404, "{}")

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
server.serve_forever()
