#if Server
import Foundation
import HTTPMock

/// WireMock's recorder page, `GET /__admin/recorder/` (`/__admin/recorder` redirects there, as
/// WireMock 2.35.1 answers 302): a target URL, Record and Stop, driving
/// `/__admin/recordings/start`, `/stop` and `/status`. One self-contained page (inline CSS and
/// script, no jQuery or image as WireMock's has), with the dashboard's `?token=` rule.
enum RecorderPage {
    /// The answer to `GET`/`HEAD` `/__admin/recorder[/]`; `uri` is the target as sent.
    static func answer(uri: String, method: String) -> ServedAnswer {
        let path = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        guard path.first?.hasSuffix("/") == true else {
            // The page's relative links resolve under `recorder/`, so it is served there.
            let query = path.count > 1 ? "?" + path[1] : ""
            return .direct(
                status: 302, headers: [("Location", "/__admin/recorder/" + query), ("Cache-Control", "no-store")], body: Data(),
                method: method)
        }
        return AdminAPI.direct(200, contentType: "text/html; charset=utf-8", Data(page.utf8), method: method)
    }

    /// Stable hooks: `recorder-target` (the URL box), `recorder-start`, `recorder-stop` and
    /// `recorder-message` (what happened: "Recording…", "Captured N stub mappings.", an error).
    static let page = #"""
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>HTTPMock Recorder</title>
        <style>
          body { font-family: -apple-system, system-ui, sans-serif; margin: 2rem; color: #222; }
          label, input, button { font-size: 1rem; }
          input { width: 28rem; max-width: 100%; padding: .3rem; margin: .5rem 0; display: block; }
          button { padding: .3rem 1rem; margin-right: .5rem; }
          #message { margin: 1rem 0; min-height: 1.5rem; }
          .error { color: #b00020; }
        </style>
        </head>
        <body>
        <h1>HTTPMock Recorder</h1>
        <p>Requests no mapping matches are forwarded to the target while recording; Stop turns them into mappings
        (WireMock's <code>/__admin/recordings</code> API). The <a href="../">dashboard</a> shows them.</p>
        <label for="targetBaseUrl">Target URL</label>
        <input type="text" id="targetBaseUrl" data-testid="recorder-target" placeholder="http://localhost:8000">
        <button id="startRecording" data-testid="recorder-start" disabled>Record</button>
        <button id="stopRecording" data-testid="recorder-stop" disabled>Stop</button>
        <div id="message" data-testid="recorder-message"></div>
        <script>
        (function () {
          "use strict";
          var token = new URLSearchParams(location.search).get("token");
          function call(method, path, body) {
            var headers = { "Content-Type": "application/json" };
            if (token) headers.Authorization = "Bearer " + token;
            return fetch("/__admin/recordings/" + path, { method: method, headers: headers, body: body })
              .then(function (response) {
                return response.text().then(function (text) {
                  var json = text ? JSON.parse(text) : {};
                  if (!response.ok) {
                    var error = json.errors && json.errors[0];
                    throw new Error(error ? error.title : "HTTP " + response.status);
                  }
                  return json;
                });
              });
          }
          var start = document.getElementById("startRecording");
          var stop = document.getElementById("stopRecording");
          var target = document.getElementById("targetBaseUrl");
          function show(text, isError) {
            var message = document.getElementById("message");
            message.textContent = text;
            message.className = isError ? "error" : "";
          }
          function recording(on) {
            start.disabled = on;
            stop.disabled = !on;
            if (on) show("Recording\u2026");
          }
          call("GET", "status").then(function (json) { recording(json.status === "Recording"); }, function (error) { show(error.message, true); });
          start.addEventListener("click", function () {
            if (!target.value) { show("You need to enter a valid target URL.", true); return; }
            start.disabled = true;
            call("POST", "start", JSON.stringify({ targetBaseUrl: target.value }))
              .then(function () { recording(true); }, function (error) { start.disabled = false; show(error.message, true); });
          });
          stop.addEventListener("click", function () {
            stop.disabled = true;
            call("POST", "stop", "{}").then(function (json) {
              recording(false);
              var count = (json.mappings || []).length;
              show("Captured " + count + " stub mapping" + (count === 1 ? "" : "s") + ".");
            }, function (error) { stop.disabled = false; show(error.message, true); });
          });
        })();
        </script>
        </body>
        </html>
        """#
}
#endif
