"""Python's `wiremock` admin client (PyPI) driving the spawned `httpmock serve` (SPEC §19)."""

import requests
from wiremock.constants import Config
from wiremock.resources.mappings import Mapping, MappingRequest, MappingResponse
from wiremock.resources.mappings.resource import Mappings
from wiremock.resources.requests.resource import Requests
from wiremock.resources.scenarios.resource import Scenarios
from wiremock.resources.near_misses import NearMissMatchPatternRequest
from wiremock.exceptions import InvalidInputException, NotFoundException

from conftest import FIXTURES


def use(served):
    Config.base_url = served.base_url + "/__admin"
    Config.headers = {"Accept": "application/json", "Content-Type": "application/json"}


def test_create_retrieve_delete(serve):
    served = serve()
    use(served)
    created = Mappings.create_mapping(
        Mapping(
            priority=100,
            request=MappingRequest(method="GET", url_path="/greeting", query_parameters={"name": {"equalTo": "Ada"}}),
            response=MappingResponse(status=200, body="Hello, Ada", headers={"X-Made-By": "python"}),
        )
    )
    assert created.id
    answer = requests.get(served.base_url + "/greeting?name=Ada", timeout=10)
    assert answer.status_code == 200
    assert answer.text == "Hello, Ada"
    assert answer.headers["X-Made-By"] == "python"
    assert requests.get(served.base_url + "/greeting?name=Bob", timeout=10).status_code == 404

    fetched = Mappings.retrieve_mapping(created.id)
    assert fetched.request.url_path == "/greeting"
    everything = Mappings.retrieve_all_mappings()
    assert [m.id for m in everything.mappings] == [created.id]
    assert everything.meta.total == 1

    Mappings.delete_mapping(created.id)
    assert requests.get(served.base_url + "/greeting?name=Ada", timeout=10).status_code == 404
    try:
        Mappings.retrieve_mapping(created.id)
        raise AssertionError("a deleted mapping was found")
    except NotFoundException:
        pass


def test_update_replaces_the_answer(serve):
    served = serve()
    use(served)
    created = Mappings.create_mapping(
        Mapping(request=MappingRequest(method="GET", url="/v"), response=MappingResponse(status=200, body="one"))
    )
    created.response = MappingResponse(status=200, body="two")
    Mappings.update_mapping(created)
    assert requests.get(served.base_url + "/v", timeout=10).text == "two"
    assert Mappings.retrieve_all_mappings().meta.total == 1


def test_unsupported_field_is_422_naming_it(serve):
    served = serve()
    use(served)
    answer = requests.post(
        served.base_url + "/__admin/mappings",
        json={"request": {"method": "GET", "url": "/x", "customMatcher": {"name": "x"}}, "response": {"status": 200}},
        timeout=10,
    )
    assert answer.status_code == 422
    assert "customMatcher" in answer.text
    try:
        Mappings.create_mapping(
            Mapping(request=MappingRequest(method="GET", url="/x"), response=MappingResponse(status=200, transformers=["x"]))
        )
        raise AssertionError("an unsupported field was accepted")
    except InvalidInputException as error:
        assert "transformers" in str(error)
    assert requests.get(served.base_url + "/x", timeout=10).status_code == 404


def test_scenarios_move_and_reset(serve):
    served = serve()
    use(served)
    for required, new, body in [("Started", "paid", "cart"), ("paid", None, "receipt")]:
        Mappings.create_mapping(
            Mapping(
                scenario_name="checkout",
                required_scenario_state=required,
                new_scenario_state=new,
                request=MappingRequest(method="GET", url="/checkout"),
                response=MappingResponse(status=200, body=body),
            )
        )
    assert requests.get(served.base_url + "/checkout", timeout=10).text == "cart"
    assert requests.get(served.base_url + "/checkout", timeout=10).text == "receipt"
    listed = requests.get(served.base_url + "/__admin/scenarios", timeout=10).json()["scenarios"]
    assert listed[0]["name"] == "checkout"
    assert listed[0]["state"] == "paid"
    assert set(listed[0]["possibleStates"]) == {"Started", "paid"}

    Scenarios.reset_all_scenarios()
    assert requests.get(served.base_url + "/checkout", timeout=10).text == "cart"

    moved = requests.put(served.base_url + "/__admin/scenarios/checkout/state", json={"state": "Started"}, timeout=10)
    assert moved.status_code == 200
    assert requests.get(served.base_url + "/checkout", timeout=10).text == "cart"


def test_request_journal_count_find_and_admin_not_journaled(serve):
    served = serve()
    use(served)
    Mappings.create_mapping(
        Mapping(request=MappingRequest(method="POST", url_path="/events"), response=MappingResponse(status=204))
    )
    for n in range(3):
        assert requests.post(served.base_url + "/events", data=f"event {n}", timeout=10).status_code == 204
    Mappings.retrieve_all_mappings()  # admin traffic: never journaled

    journal = Requests.get_all_received_requests()
    assert journal.meta.total == 3
    assert [r.request.body for r in journal.requests] == ["event 2", "event 1", "event 0"]
    assert all(r.request.method == "POST" for r in journal.requests)
    assert all("/__admin" not in r.request.url for r in journal.requests)

    count = Requests.get_matching_request_count(NearMissMatchPatternRequest(method="POST", url_path="/events"))
    assert count.count == 3
    found = Requests.get_matching_requests(NearMissMatchPatternRequest(method="POST", url_pattern="/ev.*"))
    assert len(found.requests) == 3
    one = requests.post(
        served.base_url + "/__admin/requests/find",
        json={"method": "POST", "urlPath": "/events", "bodyPatterns": [{"contains": "1"}]},
        timeout=10,
    ).json()
    assert [r["body"] for r in one["requests"]] == ["event 1"]

    Requests.reset_request_journal()
    assert Requests.get_all_received_requests().meta.total == 0


def test_near_misses_carry_the_report(serve):
    served = serve()
    use(served)
    Mappings.create_mapping(
        Mapping(request=MappingRequest(method="GET", url_path="/users/1"), response=MappingResponse(status=200, body="{}"))
    )
    assert requests.get(served.base_url + "/users/2", timeout=10).status_code == 404
    unmatched = Requests.get_unmatched_requests()
    assert [r.url for r in unmatched.requests] == ["/users/2"]
    # WireMock's near misses: the closest mapping and a distance, nothing WireMock lacks
    near = requests.get(served.base_url + "/__admin/requests/unmatched/near-misses", timeout=10).json()["nearMisses"]
    assert near[0]["request"]["url"] == "/users/2"
    assert near[0]["stubMapping"]["request"]["urlPath"] == "/users/1"
    assert 0 < near[0]["matchResult"]["distance"] < 1
    assert "nearMissReport" not in near[0]
    near_client = Requests.get_unmatched_requests_near_misses()
    assert near_client.near_misses[0].request.url == "/users/2"
    # HTTPMock's own report, on its own endpoint
    ours = requests.get(served.base_url + "/__admin/httpmock/near-misses", timeout=10).json()["nearMisses"]
    assert ours[0]["request"]["url"] == "/users/2"
    assert "/users/1" in ours[0]["nearMissReport"]


def test_mapping_files_and_reset_bring_them_back(serve):
    served = serve("--wiremock-root", str(FIXTURES / "wiremock"))
    use(served)
    base = served.base_url
    assert requests.get(base + "/hello?lang=en", timeout=10).text == "Hello from a file"
    assert requests.get(base + "/hello?lang=de", timeout=10).status_code == 404
    report = requests.get(base + "/__admin/httpmock/near-misses", timeout=10).json()["nearMisses"][0]["nearMissReport"]
    assert 'queryParameters.lang: expected equalTo "en", got "de"' in report
    assert requests.get(base + "/users/7", timeout=10).json() == {"id": 7, "name": "Ada"}
    # priority 1 wins over the pattern, whatever the specificity
    gone = requests.get(base + "/users/42", timeout=10)
    assert gone.status_code == 410 and gone.json() == {"gone": True}
    order = requests.post(base + "/orders", json={"items": [{"id": 1, "extra": True}]}, timeout=10)
    assert order.status_code == 201
    assert requests.post(base + "/orders", json={"items": [{"id": 2}]}, timeout=10).status_code == 404
    assert Mappings.retrieve_all_mappings().meta.total == 4

    Mappings.delete_all_mappings()
    assert requests.get(base + "/hello?lang=en", timeout=10).status_code == 404
    assert requests.post(base + "/__admin/reset", timeout=10).status_code == 200
    assert requests.get(base + "/hello?lang=en", timeout=10).text == "Hello from a file"
    assert Requests.get_all_received_requests().meta.total == 1


def test_token_is_required_when_given(serve):
    served = serve("--admin-token", "s3cret")
    assert requests.get(served.base_url + "/__admin/mappings", timeout=10).status_code == 401
    wrong = requests.get(served.base_url + "/__admin/mappings", headers={"Authorization": "Bearer nope"}, timeout=10)
    assert wrong.status_code == 401
    right = requests.get(served.base_url + "/__admin/mappings", headers={"Authorization": "Bearer s3cret"}, timeout=10)
    assert right.status_code == 200 and right.json()["meta"]["total"] == 0


def test_any_address_without_token_turns_admin_off(serve):
    served = serve("--use-any-addr")
    assert any("admin API is off" in line for line in served.output)
    port = served.base_url.rsplit(":", 1)[1]
    assert requests.get(f"http://127.0.0.1:{port}/__admin/mappings", timeout=10).status_code == 404


def test_no_admin_flag(serve):
    served = serve("--no-admin")
    assert requests.get(served.base_url + "/__admin/mappings", timeout=10).status_code == 404


def test_settings_delay_and_shutdown(serve):
    served = serve()
    use(served)
    requests.post(
        served.base_url + "/__admin/mappings",
        json={"request": {"url": "/slow"}, "response": {"status": 200, "body": "late"}},
        timeout=10,
    )
    assert requests.post(served.base_url + "/__admin/settings", json={"fixedDelay": 300}, timeout=10).status_code == 200
    answer = requests.get(served.base_url + "/slow", timeout=10)
    assert answer.text == "late" and answer.elapsed.total_seconds() >= 0.25
    refused = requests.post(served.base_url + "/__admin/settings", json={"proxyPassThrough": False}, timeout=10)
    assert refused.status_code == 422 and "proxyPassThrough" in refused.text
    refused = requests.post(served.base_url + "/__admin/settings", json={"stubCorsEnabled": True}, timeout=10)
    assert refused.status_code == 422 and "stubCorsEnabled" in refused.text

    assert requests.post(served.base_url + "/__admin/shutdown", timeout=10).status_code == 200
    assert served.process.wait(timeout=20) == 0
