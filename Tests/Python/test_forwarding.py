"""Forwarding to a second local server: `proxyBaseUrl` and `--forward-unmatched` (SPEC §19)."""

import requests


def test_proxy_base_url_mapping(serve, upstream):
    served = serve()
    created = requests.post(
        served.base_url + "/__admin/mappings",
        json={"request": {"method": "ANY", "urlPathPattern": "/api/.*"}, "response": {"proxyBaseUrl": upstream}},
        timeout=10,
    )
    assert created.status_code == 201
    answer = requests.post(served.base_url + "/api/items?x=1", data="hi", timeout=10)
    assert answer.status_code == 200
    assert answer.headers["X-Upstream"] == "yes"
    assert answer.json() == {"upstream": True, "method": "POST", "path": "/api/items?x=1", "body": "hi"}
    journal = requests.get(served.base_url + "/__admin/requests", timeout=10).json()
    event = journal["requests"][0]
    assert event["responseDefinition"] == {"status": 200, "proxyBaseUrl": upstream}
    assert event["stubMapping"]["id"] == created.json()["id"]
    assert event["response"]["status"] == 200
    assert event["response"]["headers"]["X-Upstream"] == "yes"
    assert '"upstream": true' in event["response"]["body"]


def test_forward_unmatched(serve, upstream):
    served = serve("--forward-unmatched", upstream)
    requests.post(
        served.base_url + "/__admin/mappings",
        json={"request": {"url": "/local"}, "response": {"status": 200, "body": "mocked"}},
        timeout=10,
    )
    assert requests.get(served.base_url + "/local", timeout=10).text == "mocked"
    forwarded = requests.get(served.base_url + "/elsewhere", timeout=10)
    assert forwarded.status_code == 200
    assert forwarded.json()["path"] == "/elsewhere"
