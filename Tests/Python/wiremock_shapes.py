"""WireMock's admin API shapes: one fixed sequence of admin calls, and the JSON key sets of
every answer (SPEC §22: WireMock's shapes exactly; a strict client fails on a field WireMock
does not have).

`python3 wiremock_shapes.py http://127.0.0.1:PORT` runs the sequence against a server (the
real WireMock 2.35.1 jar, or `httpmock serve`) and prints the key sets as JSON;
`fixtures/wiremock-2.35.1-shapes.json` holds the jar's, and `test_wiremock_shapes.py`
compares `httpmock serve`'s with it."""

import http.server
import json
import sys
import threading
import time

import requests


# Members whose keys are data (header names, query parameter names, metadata), not schema.
DATA_MAPS = {"headers", "queryParams", "queryParameters", "metadata", "cookies", "extended", "captureHeaders"}


def key_set(value, path=""):
    """Every key path of a JSON value: `a.b`, `list[].c` (arrays: the union of their elements);
    the keys of a data map (`headers`, `metadata`, …) read as `*`."""
    keys = set()
    if isinstance(value, dict):
        is_data = path.rsplit(".", 1)[-1].rstrip("[]") in DATA_MAPS
        for key, item in value.items():
            here = f"{path}.{'*' if is_data else key}" if path else key
            keys.add(here)
            if not is_data:
                keys |= key_set(item, here)
    elif isinstance(value, list):
        for item in value:
            keys |= key_set(item, path + "[]")
    return keys


def upstream_server():
    """A plain upstream for recording: answers "upstream PATH" as text/plain."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            payload = f"upstream {self.path}".encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


# Answers whose keys depend on the server's own extras (HTTP headers it received, timing
# values) are compared by key only; values never are.
def run(base):
    """Runs the sequence against `base` (`http://host:port`); returns {step: JSON answer}."""
    admin = base + "/__admin"
    answers = {}

    def record(name, response):
        text = response.text
        try:
            answers[name] = {"status": response.status_code, "json": json.loads(text) if text.strip() else None}
        except ValueError:
            answers[name] = {"status": response.status_code, "json": None, "text": text[:200]}

    requests.post(admin + "/reset", timeout=10)
    requests.delete(admin + "/mappings", timeout=10)
    mapping = {
        "id": "0e4ec0a2-7a9c-4f7e-9a55-3d5c2b1a0001",
        "name": "Greeting",
        "priority": 3,
        "request": {"method": "GET", "urlPath": "/greeting", "queryParameters": {"q": {"equalTo": "1"}}},
        "response": {"status": 200, "body": "hello", "headers": {"Content-Type": "text/plain"}},
        "metadata": {"tag": "greeting"},
    }
    record("POST /mappings", requests.post(admin + "/mappings", json=mapping, timeout=10))
    requests.post(
        admin + "/mappings",
        json={
            "id": "0e4ec0a2-7a9c-4f7e-9a55-3d5c2b1a0002",
            "scenarioName": "flow",
            "requiredScenarioState": "Started",
            "newScenarioState": "second",
            "request": {"method": "GET", "url": "/flow"},
            "response": {"status": 200, "body": "first"},
        },
        timeout=10,
    )
    record("GET /mappings", requests.get(admin + "/mappings", timeout=10))
    record("GET /mappings?limit&offset", requests.get(admin + "/mappings?limit=1&offset=1", timeout=10))
    record("GET /mappings/{id}", requests.get(admin + "/mappings/" + mapping["id"], timeout=10))
    record(
        "GET /mappings/{unknown id}",
        requests.get(admin + "/mappings/0e4ec0a2-7a9c-4f7e-9a55-3d5c2b1affff", timeout=10),
    )
    record(
        "POST /mappings/find-by-metadata",
        requests.post(
            admin + "/mappings/find-by-metadata",
            json={"matchesJsonPath": {"expression": "$.tag", "equalTo": "greeting"}},
            timeout=10,
        ),
    )
    record("POST /mappings (invalid)", requests.post(admin + "/mappings", json={"request": {"url": "/x"}, "priority": "high"}, timeout=10))

    since = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 60))
    requests.get(base + "/greeting?q=1", headers={"X-Trace": "t1"}, timeout=10)
    requests.get(base + "/flow", timeout=10)
    requests.post(base + "/nothing", data="a body", timeout=10)
    record("GET /requests", requests.get(admin + "/requests", timeout=10))
    record("GET /requests?limit", requests.get(admin + "/requests?limit=1", timeout=10))
    record("GET /requests?since", requests.get(admin + "/requests?since=" + since, timeout=10))
    events = requests.get(admin + "/requests", timeout=10).json()["requests"]
    hit = next(event for event in events if event["request"]["url"].startswith("/greeting"))
    record("GET /requests/{id}", requests.get(admin + "/requests/" + hit["id"], timeout=10))
    record("POST /requests/count", requests.post(admin + "/requests/count", json={"urlPath": "/greeting"}, timeout=10))
    record("POST /requests/find", requests.post(admin + "/requests/find", json={"urlPath": "/greeting"}, timeout=10))
    record("GET /requests/unmatched", requests.get(admin + "/requests/unmatched", timeout=10))
    record("GET /requests/unmatched/near-misses", requests.get(admin + "/requests/unmatched/near-misses", timeout=10))
    record(
        "POST /near-misses/request",
        requests.post(admin + "/near-misses/request", json={"url": "/greetin", "method": "GET"}, timeout=10),
    )
    record(
        "POST /near-misses/request-pattern",
        requests.post(admin + "/near-misses/request-pattern", json={"url": "/greetin", "method": "GET"}, timeout=10),
    )
    record("GET /scenarios", requests.get(admin + "/scenarios", timeout=10))
    record(
        "POST /settings",
        requests.post(
            admin + "/settings",
            json={"fixedDelay": 1, "delayDistribution": {"type": "uniform", "lower": 1, "upper": 2}, "extended": {"k": "v"}},
            timeout=10,
        ),
    )
    record("GET /settings", requests.get(admin + "/settings", timeout=10))
    requests.post(admin + "/settings", json={}, timeout=10)

    record(
        "POST /requests/remove",
        requests.post(admin + "/requests/remove", json={"url": "/nothing", "method": "POST"}, timeout=10),
    )
    record(
        "POST /requests/remove-by-metadata",
        requests.post(
            admin + "/requests/remove-by-metadata",
            json={"matchesJsonPath": {"expression": "$.tag", "equalTo": "greeting"}},
            timeout=10,
        ),
    )
    record("DELETE /requests/{id}", requests.delete(admin + "/requests/" + hit["id"], timeout=10))

    upstream = upstream_server()
    target = f"http://127.0.0.1:{upstream.server_address[1]}"
    record("GET /recordings/status", requests.get(admin + "/recordings/status", timeout=10))
    record(
        "POST /recordings/start",
        requests.post(admin + "/recordings/start", json={"targetBaseUrl": target, "persist": False}, timeout=10),
    )
    requests.get(base + "/recorded/a", timeout=10)
    record("POST /recordings/stop", requests.post(admin + "/recordings/stop", timeout=10))
    record(
        "POST /recordings/snapshot",
        requests.post(admin + "/recordings/snapshot", json={"persist": False}, timeout=10),
    )
    upstream.shutdown()
    upstream.server_close()

    record("PUT /files/{name}", requests.put(admin + "/files/shapes.txt", data="file body", timeout=10))
    record("GET /files", requests.get(admin + "/files", timeout=10))
    record("DELETE /files/{name}", requests.delete(admin + "/files/shapes.txt", timeout=10))
    record("POST /mappings/remove-by-metadata", requests.post(
        admin + "/mappings/remove-by-metadata",
        json={"matchesJsonPath": {"expression": "$.tag", "equalTo": "greeting"}},
        timeout=10,
    ))
    record("POST /reset", requests.post(admin + "/reset", timeout=10))
    return answers


def shapes(answers):
    """{step: {"status": n, "keys": [...]}} of `run`'s answers."""
    return {
        name: {"status": answer["status"], "keys": sorted(key_set(answer["json"]))} for name, answer in answers.items()
    }


if __name__ == "__main__":
    json.dump(shapes(run(sys.argv[1].rstrip("/"))), sys.stdout, indent=1, sort_keys=True)
    print()
