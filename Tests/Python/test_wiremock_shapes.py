"""WireMock's admin API shapes, key for key (SPEC §22): the same sequence of admin calls against
`httpmock serve` and, recorded in `fixtures/wiremock-2.35.1-shapes.json`, against the WireMock
2.35.1 jar (`python3 wiremock_shapes.py http://127.0.0.1:PORT` re-records it). A strict client
(WireMock's Java client reads JSON with Jackson) fails on any field WireMock does not write."""

import json

from conftest import FIXTURES
from wiremock_shapes import run, shapes

# Keys whose presence depends on the data, not the schema: HTTPMock's 404 for a miss carries a
# Content-Type, WireMock's none.
DATA_DEPENDENT = ("response.headers",)


def schema_keys(keys):
    return {key for key in keys if not any(part in key for part in DATA_DEPENDENT)}


def test_every_answer_has_wiremocks_keys_and_no_other(serve, tmp_path):
    (tmp_path / "mappings").mkdir()
    served = serve("--wiremock-root", str(tmp_path))
    ours = shapes(run(served.base_url))
    reference = json.loads((FIXTURES / "wiremock-2.35.1-shapes.json").read_text())
    assert sorted(ours) == sorted(reference), "the same steps ran"
    differences = []
    for step, expected in sorted(reference.items()):
        got = ours[step]
        if got["status"] != expected["status"]:
            differences.append(f"{step}: status {got['status']}, WireMock {expected['status']}")
            continue
        if not expected["keys"] and expected["status"] in (200, 404) and step.startswith(("GET /mappings/", "POST /settings")):
            # WireMock's answer has no body: HTTPMock's 404 names what was not found, and its
            # settings update answers the settings (Python's client reads them).
            continue
        extra = schema_keys(got["keys"]) - schema_keys(expected["keys"])
        missing = schema_keys(expected["keys"]) - schema_keys(got["keys"])
        if extra:
            differences.append(f"{step}: fields WireMock does not write: {sorted(extra)}")
        if missing:
            differences.append(f"{step}: WireMock's fields missing: {sorted(missing)}")
    assert not differences, "\n".join(differences)
