"""What a Python client sees of WireMock's behaviour through `httpmock serve` (issue 44): the
reset fault, the Matched-Stub headers, localhost over IPv6, the journal switched off, and the
recorder page driven in Chromium. Each expectation was measured against WireMock 2.35.1's jar."""

import json
import os
import socket

import pytest
import requests


def add(served, mapping):
    answer = requests.post(served.base_url + "/__admin/mappings", json=mapping, timeout=10)
    assert answer.status_code == 201, answer.text
    return answer.json()["id"]


def test_connection_reset_by_peer_is_a_tcp_reset(serve):
    served = serve()
    add(served, {"request": {"url": "/reset"}, "response": {"fault": "CONNECTION_RESET_BY_PEER"}})
    with pytest.raises(requests.exceptions.ConnectionError) as raised:
        requests.get(served.base_url + "/reset", timeout=10)
    # WireMock 2.35.1: ('Connection aborted.', ConnectionResetError(104, 'Connection reset by peer'))
    assert "Connection reset by peer" in str(raised.value)
    assert isinstance(raised.value.args[0].args[1], ConnectionResetError)


def test_matched_stub_headers(serve):
    served = serve()
    named = add(served, {"name": "hello stub", "request": {"url": "/hello"}, "response": {"status": 200, "body": "hi"}})
    unnamed = add(served, {"request": {"url": "/noname"}, "response": {"status": 201}})
    answer = requests.get(served.base_url + "/hello", timeout=10)
    assert answer.headers["Matched-Stub-Id"] == named
    assert answer.headers["Matched-Stub-Name"] == "hello stub"
    answer = requests.get(served.base_url + "/noname", timeout=10)
    assert answer.headers["Matched-Stub-Id"] == unnamed
    assert "Matched-Stub-Name" not in answer.headers
    miss = requests.get(served.base_url + "/nothing", timeout=10)
    assert miss.status_code == 404
    assert "Matched-Stub-Id" not in miss.headers


def test_localhost_over_ipv6(serve):
    served = serve()
    add(served, {"request": {"url": "/v6"}, "response": {"status": 200, "body": "six"}})
    port = int(served.base_url.rsplit(":", 1)[1])
    if not socket.has_ipv6:
        pytest.skip("no IPv6 in this Python")
    assert requests.get(f"http://[::1]:{port}/v6", timeout=10).text == "six"
    assert requests.get(f"http://localhost:{port}/v6", timeout=10).text == "six"
    # The admin API too: WireMock's Python client pointed at the IPv6 loopback.
    from wiremock.constants import Config
    from wiremock.resources.mappings.resource import Mappings

    Config.base_url = f"http://[::1]:{port}/__admin"
    assert [m.request.url for m in Mappings.retrieve_all_mappings().mappings] == ["/v6"]


def test_no_request_journal(serve):
    served = serve("--no-request-journal")
    add(served, {"request": {"url": "/x"}, "response": {"status": 200}})
    requests.get(served.base_url + "/x", timeout=10)
    count = requests.post(served.base_url + "/__admin/requests/count", json={"method": "GET", "url": "/x"}, timeout=10)
    assert count.json() == {"count": -1, "requestJournalDisabled": True}
    assert requests.get(served.base_url + "/__admin/requests", timeout=10).status_code == 500


def test_recorder_page_records_through_chromium(serve, upstream):
    """The recorder page (GET /__admin/recorder → /__admin/recorder/) in a real browser: Record,
    a request forwarded to the target, Stop, "Captured 1 stub mapping."."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    os.environ.setdefault("SE_AVOID_STATS", "true")
    served = serve()
    options = webdriver.ChromeOptions()
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    try:
        driver.get(served.base_url + "/__admin/recorder")
        assert driver.current_url.endswith("/__admin/recorder/")
        wait = WebDriverWait(driver, 20)
        start = wait.until(expected_conditions.element_to_be_clickable((By.CSS_SELECTOR, '[data-testid="recorder-start"]')))
        driver.find_element(By.CSS_SELECTOR, '[data-testid="recorder-target"]').send_keys(upstream)
        start.click()
        message = driver.find_element(By.CSS_SELECTOR, '[data-testid="recorder-message"]')
        wait.until(lambda _: "Recording" in message.text)
        assert requests.get(served.base_url + "/recorded?x=1", timeout=10).status_code == 200
        driver.find_element(By.CSS_SELECTOR, '[data-testid="recorder-stop"]').click()
        wait.until(lambda _: "Captured" in message.text)
        assert message.text == "Captured 1 stub mapping."
        mappings = requests.get(served.base_url + "/__admin/mappings", timeout=10).json()["mappings"]
        assert any("/recorded" in json.dumps(m["request"]) for m in mappings), mappings
    finally:
        driver.quit()
