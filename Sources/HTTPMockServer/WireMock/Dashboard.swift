#if Server
import Foundation
import HTTPMock

// The live dashboard (SPEC §19): one self-contained page, kept current by server-sent events
// from `GET /__admin/events`, each event the whole state as JSON.

extension AdminAPI {
    /// Requests the dashboard shows, newest first.
    static let dashboardRequestLimit = 200

    /// What the dashboard shows: requests (newest first), routes with what each has left,
    /// scenarios with their states, the store.
    var dashboardState: JSONValue {
        let journal = mock.recordedRequests
        let requests = journal.suffix(Self.dashboardRequestLimit).reversed().map { entry -> JSONValue in
            var item: [String: JSONValue] = [
                "method": .string(entry.request.method.rawValue),
                "url": .string(entry.request.url.absoluteString),
                "status": entry.statusCode.map(JSONValue.integer) ?? .null,
                "matched": .bool(entry.isMatched),
            ]
            if let route = entry.route { item["route"] = .string(route) }
            if !entry.isMatched, let report = entry.nearMissReport { item["nearMiss"] = .string(report) }
            return .object(item)
        }
        let routes = mock.adminRouteStates.map { route -> JSONValue in
            .object([
                "name": .string(route.name), "pending": .integer(route.pending), "served": .integer(route.served),
                "eternal": .bool(route.isEternal),
            ])
        }
        return .object([
            "requests": .array(requests), "total": .integer(journal.count), "routes": .array(routes),
            "scenarios": .array(scenarios), "store": .object(mock.store.snapshot),
        ])
    }

    /// `GET /__admin/events`: the state now, then again whenever it changes.
    func dashboardEvents(for request: MockRequest) -> ServedAnswer {
        let response = MockResponse.eventStreamFromSequence(headers: ["Cache-Control": "no-store"]) { [self] _ in
            AsyncStream<ServerSentEvent> { continuation in
                let task = Task {
                    let encoder = JSONEncoder()
                    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
                    var last = ""
                    while !Task.isCancelled {
                        let text = String(decoding: (try? encoder.encode(dashboardState)) ?? Data(), as: UTF8.self)
                        if text != last {
                            continuation.yield(ServerSentEvent(data: text))
                            last = text
                        }
                        try? await Task.sleep(nanoseconds: 200_000_000)
                    }
                    continuation.finish()
                }
                continuation.onTermination = { _ in task.cancel() }
            }
        }
        return .directEvents(response, for: request) ?? Self.notFound("no event stream", method: "GET")
    }
}

/// The dashboard page.
enum Dashboard {
    static let page = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>HTTPMock dashboard</title>
        <link rel="icon" href="data:,">
        <style>
        :root { --ok: #1a7f37; --miss: #cf222e; --muted: #57606a; --line: #d0d7de; font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; }
        body { margin: 0; background: #f6f8fa; color: #1f2328; }
        header { display: flex; align-items: center; gap: 1rem; padding: .75rem 1.25rem; background: #24292f; color: #fff; }
        header h1 { font-size: 1.1rem; margin: 0; flex: 1; }
        header .live { font-size: .8rem; color: #8ddb8c; }
        header .live.off { color: #ff8182; }
        button { font: inherit; padding: .3rem .8rem; border-radius: 6px; border: 1px solid var(--line); background: #fff; cursor: pointer; }
        main { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 1rem; padding: 1rem 1.25rem; }
        section { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: .75rem 1rem; }
        h2 { font-size: .95rem; margin: 0 0 .5rem; }
        ul { list-style: none; margin: 0; padding: 0; }
        li { padding: .35rem 0; border-top: 1px solid #eaeef2; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .8rem; overflow-wrap: anywhere; }
        .status { display: inline-block; min-width: 2.5rem; font-weight: 600; }
        .matched .status { color: var(--ok); }
        .miss .status { color: var(--miss); }
        pre { white-space: pre-wrap; margin: .3rem 0 0; padding: .4rem; background: #fff8c5; border-radius: 4px; font-size: .75rem; }
        .left { color: var(--muted); }
        .empty { color: var(--muted); font-family: inherit; }
        select { font: inherit; }
        </style>
        </head>
        <body>
        <header>
          <h1>HTTPMock dashboard</h1>
          <span id="live" class="live off">connecting…</span>
          <button type="button" data-testid="reset" id="reset">Reset</button>
        </header>
        <main>
          <section><h2>Requests <span id="total" class="left"></span></h2><ul id="requests"></ul></section>
          <div>
            <section><h2>Routes</h2><ul id="routes"></ul></section>
            <section><h2>Scenarios</h2><ul id="scenarios"></ul></section>
            <section><h2>Store</h2><ul id="store"></ul></section>
          </div>
        </main>
        <script>
        (function () {
          var token = new URLSearchParams(location.search).get("token");
          var suffix = token ? "?token=" + encodeURIComponent(token) : "";
          function send(method, path, body) {
            var headers = { "Content-Type": "application/json" };
            if (token) headers.Authorization = "Bearer " + token;
            return fetch("/__admin/" + path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body) });
          }
          function el(tag, attrs, text) {
            var node = document.createElement(tag);
            Object.keys(attrs || {}).forEach(function (key) { node.setAttribute(key, attrs[key]); });
            if (text !== undefined) node.textContent = text;
            return node;
          }
          var shown = {};
          // A section is rebuilt only when its data changed, so a control being used is not replaced.
          function changed(id, data) {
            var text = JSON.stringify(data);
            if (shown[id] === text) return false;
            shown[id] = text;
            return true;
          }
          function fill(id, items, empty) {
            var list = document.getElementById(id);
            list.replaceChildren.apply(list, items.length ? items : [el("li", { "class": "empty" }, empty)]);
          }
          function render(state) {
            document.getElementById("total").textContent = "(" + state.total + ")";
            if (changed("requests", state.requests)) fill("requests", state.requests.map(function (r) {
              var item = el("li", { "data-testid": "request", "class": r.matched ? "matched" : "miss" });
              item.appendChild(el("span", { "class": "status" }, r.status === null ? "---" : String(r.status)));
              item.appendChild(document.createTextNode(" " + r.method + " " + r.url));
              if (r.route) item.appendChild(el("div", { "class": "left" }, "→ " + r.route));
              if (r.nearMiss) item.appendChild(el("pre", { "data-testid": "near-miss" }, r.nearMiss));
              return item;
            }), "No requests yet.");
            if (changed("routes", state.routes)) fill("routes", state.routes.map(function (route) {
              var left = route.eternal ? "answers forever" : route.pending + " left";
              var item = el("li", { "data-testid": "route" }, route.name + " ");
              item.appendChild(el("span", { "class": "left" }, "— " + left + ", " + route.served + " served"));
              return item;
            }), "No routes.");
            if (changed("scenarios", state.scenarios)) fill("scenarios", state.scenarios.map(function (scenario) {
              var item = el("li", {}, scenario.name + " ");
              var select = el("select", { "data-testid": "scenario:" + scenario.name, "aria-label": "State of " + scenario.name });
              scenario.possibleStates.forEach(function (name) {
                var option = el("option", { value: name }, name);
                if (name === scenario.state) option.selected = true;
                select.appendChild(option);
              });
              select.addEventListener("change", function () {
                send("PUT", "scenarios/" + encodeURIComponent(scenario.name) + "/state", { state: select.value });
              });
              item.appendChild(select);
              return item;
            }), "No scenarios.");
            if (changed("store", state.store)) fill("store", Object.keys(state.store).sort().map(function (key) {
              return el("li", {}, key + " = " + JSON.stringify(state.store[key]));
            }), "The store is empty.");
          }
          document.getElementById("reset").addEventListener("click", function () { send("POST", "reset"); });
          var live = document.getElementById("live");
          var events = new EventSource("/__admin/events" + suffix);
          events.onopen = function () { live.textContent = "live"; live.className = "live"; };
          events.onerror = function () { live.textContent = "reconnecting…"; live.className = "live off"; };
          events.onmessage = function (event) { render(JSON.parse(event.data)); };
        })();
        </script>
        </body>
        </html>
        """#
}
#endif
