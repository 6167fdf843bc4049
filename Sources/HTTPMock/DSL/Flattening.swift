/// Turns a `registerResponses { … }` tree into ``RouteSpec``s: joins nested paths and
/// applies the header rules, so the DSL registers exactly what the imperative API would.
enum Flattening {
    static func definitions(from components: [RouteComponent]) -> [RouteSpec] {
        var definitions: [RouteSpec] = []
        for component in components {
            switch component.kind {
            case .host(let host):
                flatten(host, into: &definitions)
            case .path(let path):
                flatten(path, host: nil, parentPath: "", inherited: HTTPHeaders(), into: &definitions)
            case .headers, .response:
                break  // the top-level builder does not accept these
            }
        }
        return definitions
    }

    private static func flatten(_ host: Host, into definitions: inout [RouteSpec]) {
        // Under a Host, every Headers block cascades to every path.
        var hostHeaders = HTTPHeaders()
        for component in host.components {
            if case .headers(let headers) = component.kind { hostHeaders = hostHeaders.merging(headers.fields) }
        }
        for component in host.components {
            if case .path(let path) = component.kind {
                flatten(path, host: host.name, parentPath: "", inherited: hostHeaders, into: &definitions)
            }
        }
    }

    private static func flatten(
        _ path: Path, host: String?, parentPath: String, inherited: HTTPHeaders,
        into definitions: inout [RouteSpec]
    ) {
        let fullPath = RoutePath.join(parentPath, path.path)
        var own = inherited
        var cascading = inherited
        var responses: [MockResponse] = []
        var children: [Path] = []
        for component in path.components {
            switch component.kind {
            case .headers(let headers):
                own = own.merging(headers.fields)
                if headers.cascade { cascading = cascading.merging(headers.fields) }
            case .response(let response):
                responses.append(response)
            case .path(let child):
                children.append(child)
            case .host:
                break  // the path builder does not accept hosts
            }
        }
        if !responses.isEmpty {
            definitions.append(
                RouteSpec(
                    path: fullPath, host: host, method: path.method, query: path.query, matching: path.matching,
                    headers: path.headers, body: path.body, predicate: path.predicate, scenario: path.scenario,
                    responses: responses.map { $0.inheriting(own) }, location: path.location))
        }
        for child in children {
            flatten(child, host: host, parentPath: fullPath, inherited: cascading, into: &definitions)
        }
    }
}

extension MockResponse {
    /// This response with `inherited` headers under its own (its own win).
    func inheriting(_ inherited: HTTPHeaders) -> MockResponse {
        guard !inherited.isEmpty, case .http(var http) = payload else { return self }
        http.headers = inherited.merging(http.headers)
        http.preparedHeaderFields = nil
        http.completesAtOnce = false
        return replacingPayload(.http(http))
    }
}
