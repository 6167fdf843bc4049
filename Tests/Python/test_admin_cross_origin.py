"""A web page of another origin cannot drive the admin API (SPEC §23), in headless Chromium
driven by Selenium: the page tries what a malicious or careless page can do without CORS — a
`no-cors` fetch with a `text/plain` JSON body, a form post — and no mapping is created. A page of
an origin named by `--admin-allow-origin` can."""

import http.server
import os
import shutil
import threading

import pytest
import requests

os.environ["SE_AVOID_STATS"] = "true"

from selenium import webdriver  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

CHROMEDRIVER = "/usr/bin/chromedriver"

MAPPING = '{"request": {"method": "GET", "url": "/pwned"}, "response": {"status": 200, "body": "pwned"}}'

PAGE = """<!doctype html><html><body>
<form id="form" method="POST" enctype="text/plain" target="sink" action="ADMIN/__admin/mappings">
  <input name='{"request": {"method": "GET", "url": "/formed"}, "response": {"status": 200}, "x": "' value='"}'>
</form>
<iframe name="sink"></iframe>
<script>
  window.done = [];
  fetch("ADMIN/__admin/mappings", {method: "POST", mode: "no-cors", headers: {"Content-Type": "text/plain"}, body: MAPPING})
    .then(function () { window.done.push("no-cors"); }, function () { window.done.push("no-cors"); });
  fetch("ADMIN/__admin/mappings", {method: "POST", mode: "cors", headers: {"Content-Type": "application/json"}, body: MAPPING})
    .then(function (r) { window.done.push("cors " + r.status); }, function (e) { window.done.push("cors failed"); });
  document.getElementById("form").submit();
  window.done.push("form");
</script></body></html>"""


@pytest.fixture
def browser():
    if not os.path.exists(CHROMEDRIVER) or shutil.which("chromium") is None:
        pytest.fail("chromium and chromium-driver are needed: apt-get install -y chromium chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"]:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


@pytest.fixture
def page_server():
    """A second origin on the same machine (another port: same site, another origin), serving the
    page the test names."""
    pages = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = pages.get(self.path, "").encode()
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", pages
    server.shutdown()
    server.server_close()


def attack(browser, page_server, admin):
    origin, pages = page_server
    pages["/attack"] = PAGE.replace("ADMIN", admin).replace("MAPPING", repr(MAPPING))
    browser.get(origin + "/attack")
    WebDriverWait(browser, 20, poll_frequency=0.2).until(
        lambda d: len(d.execute_script("return window.done")) == 3, "the page's requests did not finish")
    return browser.execute_script("return window.done")


def test_a_page_of_another_origin_cannot_create_mappings(serve, browser, page_server):
    served = serve()
    done = attack(browser, page_server, served.base_url)
    assert "cors 403" in done or "cors failed" in done, done
    mappings = requests.get(served.base_url + "/__admin/mappings", timeout=10).json()["mappings"]
    assert mappings == [], mappings
    assert requests.get(served.base_url + "/pwned", timeout=10).status_code == 404
    assert requests.get(served.base_url + "/formed", timeout=10).status_code == 404


def test_an_allowed_origin_can(serve, browser, page_server):
    origin, _ = page_server
    served = serve("--admin-allow-origin", origin)
    done = attack(browser, page_server, served.base_url)
    assert "cors 201" in done, done
    assert requests.get(served.base_url + "/pwned", timeout=10).text == "pwned"
    # The no-cors text/plain post and the form are still refused: their bodies are not JSON.
    assert requests.get(served.base_url + "/formed", timeout=10).status_code == 404
    assert len(requests.get(served.base_url + "/__admin/mappings", timeout=10).json()["mappings"]) == 1
