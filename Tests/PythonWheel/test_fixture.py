"""The `httpmock` fixture of the installed `httpmock-bin` wheel (Packaging/python), through
real clients: urllib and Python's `wiremock` package. Run by .ci/wheel in a fresh virtual
environment where only the wheel (with its `pytest` extra) is installed."""

import json
import os
import pathlib
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request

import httpmock_bin
import pytest
from wiremock.constants import Config
from wiremock.resources.mappings import Mapping, MappingRequest, MappingResponse
from wiremock.resources.mappings.resource import Mappings
from wiremock.resources.requests.resource import Requests

HERE = pathlib.Path(__file__).resolve().parent


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_fixture_serves_an_empty_instance_the_wiremock_client_drives(httpmock):
    assert httpmock.url.startswith("http://127.0.0.1:")
    assert Config.base_url == httpmock.url + "/__admin"
    assert get(httpmock.url + "/__admin/health")[0] == 200
    Mappings.create_mapping(
        Mapping(
            request=MappingRequest(method="GET", url_path="/users/1"),
            response=MappingResponse(status=200, json_body={"id": 1, "name": "Ada"}),
        )
    )
    status, body = get(httpmock.url + "/users/1")
    assert status == 200
    assert json.loads(body) == {"id": 1, "name": "Ada"}
    assert Requests.get_all_received_requests().meta.total == 1
    assert get(httpmock.url + "/nothing")[0] == 404


def test_the_log_goes_to_a_file(httpmock):
    get(httpmock.url + "/not-stubbed")
    assert httpmock.log_path.name == "httpmock-1.log"
    # The exchange line is written off the event loop: it follows the answer shortly.
    for _ in range(600):
        if "GET /not-stubbed 404" in httpmock.log():
            break
        time.sleep(0.05)
    assert "GET /not-stubbed 404" in httpmock.log()


def test_the_packaged_binary_serves():
    if os.environ.get("HTTPMOCK_BIN"):
        pytest.skip("HTTPMOCK_BIN names another binary")
    path = pathlib.Path(httpmock_bin.binary_path())
    assert path.is_relative_to(pathlib.Path(sys.prefix).resolve()) or path.is_relative_to(pathlib.Path(sys.prefix))
    assert os.access(path, os.X_OK)


@pytest.mark.httpmock(wiremock_root="wiremock")
def test_marker_loads_a_wiremock_root_next_to_the_test(httpmock):
    assert get(httpmock.url + "/greeting") == (200, "Hello from a mappings folder")
    assert Mappings.retrieve_all_mappings().meta.total == 1


@pytest.mark.httpmock(mocks="mocks", args=["--delay", "0.3"])
def test_marker_serves_a_mocks_folder_with_more_options(httpmock):
    started = time.monotonic()
    assert get(httpmock.url + "/hello") == (200, "Hello from a mocks folder")
    assert time.monotonic() - started >= 0.3  # --delay 0.3 reached the server
    assert httpmock.args[-2:] == ["--delay", "0.3"]


def test_factory_starts_more_servers(httpmock_factory):
    first = httpmock_factory(wiremock_root="wiremock")  # relative: next to this file
    second = httpmock_factory()
    assert first.port != second.port
    assert Config.base_url == second.admin_url  # the client follows the last one started
    assert get(first.url + "/greeting")[0] == 200
    assert get(second.url + "/greeting")[0] == 404


def test_console_script_and_module_run_the_binary():
    if os.environ.get("HTTPMOCK_BIN"):
        pytest.skip("HTTPMOCK_BIN names another binary")
    script = pathlib.Path(sys.executable).parent / "httpmock"
    assert script.exists(), "pip installs a console script `httpmock` into the environment's bin/"
    for command in ([str(script), "--help"], [sys.executable, "-m", "httpmock_bin", "--help"]):
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert "USAGE: httpmock" in done.stdout


def test_teardown_stops_the_server(pytester):
    pytester.makepyfile(
        """
        def test_inner(httpmock):
            open("served.txt", "w").write(f"{httpmock.process.pid} {httpmock.url}")
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    pid, url = (pytester.path / "served.txt").read_text().split()
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid), 0)
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url + "/__admin/health", timeout=5)


def test_ini_options_load_a_folder_for_every_test(pytester):
    shutil.copytree(HERE / "wiremock", pytester.path / "stubs")
    shutil.copytree(HERE / "mocks", pytester.path / "folder")
    pytester.makeini(
        """
        [pytest]
        httpmock_wiremock_root = stubs
        httpmock_mocks = folder
        httpmock_args = --log-level WARNING
        """
    )
    pytester.makepyfile(
        """
        import urllib.request

        def test_inner(httpmock):
            assert "--log-level" in httpmock.args
            with urllib.request.urlopen(httpmock.url + "/greeting", timeout=30) as answer:
                assert answer.read() == b"Hello from a mappings folder"
            with urllib.request.urlopen(httpmock.url + "/hello", timeout=30) as answer:
                assert answer.read() == b"Hello from a mocks folder"
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


def test_a_failing_test_shows_the_server_log(pytester):
    pytester.makepyfile(
        """
        import time, urllib.request, urllib.error

        def test_inner(httpmock):
            try:
                urllib.request.urlopen(httpmock.url + "/nobody-stubbed-this", timeout=30)
            except urllib.error.HTTPError:
                pass
            for _ in range(600):
                if "nobody-stubbed-this 404" in httpmock.log():
                    break
                time.sleep(0.05)
            assert False, "on purpose"
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*httpmock log 1*", "*GET /nobody-stubbed-this 404*"])


def test_a_mistaken_marker_is_named(pytester):
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.httpmock(wiremock="stubs")
        def test_inner(httpmock):
            pass
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*@pytest.mark.httpmock: unknown keyword wiremock (wiremock_root, mocks, args)*"])


def test_a_server_that_does_not_start_fails_with_its_log(httpmock_factory):
    with pytest.raises(RuntimeError, match=r"(?s)httpmock did not start.*Could not load the WireMock root"):
        httpmock_factory(wiremock_root=HERE / "absent")
