"""The `httpmock` binary (HTTPMock's command line, built statically), for tests in any language,
with a pytest plugin (the `httpmock` fixture: see `httpmock_bin.pytest_plugin`).

    httpmock serve --port 8080            # the console script this package installs
    python -m httpmock_bin serve --port 8080
    python -c "import httpmock_bin; print(httpmock_bin.binary_path())"
"""

import os
import sys

__all__ = ["binary_path", "main"]


def binary_path():
    """The path of the `httpmock` executable inside this package."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "httpmock")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"httpmock_bin: no httpmock binary at {path}: the wheel was built without one")
    return path


def main():
    """Runs the binary with this process's arguments, in its place (signals reach it directly)."""
    path = binary_path()
    os.execv(path, [path, *sys.argv[1:]])
