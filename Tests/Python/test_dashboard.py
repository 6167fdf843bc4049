"""The dashboard in headless Chromium driven by Selenium (SPEC §19), with Debian's chromium and
chromium-driver: nothing downloads a driver or reaches the internet."""

import http.client
import os
import shutil
import subprocess
import threading
from urllib.parse import urlparse

import pytest
import requests

os.environ["SE_AVOID_STATS"] = "true"

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support import expected_conditions  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

CHROMEDRIVER = "/usr/bin/chromedriver"


@pytest.fixture
def browser():
    yield from make_browser("1280,900")


@pytest.fixture
def narrow_browser():
    """A browser window 600 px wide (SPEC §24: the page stays usable)."""
    yield from make_browser("600,900")


def make_browser(size):
    if not os.path.exists(CHROMEDRIVER) or shutil.which("chromium") is None:
        pytest.fail("chromium and chromium-driver are needed: apt-get install -y chromium chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=" + size]:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def wait_for(driver, condition, message):
    return WebDriverWait(driver, 20, poll_frequency=0.2).until(lambda d: condition(d), message)


def texts(driver, testid):
    # The page updates live: an entry read while it is replaced is read again.
    for _ in range(10):
        try:
            return [element.text for element in driver.find_elements(By.CSS_SELECTOR, f'[data-testid="{testid}"]')]
        except StaleElementReferenceException:
            continue
    return [element.text for element in driver.find_elements(By.CSS_SELECTOR, f'[data-testid="{testid}"]')]


def test_a_curl_request_appears_live(serve, browser):
    served = serve()
    requests.post(
        served.base_url + "/__admin/mappings",
        json={"request": {"method": "GET", "urlPath": "/ping"}, "response": {"status": 200, "body": "pong"}},
        timeout=10,
    )
    browser.get(served.base_url + "/__admin/")
    wait_for(browser, lambda d: any("/ping" in t for t in texts(d, "route")), "the route is listed")
    assert texts(browser, "request") == []

    subprocess.run(["curl", "-s", "-o", "/dev/null", served.base_url + "/ping"], check=True, timeout=30)
    subprocess.run(["curl", "-s", "-o", "/dev/null", served.base_url + "/missing"], check=True, timeout=30)
    wait_for(browser, lambda d: len(texts(d, "request")) == 2, "both requests appear without a reload")
    newest, oldest = texts(browser, "request")
    assert "GET" in oldest and served.base_url + "/ping" in oldest and "200" in oldest
    assert "/missing" in newest and "404" in newest
    reports = texts(browser, "near-miss")
    assert len(reports) == 1 and "/missing" in reports[0] and "/ping" in reports[0]

    # Reset asks first: dismissed, nothing happens; accepted, the journal is emptied.
    browser.find_element(By.CSS_SELECTOR, '[data-testid="reset"]').click()
    WebDriverWait(browser, 10).until(expected_conditions.alert_is_present()).dismiss()
    assert len(requests.get(served.base_url + "/__admin/requests", timeout=10).json()["requests"]) == 2
    browser.find_element(By.CSS_SELECTOR, '[data-testid="reset"]').click()
    alert = WebDriverWait(browser, 10).until(expected_conditions.alert_is_present())
    assert "Reset" in alert.text
    alert.accept()
    wait_for(browser, lambda d: texts(d, "request") == [], "reset empties the journal")


def test_choosing_a_scenario_state_changes_the_next_answer(serve, browser):
    served = serve()
    for required, new, body in [("Started", "on", "demo off"), ("on", "Started", "demo on")]:
        requests.post(
            served.base_url + "/__admin/mappings",
            json={
                "scenarioName": "demo",
                "requiredScenarioState": required,
                "request": {"method": "GET", "url": "/feature"},
                "response": {"status": 200, "body": body},
            },
            timeout=10,
        )
    browser.get(served.base_url + "/__admin/dashboard")
    scenario = 'select[data-testid="scenario:demo"]'
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, scenario), "the scenario is listed")
    assert Select(browser.find_element(By.CSS_SELECTOR, scenario)).first_selected_option.text == "Started"
    assert requests.get(served.base_url + "/feature", timeout=10).text == "demo off"
    wait_for(browser, lambda d: len(texts(d, "request")) == 1, "the request is shown")

    Select(browser.find_element(By.CSS_SELECTOR, scenario)).select_by_visible_text("on")
    wait_for(
        browser,
        lambda d: requests.get(served.base_url + "/__admin/scenarios", timeout=10).json()["scenarios"][0]["state"] == "on",
        "the page moved the scenario",
    )
    assert requests.get(served.base_url + "/feature", timeout=10).text == "demo on"


def add_mapping(served, mapping):
    answer = requests.post(served.base_url + "/__admin/mappings", json=mapping, timeout=10)
    assert answer.status_code == 201, answer.text
    return answer.json()


def curl(*arguments):
    """curl's output (status code last when asked with -w)."""
    return subprocess.run(["curl", "-s", *arguments], check=True, timeout=30, capture_output=True, text=True).stdout


def element(driver, testid):
    return driver.find_element(By.CSS_SELECTOR, f'[data-testid="{testid}"]')


def test_stub_this_turns_a_miss_into_a_stub_that_answers_the_same_request(serve, browser):
    served = serve()
    browser.get(served.base_url + "/__admin/")
    url = served.base_url + "/orders?status=open&page=2"
    assert curl("-o", "/dev/null", "-w", "%{http_code}", "-H", "X-Env: staging", url) == "404"
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, '[data-testid="stub-this"]')) == 1, "the miss has Stub this")

    element(browser, "stub-this").click()
    wait_for(browser, lambda d: element(d, "stub-editor").is_displayed(), "the editor opens")
    assert element(browser, "stub-method").get_attribute("value") == "GET"
    assert element(browser, "stub-path").get_attribute("value") == "/orders"
    editor = element(browser, "stub-editor")
    wait_for(browser, lambda d: "X-Env" in editor.text, "the headers it sent are listed")
    rows = editor.find_elements(By.CSS_SELECTOR, ".row")
    by_name = {row.find_element(By.CSS_SELECTOR, ".name").text: row for row in rows}
    assert by_name["status"].find_element(By.CSS_SELECTOR, "input[type=text]").get_attribute("value") == "open"
    assert by_name["page"].find_element(By.CSS_SELECTOR, "input[type=text]").get_attribute("value") == "2"
    assert by_name["X-Env"].find_element(By.CSS_SELECTOR, "input[type=text]").get_attribute("value") == "staging"
    assert by_name["X-Env"].find_element(By.CSS_SELECTOR, "input[type=checkbox]").is_selected()
    body = element(browser, "stub-body")
    body.clear()
    body.send_keys('{"orders": []}')
    element(browser, "stub-save").click()
    wait_for(browser, lambda d: not element(d, "stub-editor").is_displayed(), "the editor closes once saved")
    wait_for(browser, lambda d: any("/orders" in t for t in texts(d, "route")), "the new stub is listed")

    mappings = requests.get(served.base_url + "/__admin/mappings", timeout=10).json()["mappings"]
    assert len(mappings) == 1
    assert mappings[0]["request"]["queryParameters"] == {"status": {"equalTo": "open"}, "page": {"equalTo": "2"}}
    assert curl("-H", "X-Env: staging", url) == '{"orders": []}'
    assert curl("-o", "/dev/null", "-w", "%{http_code}", "-H", "X-Env: staging", served.base_url + "/orders?status=closed&page=2") == "404"


def test_stub_this_keeps_dot_segments_as_the_client_sent_them(serve, browser):
    """Issue 43.25: a miss on /dot/./x/../y proposed /dot/y, and the saved stub missed again."""
    served = serve()
    browser.get(served.base_url + "/__admin/")
    url = served.base_url + "/dot/./x/../y"
    assert curl("--path-as-is", "-o", "/dev/null", "-w", "%{http_code}", url) == "404"
    wait_for(browser, lambda d: len(d.find_elements(By.CSS_SELECTOR, '[data-testid="stub-this"]')) == 1, "the miss has Stub this")
    element(browser, "stub-this").click()
    wait_for(browser, lambda d: element(d, "stub-editor").is_displayed(), "the editor opens")
    assert element(browser, "stub-path").get_attribute("value") == "/dot/./x/../y"
    body = element(browser, "stub-body")
    body.clear()
    body.send_keys("dotted")
    element(browser, "stub-save").click()
    wait_for(browser, lambda d: not element(d, "stub-editor").is_displayed(), "the editor closes once saved")
    assert curl("--path-as-is", url) == "dotted"


def test_a_request_opens_to_its_headers_bodies_and_time_with_secrets_masked(serve, browser):
    served = serve()
    add_mapping(served, {"request": {"method": "POST", "urlPath": "/login"},
                         "response": {"status": 201, "headers": {"Set-Cookie": "sid=cookie-secret-42; HttpOnly"}, "jsonBody": {"welcome": "Ada"}}})
    browser.get(served.base_url + "/__admin/")
    curl("-X", "POST", "-H", "Authorization: Bearer token-secret-42", "-H", "Content-Type: application/json",
         "-d", '{"user":"ada","password":"password-secret-42"}', served.base_url + "/login")
    wait_for(browser, lambda d: len(texts(d, "request")) == 1, "the request is listed")
    assert browser.find_elements(By.CSS_SELECTOR, '[data-testid="request-detail"]') == []
    browser.find_element(By.CSS_SELECTOR, '[data-testid="request"] .line').click()
    wait_for(browser, lambda d: "Response: 201" in element(d, "request-detail").text, "the detail loads")
    detail = element(browser, "request-detail").text
    assert "Received" in detail and "answered" in detail
    assert "Authorization" in detail and "Bearer REDACTED" in detail
    assert '"password":"REDACTED"' in detail and '"user":"ada"' in detail
    assert '{"welcome":"Ada"}' in detail.replace(" ", "") or "welcome" in detail
    assert "sid=REDACTED; HttpOnly" in detail
    page = browser.find_element(By.TAG_NAME, "body").text
    for secret in ["token-secret-42", "password-secret-42", "cookie-secret-42"]:
        assert secret not in page
    # Clicking again closes it.
    browser.find_element(By.CSS_SELECTOR, '[data-testid="request"] .line').click()
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, '[data-testid="request-detail"]') == [], "the detail closes")


def test_filter_status_colours_and_matched_or_miss(serve, browser):
    served = serve()
    add_mapping(served, {"request": {"method": "GET", "urlPath": "/ok"}, "response": {"status": 200}})
    add_mapping(served, {"request": {"method": "GET", "urlPath": "/broken"}, "response": {"status": 500, "body": "script threw"}})
    browser.get(served.base_url + "/__admin/")
    for path in ["/ok", "/broken", "/missing"]:
        curl("-o", "/dev/null", served.base_url + path)
    wait_for(browser, lambda d: len(texts(d, "request")) == 3, "three requests")
    entries = {e.find_element(By.CSS_SELECTOR, ".url").text.rsplit("/", 1)[1]: e
               for e in browser.find_elements(By.CSS_SELECTOR, '[data-testid="request"]')}

    def colour(name):
        status = entries[name].find_element(By.CSS_SELECTOR, ".status")
        return status.value_of_css_property("background-color"), status.value_of_css_property("color")

    # 5xx red even when a route matched (a Voodoo script that threw is not green); 4xx amber.
    assert "s5" in entries["broken"].get_attribute("class") and "matched" in entries["broken"].text
    assert "s4" in entries["missing"].get_attribute("class") and "miss" in entries["missing"].text
    assert "s2" in entries["ok"].get_attribute("class")
    assert len({colour("ok"), colour("broken"), colour("missing")}) == 3

    box = element(browser, "filter")
    box.send_keys("broken")
    wait_for(browser, lambda d: len(texts(d, "request")) == 1, "the filter keeps one request")
    assert "/broken" in texts(browser, "request")[0]
    assert all("/broken" in t for t in texts(browser, "route"))
    box.clear()
    box.send_keys("miss")
    wait_for(browser, lambda d: len(texts(d, "request")) == 1 and "/missing" in texts(d, "request")[0], "miss filters misses")
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.DELETE)
    wait_for(browser, lambda d: len(texts(d, "request")) == 3, "an empty filter shows everything")


def test_filter_matches_what_a_person_types_and_a_cleared_box_shows_all(serve, browser):
    """Issue 44.9: `GET /users` matched nothing (rows carry the full origin); a box emptied by
    clear() kept filtering."""
    served = serve()
    add_mapping(served, {"request": {"method": "ANY", "urlPath": "/users"}, "response": {"status": 200}})
    browser.get(served.base_url + "/__admin/")
    curl("-o", "/dev/null", served.base_url + "/users?page=2")
    curl("-o", "/dev/null", "-X", "POST", served.base_url + "/users")
    curl("-o", "/dev/null", served.base_url + "/orders")
    wait_for(browser, lambda d: len(texts(d, "request")) == 3, "three requests")
    box = element(browser, "filter")
    box.send_keys("GET /users")
    wait_for(browser, lambda d: len(texts(d, "request")) == 1, "GET /users keeps one request")
    assert "/users?page=2" in texts(browser, "request")[0] and "GET" in texts(browser, "request")[0]
    box.clear()
    wait_for(browser, lambda d: len(texts(d, "request")) == 3, "a cleared box shows every request again")
    box.send_keys("users 404")
    wait_for(browser, lambda d: len(texts(d, "request")) == 0, "each word must be found: no request to /users was a 404")
    box.clear()
    box.send_keys("orders 404")
    wait_for(browser, lambda d: len(texts(d, "request")) == 1 and "/orders" in texts(d, "request")[0], "words in any order")


def test_a_click_anywhere_on_an_entry_opens_it_and_save_is_in_view(serve, browser):
    """Issue 44.9: only the first line opened an entry; the editor's Save was below the fold at
    1280x900 for a request with many headers."""
    served = serve()
    browser.get(served.base_url + "/__admin/")
    headers = []
    for index in range(30):
        headers += ["-H", f"X-Header-{index}: value {index}"]
    curl("-o", "/dev/null", *headers, served.base_url + "/many?a=1&b=2&c=3&d=4&e=5&f=6")
    wait_for(browser, lambda d: len(texts(d, "near-miss")) == 1, "the miss and its report are listed")
    # The report, not the first line: the whole entry opens.
    element(browser, "near-miss").click()
    wait_for(browser, lambda d: "Request: GET" in element(d, "request-detail").text, "a click on the report opens the entry")
    # A click inside the open detail (to select a header, say) leaves it open.
    element(browser, "request-detail").click()
    assert len(browser.find_elements(By.CSS_SELECTOR, '[data-testid="request-detail"]')) == 1
    browser.find_element(By.CSS_SELECTOR, '[data-testid="request"] .line').click()
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, '[data-testid="request-detail"]') == [], "the line closes it")

    element(browser, "stub-this").click()
    wait_for(browser, lambda d: element(d, "stub-editor").is_displayed(), "the editor opens")
    wait_for(browser, lambda d: "X-Header-29" in element(d, "stub-editor").text, "the 30 headers are listed")
    rect = browser.execute_script(
        "var r = arguments[0].getBoundingClientRect(); return [r.top, r.bottom, window.innerHeight];", element(browser, "stub-save"))
    assert 0 <= rect[0] and rect[1] <= rect[2], f"Save is out of view at 1280x900: {rect}"
    # In view and not covered: the click lands on it and saves.
    element(browser, "stub-save").click()
    wait_for(browser, lambda d: not element(d, "stub-editor").is_displayed(), "the editor closes once saved")
    assert curl(*headers, "-o", "/dev/null", "-w", "%{http_code}", served.base_url + "/many?a=1&b=2&c=3&d=4&e=5&f=6") == "200"


def test_routes_show_their_conditions_and_mapping_names(serve, browser):
    served = serve()
    add_mapping(served, {"name": "Cart, first page", "request": {"method": "GET", "urlPath": "/cart", "queryParameters": {"page": {"equalTo": "1"}}},
                         "response": {"status": 200}})
    add_mapping(served, {"name": "Cart after checkout", "scenarioName": "checkout", "requiredScenarioState": "paid",
                         "request": {"method": "GET", "urlPath": "/cart", "headers": {"X-Env": {"equalTo": "test"}}},
                         "response": {"status": 200}})
    browser.get(served.base_url + "/__admin/")
    wait_for(browser, lambda d: len(texts(d, "route")) == 2, "both routes")
    first, second = texts(browser, "route")
    assert "Cart, first page" in first and "page" in first and "equalTo" in first
    assert "Cart after checkout" in second and "X-Env" in second and "checkout is paid" in second
    assert first != second


def test_voodoo_admin_routes_are_marked(serve, browser, tmp_path):
    (tmp_path / "endpoints.yml").write_text("- http:\n    api: get /hello\n  response:\n    status: 200\n    body:\n      text: hi\n")
    served = serve("--config", str(tmp_path / "endpoints.yml"))
    browser.get(served.base_url + "/__admin/")
    wait_for(browser, lambda d: any("/_admin/" in t for t in texts(d, "route")), "Voodoo's admin routes are listed")
    routes = browser.find_elements(By.CSS_SELECTOR, '[data-testid="route"]')
    admin = [r for r in routes if "/_admin/" in r.text]
    plain = [r for r in routes if "/hello" in r.text]
    assert admin and all(r.find_elements(By.CSS_SELECTOR, ".badge.admin") for r in admin)
    assert plain and not plain[0].find_elements(By.CSS_SELECTOR, ".badge.admin")


def test_values_are_text_never_markup(serve, browser):
    served = serve()
    add_mapping(served, {"name": "<img src=x onerror=\"window.pwned='name'\">",
                         "request": {"method": "GET", "urlPath": "/<b>bold</b>"}, "response": {"status": 200}})
    browser.get(served.base_url + "/__admin/")
    curl("-o", "/dev/null", "-H", "X-Evil: <script>window.pwned='header'</script>",
         "-d", "<img src=x onerror=window.pwned='body'>",
         served.base_url + "/<script>window.pwned='path'</script>?q=<img/src=x/onerror=window.pwned='query'>")
    wait_for(browser, lambda d: len(texts(d, "request")) == 1, "the request is listed")
    browser.find_element(By.CSS_SELECTOR, '[data-testid="request"] .line').click()
    wait_for(browser, lambda d: "X-Evil" in element(d, "request-detail").text, "the detail loads")
    assert browser.execute_script("return window.pwned === undefined")
    assert browser.find_elements(By.CSS_SELECTOR, "main img, main script, main b") == []
    assert "<img src=x onerror" in " ".join(texts(browser, "route"))
    detail = element(browser, "request-detail").text
    assert "<script>window.pwned='header'</script>" in detail
    assert "<img src=x onerror=window.pwned='body'>" in detail
    assert "<b>bold</b>" in " ".join(texts(browser, "near-miss"))


def test_usable_at_600_px(serve, narrow_browser):
    served = serve()
    add_mapping(served, {"request": {"method": "GET", "urlPath": "/a/rather/long/path/that/could/push/the/page/wider/than/the/window"},
                         "response": {"status": 200}})
    narrow_browser.get(served.base_url + "/__admin/")
    curl("-o", "/dev/null", served.base_url + "/a/rather/long/path/that/could/push/the/page/wider/than/the/window?" + "x" * 300)
    curl("-o", "/dev/null", served.base_url + "/missing")
    wait_for(narrow_browser, lambda d: len(texts(d, "request")) == 2, "both requests")
    narrow_browser.find_elements(By.CSS_SELECTOR, '[data-testid="request"] .line')[1].click()
    wait_for(narrow_browser, lambda d: "Response" in element(d, "request-detail").text, "the detail opens")
    width = narrow_browser.execute_script("return window.innerWidth")
    assert width <= 600
    assert narrow_browser.execute_script("return document.documentElement.scrollWidth") <= width
    for testid in ["filter", "reset", "stub-this"]:
        box = element(narrow_browser, testid)
        assert box.is_displayed() and box.location["x"] + box.size["width"] <= width
    element(narrow_browser, "stub-this").click()
    wait_for(narrow_browser, lambda d: element(d, "stub-save").is_displayed(), "the editor fits")
    save = element(narrow_browser, "stub-save")
    assert save.location["x"] + save.size["width"] <= width


def send_many(base_url, count, workers=8):
    """`count` GET requests over keep-alive connections, `workers` at a time."""
    address = urlparse(base_url)

    def work(start):
        connection = http.client.HTTPConnection(address.hostname, address.port, timeout=30)
        for index in range(start, count, workers):
            connection.request("GET", f"/load/{index}")
            connection.getresponse().read()
        connection.close()

    threads = [threading.Thread(target=work, args=(n,)) for n in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def test_ten_thousand_requests_show_the_last_200_and_say_so(serve, browser):
    served = serve()
    add_mapping(served, {"request": {"method": "GET", "urlPathPattern": "/load/.*"}, "response": {"status": 204}})
    send_many(served.base_url, 10_000)
    assert requests.post(served.base_url + "/__admin/requests/count", json={"method": "GET"}, timeout=30).json()["count"] == 10_000
    browser.get(served.base_url + "/__admin/")
    wait_for(browser, lambda d: "of 10000" in d.find_element(By.ID, "shown").text, "the page says how many it shows")
    assert "showing the last 200 of 10000" in browser.find_element(By.ID, "shown").text
    assert len(browser.find_elements(By.CSS_SELECTOR, '[data-testid="request"]')) == 200
    assert "/load/" in texts(browser, "request")[0]
    curl("-o", "/dev/null", served.base_url + "/load/extra")
    wait_for(browser, lambda d: "/load/extra" in texts(d, "request")[0], "a new request still appears live")
    assert len(browser.find_elements(By.CSS_SELECTOR, '[data-testid="request"]')) == 200
    element(browser, "filter").send_keys("/load/99")
    wait_for(browser, lambda d: 0 < len(texts(d, "request")) < 200, "the filter works on what is shown")
