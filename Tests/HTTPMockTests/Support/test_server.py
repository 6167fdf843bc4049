#!/usr/bin/env python3
"""A loopback HTTP server for HTTPMock's passthrough tests.

Binds 127.0.0.1 on a free port, prints the port on stdout, and serves until its stdin closes
(so it dies with the test process that started it). Never reaches beyond loopback.

Routes:
  GET  /hello          200 text/plain "hello from python", Set-Cookie: origin=python
  ANY  /echo           200 application/json {"method", "path", "body", "headers"}
  GET  /status/<code>  that status, body "status <code>"
  GET  /slow           answers after 30 seconds (longer than any timeout a test waits for)
  GET  /redirect       302 to /hello
"""
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, status, body, content_type="text/plain", headers=None):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode(errors="replace") if length else ""
        path = self.path.split("?")[0]
        if path == "/hello":
            self.send(200, "hello from python", headers={"Set-Cookie": "origin=python; Path=/", "X-Server": "python"})
        elif path == "/echo":
            payload = {"method": self.command, "path": self.path, "body": body,
                       "headers": {k.lower(): v for k, v in self.headers.items()}}
            self.send(200, json.dumps(payload), "application/json")
        elif path.startswith("/status/"):
            code = int(path.rsplit("/", 1)[1])
            self.send(code, f"status {code}")
        elif path == "/slow":
            time.sleep(30)
            self.send(200, "finally")
        elif path == "/redirect":
            self.send(302, "", headers={"Location": "/hello"})
        else:
            self.send(404, "not found")

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = handle_any


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()  # returns when the parent closes our stdin or dies
    os._exit(0)


if __name__ == "__main__":
    main()
