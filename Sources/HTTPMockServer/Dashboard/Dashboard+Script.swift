#if Server
extension Dashboard {
    /// The page's script. It keeps the newest requests by identity and merges each event into
    /// them (a snapshot first, then deltas); lists are updated in place, so an opened request
    /// and a control in use stay as they are. Text only: `el()` sets `textContent`.
    static let script = #"""
        (function () {
          "use strict";
          var token = new URLSearchParams(location.search).get("token");
          var suffix = token ? "?token=" + encodeURIComponent(token) : "";
          function send(method, path, body) {
            var headers = { "Content-Type": "application/json" };
            if (token) headers.Authorization = "Bearer " + token;
            return fetch("/__admin/" + path, { method: method, headers: headers, body: body === undefined ? undefined : JSON.stringify(body) });
          }
          function get(path) {
            var headers = {};
            if (token) headers.Authorization = "Bearer " + token;
            return fetch("/__admin/" + path, { headers: headers }).then(function (r) { return r.json(); });
          }
          function el(tag, attrs, text) {
            var node = document.createElement(tag);
            Object.keys(attrs || {}).forEach(function (key) { node.setAttribute(key, attrs[key]); });
            if (text !== undefined && text !== null) node.textContent = String(text);
            return node;
          }
          function $(id) { return document.getElementById(id); }

          var model = { requests: new Map(), total: 0, oldest: null, limit: 200, routes: new Map(), scenarios: [], store: {}, revealSecrets: false };
          var requestNodes = new Map();
          var routeNodes = new Map();
          var filterText = "";

          function statusClass(entry) {
            if (entry.status === null || entry.status === undefined) return "s0";
            return "s" + String(entry.status).charAt(0);
          }
          // What a person types to find a request: "GET /users" (the method and the path as sent,
          // without the origin every row shares), "404", "miss", a route's name, a host.
          function entryText(entry) {
            var target = entry.url.replace(/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^\/?#]*/, "") || "/";
            return [entry.method + " " + target, entry.url, entry.status === null ? "---" : entry.status, entry.route || "",
              entry.matched ? "matched" : "miss"].join(" ").toLowerCase();
          }
          function routeText(route) {
            return [route.name, route.method || "ANY", route.path, route.admin ? "admin" : ""]
              .concat((route.conditions || []).map(function (c) { return c.kind + " " + c.text; })).join(" ").toLowerCase();
          }
          // The whole filter as typed, or else each of its words somewhere ("users 404").
          function shows(text) {
            if (filterText === "" || text.indexOf(filterText) !== -1) return true;
            return filterText.split(/\s+/).every(function (word) { return text.indexOf(word) !== -1; });
          }

          // MARK: merging events

          function merge(event) {
            if (event.kind === "snapshot" || event.reload) {
              model.requests = new Map();
              model.routes = new Map();
              requestNodes.forEach(function (node) { node.li.remove(); });
              requestNodes = new Map();
              routeNodes.forEach(function (node) { node.li.remove(); });
              routeNodes = new Map();
            }
            if (event.limit) model.limit = event.limit;
            if (event.revealSecrets !== undefined) model.revealSecrets = event.revealSecrets;
            (event.requests || []).forEach(function (entry) { model.requests.set(entry.id, entry); });
            if (event.total !== undefined) model.total = event.total;
            if (event.oldest !== undefined) model.oldest = event.oldest;
            // Keep what the journal still holds, the newest `limit` of it.
            var ids = Array.from(model.requests.keys()).sort(function (a, b) { return b - a; });
            ids.forEach(function (id, index) {
              if (index >= model.limit || model.oldest === null || id < model.oldest) model.requests.delete(id);
            });
            (event.routes || []).forEach(function (route) { model.routes.set(route.order, route); });
            (event.removedRoutes || []).forEach(function (order) { model.routes.delete(order); });
            if (event.scenarios) model.scenarios = event.scenarios;
            if (event.store) model.store = event.store;
            render();
          }

          // MARK: requests

          function fillRequest(node) {
            var entry = node.entry;
            var li = node.li;
            li.className = "entry " + statusClass(entry) + (entry.matched ? " matched" : " miss");
            var line = el("div", { "class": "line", role: "button", tabindex: "0", "aria-expanded": node.detail ? "true" : "false",
              title: "Show headers, bodies and time" });
            line.appendChild(el("span", { "class": "status" }, entry.status === null ? "---" : entry.status));
            line.appendChild(document.createTextNode(" " + entry.method + " "));
            line.appendChild(el("span", { "class": "url" }, entry.url));
            line.appendChild(el("span", { "class": "badge " + (entry.matched ? "matched" : "miss") }, entry.matched ? "matched" : "miss"));
            line.appendChild(el("span", { "class": "muted" }, " " + new Date(entry.received).toLocaleTimeString()));
            var children = [line];
            if (entry.route) children.push(el("div", { "class": "muted" }, "→ " + entry.route));
            if (entry.error) children.push(el("div", { "class": "muted" }, "error: " + entry.error));
            if (entry.nearMiss) children.push(el("pre", { "class": "report", "data-testid": "near-miss" }, entry.nearMiss));
            if (!entry.matched) {
              var stub = el("button", { type: "button", "data-testid": "stub-this" }, "Stub this");
              stub.addEventListener("click", function (event) { event.stopPropagation(); openEditor(entry); });
              children.push(stub);
            }
            if (node.detail) children.push(node.detail);
            li.replaceChildren.apply(li, children);
            line.addEventListener("keydown", function (event) { if (event.key === "Enter" || event.key === " ") { event.preventDefault(); toggleDetail(node); } });
          }

          function toggleDetail(node) {
            if (node.detail) {
              node.detail.remove();
              node.detail = null;
              fillRequest(node);
              return;
            }
            node.detail = el("div", { "class": "detail", "data-testid": "request-detail" }, "Loading…");
            fillRequest(node);
            loadDetail(node);
          }

          function headerTable(headers) {
            var table = el("table", {});
            (headers || []).forEach(function (header) {
              var row = el("tr", {});
              row.appendChild(el("td", {}, header.name));
              row.appendChild(el("td", {}, header.value));
              table.appendChild(row);
            });
            if (!headers || headers.length === 0) table.appendChild(el("tr", {})).appendChild(el("td", { "class": "empty" }, "no headers"));
            return table;
          }
          function bodyPart(part) {
            if (part.body !== undefined && part.body !== null) {
              var nodes = [el("pre", { "class": "body" }, part.body)];
              if (part.bodyNote) nodes.push(el("div", { "class": "muted" }, part.bodyNote));
              return nodes;
            }
            return [el("div", { "class": "muted" }, part.bodyNote || "no body")];
          }

          function loadDetail(node) {
            var detail = node.detail;
            get("dashboard/requests/" + node.entry.id).then(function (d) {
              if (node.detail !== detail) return;
              if (d.errors) { detail.replaceChildren(el("p", { "class": "error" }, d.errors[0].title)); return; }
              var received = new Date(d.received);
              var time = "Received " + received.toLocaleString() + " (" + d.receivedAt + ")";
              if (d.durationMs !== undefined) time += " · answered in " + d.durationMs.toFixed(1) + " ms";
              else if (d.response) time += " · answered at once";
              var parts = [el("p", { "class": "muted" }, time)];
              if (d.matchedAs) parts.push(el("p", { "class": "muted" }, "Matched as " + d.matchedAs + " (the host the server stands in for)"));
              var columns = el("div", { "class": "columns" });
              var request = el("div", {});
              request.appendChild(el("h3", {}, "Request: " + d.method + " " + d.url));
              request.appendChild(headerTable(d.request.headers));
              bodyPart(d.request).forEach(function (n) { request.appendChild(n); });
              columns.appendChild(request);
              var response = el("div", {});
              if (d.response) {
                response.appendChild(el("h3", {}, "Response: " + d.response.status));
                response.appendChild(headerTable(d.response.headers));
                bodyPart(d.response).forEach(function (n) { response.appendChild(n); });
              } else {
                response.appendChild(el("h3", {}, "Response"));
                response.appendChild(el("div", { "class": "muted" }, d.error ? "none: " + d.error : "not sent (yet)"));
              }
              columns.appendChild(response);
              parts.push(columns);
              if (d.masked) parts.push(el("p", { "class": "muted" }, "Secrets are shown as REDACTED (httpmock serve --reveal-secrets, or revealSecrets = true, shows them)."));
              detail.replaceChildren.apply(detail, parts);
            }).catch(function (error) { detail.replaceChildren(el("p", { "class": "error" }, "Could not load the request: " + error)); });
          }

          function renderRequests() {
            var list = $("requests");
            var ids = Array.from(model.requests.keys()).sort(function (a, b) { return b - a; });
            var visible = ids.filter(function (id) { return shows(entryText(model.requests.get(id))); });
            var wanted = new Set(visible);
            requestNodes.forEach(function (node, id) { if (!wanted.has(id)) { node.li.remove(); requestNodes.delete(id); } });
            var placeholder = list.querySelector(".empty");
            if (placeholder) placeholder.remove();
            var previous = null;
            visible.forEach(function (id) {
              var entry = model.requests.get(id);
              var text = JSON.stringify(entry);
              var node = requestNodes.get(id);
              if (!node) {
                node = { li: el("li", { "data-testid": "request", "data-id": String(id) }), entry: entry, text: text, detail: null };
                // A click anywhere on the entry opens or closes it; not one on a button, inside
                // the open detail, or one that ends a text selection.
                node.li.addEventListener("click", (function (node) {
                  return function (event) {
                    if (event.target.closest("button, a, input, textarea, .detail")) return;
                    if (String(window.getSelection()) !== "") return;
                    toggleDetail(node);
                  };
                })(node));
                requestNodes.set(id, node);
                fillRequest(node);
              } else if (node.text !== text) {
                node.entry = entry;
                node.text = text;
                fillRequest(node);
                if (node.detail) loadDetail(node);
              }
              var expected = previous ? previous.nextSibling : list.firstChild;
              if (node.li !== expected) list.insertBefore(node.li, expected);
              previous = node.li;
            });
            if (visible.length === 0) {
              list.appendChild(el("li", { "class": "empty" }, ids.length === 0 ? "No requests yet." : "No request matches the filter."));
            }
            var shown = $("shown");
            var kept = ids.length;
            var words = model.total > kept
              ? "— showing the last " + kept + " of " + model.total + " (the page keeps the newest " + model.limit + "; GET /__admin/requests has them all)"
              : "(" + model.total + ")";
            if (filterText !== "") words += " — " + visible.length + " match the filter";
            shown.textContent = words;
          }

          // MARK: routes, scenarios, store

          function fillRoute(node) {
            var route = node.route;
            var li = node.li;
            li.className = "route" + (route.admin ? " admin" : "");
            var title = el("div", { "class": "mono" }, route.name);
            if (route.admin) title.appendChild(el("span", { "class": "badge admin", title: "An admin route (Voodoo's /_admin): it controls the server" }, "admin"));
            var children = [title];
            if (route.mapping) {
              children.push(el("div", { "class": "muted" }, "WireMock mapping " + (route.mapping.name ? "“" + route.mapping.name + "” " : "") + route.mapping.id));
            }
            if (route.conditions && route.conditions.length) {
              var conditions = el("ul", { "class": "conditions mono" });
              route.conditions.forEach(function (c) { conditions.appendChild(el("li", {}, c.kind + ": " + c.text)); });
              children.push(conditions);
            }
            var left = route.eternal ? "answers forever" : route.pending + " left";
            var place = route.location ? " · " + route.location : "";
            children.push(el("div", { "class": "muted" }, "— " + left + ", " + route.served + " served" + place));
            li.replaceChildren.apply(li, children);
          }

          function renderRoutes() {
            var list = $("routes");
            var orders = Array.from(model.routes.keys()).sort(function (a, b) { return a - b; });
            var visible = orders.filter(function (order) { return shows(routeText(model.routes.get(order))); });
            var wanted = new Set(visible);
            routeNodes.forEach(function (node, order) { if (!wanted.has(order)) { node.li.remove(); routeNodes.delete(order); } });
            var placeholder = list.querySelector(".empty");
            if (placeholder) placeholder.remove();
            var previous = null;
            visible.forEach(function (order) {
              var route = model.routes.get(order);
              var text = JSON.stringify(route);
              var node = routeNodes.get(order);
              if (!node) {
                node = { li: el("li", { "data-testid": "route" }), route: route, text: text };
                routeNodes.set(order, node);
                fillRoute(node);
              } else if (node.text !== text) {
                node.route = route;
                node.text = text;
                fillRoute(node);
              }
              var expected = previous ? previous.nextSibling : list.firstChild;
              if (node.li !== expected) list.insertBefore(node.li, expected);
              previous = node.li;
            });
            if (visible.length === 0) list.appendChild(el("li", { "class": "empty" }, orders.length ? "No route matches the filter." : "No routes."));
            $("route-count").textContent = "(" + orders.length + ")";
          }

          var shownScenarios = null;
          function renderScenarios() {
            var text = JSON.stringify(model.scenarios);
            if (text === shownScenarios) return;
            shownScenarios = text;
            var items = model.scenarios.map(function (scenario) {
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
            });
            var list = $("scenarios");
            list.replaceChildren.apply(list, items.length ? items : [el("li", { "class": "empty" }, "No scenarios.")]);
          }

          var shownStore = null;
          function renderStore() {
            var text = JSON.stringify(model.store);
            if (text === shownStore) return;
            shownStore = text;
            var items = Object.keys(model.store).sort().map(function (key) {
              return el("li", { "class": "mono" }, key + " = " + JSON.stringify(model.store[key]));
            });
            var list = $("store");
            list.replaceChildren.apply(list, items.length ? items : [el("li", { "class": "empty" }, "The store is empty.")]);
          }

          var pending = false;
          function render() {
            if (pending) return;
            pending = true;
            requestAnimationFrame(function () {
              pending = false;
              renderRequests();
              renderRoutes();
              renderScenarios();
              renderStore();
            });
          }

          // MARK: "Stub this"

          var editing = null;
          function checkRow(container, name, value, checked, note) {
            var row = el("div", { "class": "row" });
            var box = el("input", { type: "checkbox", "aria-label": "Match " + name });
            box.checked = checked;
            var input = el("input", { type: "text", "aria-label": name });
            input.value = value;
            row.appendChild(box);
            row.appendChild(el("span", { "class": "name mono" }, name));
            row.appendChild(input);
            if (note) row.appendChild(el("span", { "class": "muted" }, note));
            container.appendChild(row);
            return { name: name, box: box, input: input };
          }

          // Headers every client sends, or that change per request: listed, not matched unless ticked.
          var generic = ["host", "user-agent", "accept", "accept-encoding", "accept-language", "connection", "content-length", "cache-control", "pragma", "origin", "referer"];

          // The path as the client sent it: URL() would resolve "." and ".." segments, and a stub
          // for /a/y does not answer /a/./x/../y, which the server matches as written.
          function sentPath(text) {
            var origin = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^\/?#]*/.exec(text);
            var rest = origin ? text.slice(origin[0].length) : text;
            var end = rest.search(/[?#]/);
            var path = end === -1 ? rest : rest.slice(0, end);
            return path || "/";
          }

          function openEditor(entry) {
            var url = new URL(entry.url, location.href);
            var path = sentPath(entry.url);
            editing = { query: [], headers: [] };
            $("stub-method").value = entry.method;
            $("stub-path").value = path;
            $("stub-status").value = "200";
            $("stub-name").value = "From the dashboard: " + entry.method + " " + path;
            $("stub-error").textContent = "";
            var query = $("stub-query");
            query.replaceChildren(el("div", { "class": "muted" }, Array.from(url.searchParams).length ? "Query (ticked: must be equal):" : "No query."));
            var seen = new Set();
            url.searchParams.forEach(function (value, name) {
              if (seen.has(name)) return;
              seen.add(name);
              var masked = value === "REDACTED";
              editing.query.push(checkRow(query, name, masked ? "" : value, !masked, masked ? "masked: type the value" : ""));
            });
            var headers = $("stub-headers");
            headers.replaceChildren(el("div", { "class": "muted" }, "Headers it sent (ticked: must be equal):"));
            $("stub-editor").showModal();
            get("dashboard/requests/" + entry.id).then(function (d) {
              if (!editing || d.errors) return;
              (d.request.headers || []).forEach(function (header) {
                var isGeneric = generic.indexOf(header.name.toLowerCase()) !== -1;
                var masked = header.secret && d.masked;
                editing.headers.push(checkRow(headers, header.name, masked ? "" : header.value, !isGeneric && !masked,
                  masked ? "masked: type the value to match it" : ""));
              });
            });
          }

          function closeEditor() {
            editing = null;
            $("stub-editor").close();
          }

          $("stub-cancel").addEventListener("click", closeEditor);
          $("stub-form").addEventListener("submit", function (event) {
            event.preventDefault();
            if (!editing) return;
            var request = { method: $("stub-method").value.trim().toUpperCase() || "ANY", urlPath: $("stub-path").value.trim() || "/" };
            var query = {};
            editing.query.forEach(function (row) { if (row.box.checked) query[row.name] = { equalTo: row.input.value }; });
            if (Object.keys(query).length) request.queryParameters = query;
            var headers = {};
            editing.headers.forEach(function (row) { if (row.box.checked) headers[row.name] = { equalTo: row.input.value }; });
            if (Object.keys(headers).length) request.headers = headers;
            var response = { status: parseInt($("stub-status").value, 10) || 200, body: $("stub-body").value };
            var contentType = $("stub-content-type").value.trim();
            if (contentType) response.headers = { "Content-Type": contentType };
            var mapping = { request: request, response: response };
            var name = $("stub-name").value.trim();
            if (name) mapping.name = name;
            send("POST", "mappings", mapping).then(function (answer) {
              return answer.json().then(function (body) {
                if (!answer.ok) {
                  $("stub-error").textContent = "Not saved: " + ((body.errors && body.errors[0] && body.errors[0].title) || answer.status);
                  return;
                }
                closeEditor();
                $("notice").textContent = "Stub saved (mapping " + body.id + "): " + request.method + " " + request.urlPath + " now answers " + response.status + ".";
              });
            }).catch(function (error) { $("stub-error").textContent = "Not saved: " + error; });
          });

          // MARK: filter, reset, the stream

          // Typing, the box's clear button, Escape, and a value set by a script (a test driver's
          // clear()) all filter again.
          function applyFilter() {
            var text = $("filter").value.trim().toLowerCase();
            if (text === filterText) return;
            filterText = text;
            render();
          }
          ["input", "search", "change", "keyup"].forEach(function (kind) { $("filter").addEventListener(kind, applyFilter); });
          $("reset").addEventListener("click", function () {
            var question = "Reset the server?\n\nStubs added through the admin API or this page are removed (those from files come back), " +
              "the journal is emptied and every scenario goes back to Started.";
            if (!window.confirm(question)) return;
            send("POST", "reset").then(function () { $("notice").textContent = "Reset."; });
          });
          var live = $("live");
          var events = new EventSource("/__admin/events" + suffix);
          events.onopen = function () { live.textContent = "live"; live.className = "live"; };
          events.onerror = function () { live.textContent = "reconnecting…"; live.className = "live off"; };
          events.onmessage = function (event) { merge(JSON.parse(event.data)); };
          render();
        })();
        """#
}
#endif
