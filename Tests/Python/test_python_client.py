"""Every call of PyPI's `wiremock` 2.7.0 admin client against `httpmock serve` (SPEC §22).

`test_admin_api.py` drives the common ones through scenarios of use; this file calls each of the
client's resource methods at least once and checks what it returns: Mappings (create, retrieve
all/one, update, persist, reset, delete all/one/by metadata), Requests (all with limit and
since, one, reset, count, find, unmatched, unmatched near misses), NearMisses (by request, by
pattern), Scenarios (reset), GlobalSettings (update)."""

import json
import time

import requests
from wiremock.constants import Config
from wiremock.exceptions import NotFoundException
from wiremock.resources.mappings import Mapping, MappingRequest, MappingResponse
from wiremock.resources.mappings.resource import Mappings
from wiremock.resources.near_misses import NearMissMatchPatternRequest, NearMissMatchRequest
from wiremock.resources.near_misses.resource import NearMisses
from wiremock.resources.requests.resource import Requests
from wiremock.resources.scenarios.resource import Scenarios
from wiremock.resources.settings import GlobalSetting
from wiremock.resources.settings.resource import GlobalSettings


def use(served):
    Config.base_url = served.base_url + "/__admin"
    Config.headers = {"Accept": "application/json", "Content-Type": "application/json"}


def stub(path, body, **fields):
    return Mappings.create_mapping(
        Mapping(request=MappingRequest(method="GET", url_path=path), response=MappingResponse(status=200, body=body), **fields)
    )


def test_mappings_every_call(serve, tmp_path):
    (tmp_path / "mappings").mkdir()
    served = serve("--wiremock-root", str(tmp_path))
    use(served)
    first = stub("/one", "1", metadata={"team": "red"})
    second = stub("/two", "2", metadata={"team": "blue"}, priority=1)
    # retrieve_all_mappings, with WireMock's paging
    listed = Mappings.retrieve_all_mappings()
    assert [m.id for m in listed.mappings] == [second.id, first.id]  # priority, then newest first
    assert listed.meta.total == 2
    page = Mappings.retrieve_all_mappings(parameters={"limit": 1, "offset": 1})
    assert [m.id for m in page.mappings] == [first.id] and page.meta.total == 2
    # retrieve_mapping, update_mapping
    assert Mappings.retrieve_mapping(first.id).response.body == "1"
    first.response = MappingResponse(status=200, body="uno")
    assert Mappings.update_mapping(first).response.body == "uno"
    assert requests.get(served.base_url + "/one", timeout=10).text == "uno"
    # persist_mappings writes the root's mappings/; reset_mappings brings them back
    assert Mappings.persist_mappings().status_code == 200
    files = sorted(path.name for path in (tmp_path / "mappings").iterdir())
    assert files == sorted([f"one-{first.id}.json", f"two-{second.id}.json"])
    assert json.loads((tmp_path / "mappings" / f"one-{first.id}.json").read_text())["response"]["body"] == "uno"
    stub("/three", "3")
    assert Mappings.reset_mappings().status_code == 200
    assert sorted(m.id for m in Mappings.retrieve_all_mappings().mappings) == sorted([first.id, second.id])
    # delete_mapping_by_metadata, delete_mapping, delete_all_mappings
    Mappings.delete_mapping_by_metadata({"matchesJsonPath": {"expression": "$.team", "equalTo": "blue"}})
    assert [m.id for m in Mappings.retrieve_all_mappings().mappings] == [first.id]
    Mappings.delete_mapping(first.id)
    try:
        Mappings.retrieve_mapping(first.id)
        raise AssertionError("a deleted mapping was found")
    except NotFoundException:
        pass
    stub("/four", "4")
    Mappings.delete_all_mappings()
    assert Mappings.retrieve_all_mappings().meta.total == 0


def test_requests_every_call(serve):
    served = serve()
    use(served)
    stub("/hit", "ok")
    before = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 60))
    for query in ["a=1", "a=2", "a=3"]:
        assert requests.get(served.base_url + "/hit?" + query, timeout=10).status_code == 200
    assert requests.get(served.base_url + "/miss", timeout=10).status_code == 404
    # The client's methods share one default `parameters` dict (limit stays set once given):
    # each call here passes its own.
    everything = Requests.get_all_received_requests(parameters={})
    assert everything.meta.total == 4
    assert everything.requests[0].request.url == "/miss"
    assert everything.requests[0].request.absolute_url == served.base_url + "/miss"
    limited = Requests.get_all_received_requests(limit=2, parameters={})
    assert [r.request.url for r in limited.requests] == ["/miss", "/hit?a=3"]
    assert len(Requests.get_all_received_requests(since=before, parameters={}).requests) == 4
    assert Requests.get_all_received_requests(since="2999-01-01T00:00:00Z", parameters={}).requests == []
    one = Requests.get_request(everything.requests[1].id)
    assert one.request.url == "/hit?a=3"
    assert one.response_definition.status == 200
    count = Requests.get_matching_request_count(NearMissMatchPatternRequest(method="GET", url_path="/hit"))
    assert count.count == 3
    found = Requests.get_matching_requests(NearMissMatchPatternRequest(url="/hit?a=2"))
    assert [r.url for r in found.requests] == ["/hit?a=2"]
    unmatched = Requests.get_unmatched_requests()
    assert [r.url for r in unmatched.requests] == ["/miss"]
    near = Requests.get_unmatched_requests_near_misses()
    assert near.near_misses[0].request.url == "/miss"
    assert 0 < near.near_misses[0].match_result.distance < 1
    assert Requests.reset_request_journal().status_code == 200
    assert Requests.get_all_received_requests(parameters={}).meta.total == 0


def test_near_misses_every_call(serve):
    served = serve()
    use(served)
    stub("/users/1", "ada")
    stub("/orders", "[]")
    requests.get(served.base_url + "/users/2", timeout=10)
    by_request = NearMisses.find_nearest_misses_by_request(NearMissMatchRequest(url="/users/3", method="GET"))
    assert by_request.near_misses[0].request.url == "/users/3"
    assert 0 < by_request.near_misses[0].match_result.distance < 1
    by_pattern = NearMisses.find_nearest_misses_by_request_pattern(NearMissMatchPatternRequest(url="/users/9", method="GET"))
    assert by_pattern.near_misses[0].request.url == "/users/2"
    assert by_pattern.near_misses[0].request_pattern.url == "/users/9"


def test_scenarios_and_settings_every_call(serve):
    served = serve()
    use(served)
    Mappings.create_mapping(
        Mapping(
            scenario_name="s",
            required_scenario_state="Started",
            new_scenario_state="done",
            request=MappingRequest(method="GET", url="/s"),
            response=MappingResponse(status=200, body="first"),
        )
    )
    assert requests.get(served.base_url + "/s", timeout=10).text == "first"
    assert requests.get(served.base_url + "/s", timeout=10).status_code == 404
    assert Scenarios.reset_all_scenarios().status_code == 200
    assert requests.get(served.base_url + "/s", timeout=10).text == "first"

    assert GlobalSettings.update_global_settings(GlobalSetting(fixed_delay=250)).fixed_delay == 250
    assert requests.get(served.base_url + "/__admin/settings", timeout=10).json() == {"settings": {"fixedDelay": 250}}
    Scenarios.reset_all_scenarios()
    answer = requests.get(served.base_url + "/s", timeout=10)
    assert answer.text == "first" and answer.elapsed.total_seconds() >= 0.2
    GlobalSettings.update_global_settings(GlobalSetting(fixed_delay=0))
    assert requests.get(served.base_url + "/__admin/settings", timeout=10).json() == {"settings": {}}
