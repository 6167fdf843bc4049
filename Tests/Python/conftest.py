"""Fixtures: the `httpmock` CLI built by `swift build --traits Server --scratch-path .build-server`,
spawned on a free loopback port; a plain upstream HTTP server for forwarding tests."""

import http.server
import os
import pathlib
import queue
import subprocess
import threading

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = pathlib.Path(__file__).resolve().parent / "fixtures"


def httpmock_binary():
    path = os.environ.get("HTTPMOCK_BIN", str(ROOT / ".build-server" / "debug" / "httpmock"))
    if not os.path.exists(path):
        pytest.fail(f"httpmock not built at {path}: swift build --traits Server --scratch-path .build-server")
    return path


class Served:
    """One spawned `httpmock serve`: its base URL and everything it printed."""

    def __init__(self, args, cwd):
        self.process = subprocess.Popen(
            [httpmock_binary(), "serve", "--port", "0", *args],
            cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        self.lines = queue.Queue()
        self.output = []
        threading.Thread(target=self._read, daemon=True).start()
        self.base_url = None
        while self.base_url is None:
            try:
                line = self.lines.get(timeout=30)
            except queue.Empty:
                self.stop()
                pytest.fail("httpmock did not start within 30 s: " + "".join(self.output))
            if line is None:
                pytest.fail("httpmock exited: " + "".join(self.output))
            if "serving on " in line:
                self.base_url = line.split("serving on ", 1)[1].strip()

    def _read(self):
        for line in self.process.stdout:
            self.output.append(line)
            self.lines.put(line)
        self.lines.put(None)

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()


@pytest.fixture
def serve(tmp_path):
    """`serve(*args)` starts `httpmock serve --port 0 ARGS` in an empty folder; stopped after the test."""
    started = []

    def start(*args):
        served = Served(list(args), cwd=tmp_path)
        started.append(served)
        return served

    yield start
    for served in started:
        served.stop()


@pytest.fixture
def upstream():
    """A plain HTTP server that answers every GET/POST with what it received, as JSON."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def _answer(self):
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode() if length else ""
            payload = ('{"upstream": true, "method": "%s", "path": "%s", "body": "%s"}' % (self.command, self.path, body)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("X-Upstream", "yes")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        do_GET = _answer
        do_POST = _answer

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
