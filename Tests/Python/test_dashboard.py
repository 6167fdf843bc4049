"""The dashboard in headless Chromium driven by Selenium (SPEC §19), with Debian's chromium and
chromium-driver: nothing downloads a driver or reaches the internet."""

import os
import shutil
import subprocess

import pytest
import requests

os.environ["SE_AVOID_STATS"] = "true"

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402

CHROMEDRIVER = "/usr/bin/chromedriver"


@pytest.fixture
def browser():
    if not os.path.exists(CHROMEDRIVER) or shutil.which("chromium") is None:
        pytest.fail("chromium and chromium-driver are needed: apt-get install -y chromium chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,900"]:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def wait_for(driver, condition, message):
    return WebDriverWait(driver, 20, poll_frequency=0.2).until(lambda d: condition(d), message)


def texts(driver, testid):
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
    assert "GET" in oldest and "/ping" in oldest and "200" in oldest
    assert "/missing" in newest and "404" in newest
    reports = texts(browser, "near-miss")
    assert len(reports) == 1 and "/missing" in reports[0] and "/ping" in reports[0]

    browser.find_element(By.CSS_SELECTOR, '[data-testid="reset"]').click()
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
