"""HTTPS (issue 44 item 2): `httpmock serve --https-port` with the CA of `httpmock ca`, trusted
by Python's `requests` through REQUESTS_CA_BUNDLE, as Docs/HTTPMock.docc/Server.md says."""

import subprocess

import requests

from conftest import httpmock_binary


def https_base(served):
    for line in served.output:
        if "serving https on " in line:
            return line.split("serving https on ", 1)[1].split(" ", 1)[0]
    raise AssertionError("no https line: " + "".join(served.output))


def test_requests_trusts_the_exported_ca(serve, tmp_path, monkeypatch):
    ca_dir = tmp_path / "ca"
    bundle = tmp_path / "httpmock-ca.pem"
    subprocess.run([httpmock_binary(), "ca", "--ca-dir", str(ca_dir), "--output", str(bundle)], check=True, timeout=60)
    served = serve("--https-port", "0", "--ca-dir", str(ca_dir))
    base = https_base(served).replace("127.0.0.1", "localhost")
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(bundle))

    created = requests.post(
        base + "/__admin/mappings",
        json={"request": {"method": "GET", "url": "/secure"}, "response": {"status": 200, "jsonBody": {"tls": True}}},
        timeout=10,
    )
    assert created.status_code == 201
    answer = requests.get(base + "/secure", timeout=10)
    assert answer.status_code == 200
    assert answer.json() == {"tls": True}
    # The same stub over plain HTTP: one instance behind both ports.
    assert requests.get(served.base_url + "/secure", timeout=10).json() == {"tls": True}

    monkeypatch.delenv("REQUESTS_CA_BUNDLE")
    try:
        requests.get(base + "/secure", timeout=10)
        raise AssertionError("a certificate signed by an untrusted CA was accepted")
    except requests.exceptions.SSLError:
        pass
