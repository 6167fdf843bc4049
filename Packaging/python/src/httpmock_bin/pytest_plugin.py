"""pytest plugin: the `httpmock` fixture, a fresh `httpmock` server per test.

    def test_users(httpmock):
        Mappings.create_mapping(...)            # the `wiremock` client is pointed at it
        requests.get(httpmock.url + "/users/1")

Each server listens on a free loopback port (`httpmock run --port 0`, whose first line of
standard output is its URL), is ready when `GET /__admin/health` answers, logs to a file
(`httpmock.log_path`, shown in the report of a failing test) and is stopped (SIGTERM) at
teardown. While it runs, `wiremock.constants.Config.base_url` is its admin URL.

Mappings to load:
- `@pytest.mark.httpmock(wiremock_root="wiremock")`: a WireMock root (`mappings/**/*.json`,
  `__files/`); `mocks="mocks"`: an HTTPMock mocks folder; `args=[...]`: more `httpmock serve`
  options. Relative paths are read from the test file's folder.
- ini options `httpmock_wiremock_root`, `httpmock_mocks` and `httpmock_args` (relative to the
  ini file's folder): the default for every test without a marker.
- `httpmock_factory(wiremock_root=..., mocks=..., args=[...])`: more servers in one test
  (relative paths from the test file's folder too).

`HTTPMOCK_BIN` names another `httpmock` binary than the packaged one.
"""

import os
import shlex
import subprocess
import threading
import time
import urllib.error
import urllib.request

import pytest

import httpmock_bin

_SERVERS = pytest.StashKey()


class HTTPMockServer:
    """One running `httpmock` started by the fixture."""

    def __init__(self, process, url, log_path, args):
        self.process = process
        #: The base URL, as `http://127.0.0.1:PORT` (no trailing slash).
        self.url = url
        #: The admin API's URL, `http://127.0.0.1:PORT/__admin` (WireMock's clients want this).
        self.admin_url = url + "/__admin"
        #: The file the server's log goes to (every exchange, every near-miss report).
        self.log_path = log_path
        self.args = args

    @property
    def port(self):
        return int(self.url.rsplit(":", 1)[1])

    def log(self):
        """Everything the server has logged so far."""
        with open(self.log_path, encoding="utf-8", errors="replace") as handle:
            return handle.read()

    def stop(self, timeout=30):
        """SIGTERM, then SIGKILL after `timeout` seconds; the exit status."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode

    def __repr__(self):
        return f"<HTTPMockServer {self.url} log={self.log_path}>"


def _binary():
    return os.environ.get("HTTPMOCK_BIN") or httpmock_bin.binary_path()


def _first_line(stream, timeout):
    """The first line of `stream`, or None when it ends or `timeout` seconds pass first."""
    found = []
    reader = threading.Thread(target=lambda: found.append(stream.readline()), daemon=True)
    reader.start()
    reader.join(timeout)
    return found[0] if found and found[0] else None


def start_server(*, wiremock_root=None, mocks=None, args=(), log_path, cwd=None, timeout=60.0):
    """Starts `httpmock run --port 0` with the given sources; returns it once
    `/__admin/health` answers. Raises RuntimeError with the log when it does not start."""
    command = [_binary(), "run", "--port", "0"]
    if mocks is not None:
        command.append(os.fspath(mocks))
    if wiremock_root is not None:
        command += ["--wiremock-root", os.fspath(wiremock_root)]
    command += [str(arg) for arg in args]
    log = open(log_path, "wb")
    try:
        process = subprocess.Popen(command, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log)
    finally:
        log.close()

    def fail(why):
        with open(log_path, encoding="utf-8", errors="replace") as handle:
            text = handle.read()
        raise RuntimeError(f"httpmock did not start ({why}): {shlex.join(command)}\n{text}")

    try:
        return _wait_until_ready(process, command, log_path, timeout, fail)
    except BaseException:
        # Nothing is left running when start-up fails (or the test run is interrupted).
        if process.poll() is None:
            process.kill()
            process.wait()
        raise


def _wait_until_ready(process, command, log_path, timeout, fail):
    deadline = time.monotonic() + timeout
    line = _first_line(process.stdout, timeout)
    if line is None:
        if process.poll() is None:
            process.kill()  # ends the reader's readline too
            process.wait()
            fail(f"no URL within {timeout} s")
        fail(f"exit status {process.returncode}")
    # `run` writes its URL alone on standard output; nothing else comes there.
    process.stdout.close()
    url = line.decode("utf-8", "replace").strip().rstrip("/")
    server = HTTPMockServer(process, url, log_path, command)
    if "--no-admin" in command:
        return server
    while True:
        try:
            with urllib.request.urlopen(server.admin_url + "/health", timeout=5) as answer:
                if answer.status == 200:
                    return server
        except (urllib.error.URLError, OSError):
            pass
        if process.poll() is not None:
            fail(f"exit status {process.returncode}")
        if time.monotonic() > deadline:
            fail(f"GET {server.admin_url}/health did not answer within {timeout} s")
        time.sleep(0.05)


def pytest_addoption(parser):
    parser.addini("httpmock_wiremock_root", "A WireMock root (mappings/, __files/) every httpmock fixture loads", type="paths")
    parser.addini("httpmock_mocks", "An HTTPMock mocks folder every httpmock fixture serves", type="paths")
    parser.addini("httpmock_args", "More `httpmock serve` options for every httpmock fixture", type="args")


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "httpmock(wiremock_root=None, mocks=None, args=()): what the httpmock fixture loads "
        "(paths relative to the test file's folder)",
    )


def _point_wiremock_client(admin_url):
    """Points the `wiremock` package's client at `admin_url`; returns how to undo it."""
    try:
        from wiremock.constants import Config
    except ImportError:
        return lambda: None
    previous = Config.base_url
    Config.base_url = admin_url

    def restore():
        Config.base_url = previous

    return restore


@pytest.fixture
def httpmock_factory(request, tmp_path):
    """`httpmock_factory(wiremock_root=None, mocks=None, args=())` starts one more server for
    this test (see `start_server`; relative paths are read from the test file's folder); every
    one is stopped at teardown. The `wiremock` client points at the one started last."""
    servers = request.node.stash.setdefault(_SERVERS, [])
    undo = []

    here = request.path.parent

    def start(*, wiremock_root=None, mocks=None, args=()):
        log_path = tmp_path / f"httpmock-{len(servers) + 1}.log"
        wiremock_root, mocks = (None if path is None else here / path for path in (wiremock_root, mocks))
        server = start_server(wiremock_root=wiremock_root, mocks=mocks, args=args, log_path=log_path, cwd=tmp_path)
        servers.append(server)
        undo.append(_point_wiremock_client(server.admin_url))
        return server

    yield start
    for restore in reversed(undo):
        restore()
    for server in servers:
        server.stop()


@pytest.fixture
def httpmock(request, httpmock_factory):
    """A fresh `httpmock` for this test: what `@pytest.mark.httpmock(...)` names, else the
    `httpmock_*` ini options, else an empty instance (stubs through the admin API)."""
    marker = request.node.get_closest_marker("httpmock")
    if marker is not None:
        if marker.args:
            raise pytest.UsageError("@pytest.mark.httpmock takes keywords only: wiremock_root=, mocks=, args=")
        unknown = set(marker.kwargs) - {"wiremock_root", "mocks", "args"}
        if unknown:
            raise pytest.UsageError(f"@pytest.mark.httpmock: unknown keyword {', '.join(sorted(unknown))} (wiremock_root, mocks, args)")
        return httpmock_factory(
            wiremock_root=marker.kwargs.get("wiremock_root"), mocks=marker.kwargs.get("mocks"), args=marker.kwargs.get("args", ())
        )
    config = request.config

    def one(name):
        paths = config.getini(name)
        if len(paths) > 1:
            raise pytest.UsageError(f"ini option {name}: one folder, got {len(paths)}")
        return paths[0] if paths else None

    return httpmock_factory(wiremock_root=one("httpmock_wiremock_root"), mocks=one("httpmock_mocks"), args=config.getini("httpmock_args"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed:
        for number, server in enumerate(item.stash.get(_SERVERS, []), 1):
            try:
                text = server.log()
            except OSError:
                continue
            report.sections.append((f"httpmock log {number} ({server.log_path})", text[-20000:]))
