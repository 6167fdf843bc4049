#if Server
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// The folder of realistic WireMock mappings this suite serves: every stub field and matcher of
/// SPEC §22 (`mappings/v3/` holds what WireMock 3 added and 2.35 refuses).
let wireMockShop = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("WireMockFixtures/shop")

/// What curl printed for one exchange: the status line, the header fields, the body.
struct CurlAnswer: CustomStringConvertible {
    var statusLine: String
    var headers: [String: String]
    var body: String
    var description: String { "\(statusLine) \(headers) \(body.prefix(300))" }
}

/// Runs curl (`-s -i`) with `arguments`; the exchange as curl saw it.
func curlAnswer(_ arguments: [String]) async throws -> CurlAnswer {
    try await blocking {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-i", "-m", "20"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { return CurlAnswer(statusLine: "", headers: [:], body: text) }
        let head = text[..<split.lowerBound].components(separatedBy: "\r\n")
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return CurlAnswer(statusLine: head.first ?? "", headers: headers, body: String(text[split.upperBound...]))
    }
}

@Suite("A folder of WireMock mappings served by the CLI, checked with curl (SPEC §22)", .serialized, .timeLimit(.minutes(3)))
struct WireMockFolderTests {
    /// One request and what must come back: the status line, the body, header fields that must
    /// be present (with their value) or absent (`nil`).
    struct Case: Sendable {
        var label: String
        var curl: [String]
        var status: String
        var body: String?
        var headers: [String: String?] = [:]
    }

    static let multipart =
        "--XB\r\nContent-Disposition: form-data; name=\"manifest\"\r\nContent-Type: application/json\r\n\r\n{\"files\": 1}\r\n"
        + "--XB\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n\r\nhello\r\n--XB--\r\n"

    static let soap =
        #"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><w:GetStock xmlns:w="urn:shop:warehouse">"#
        + "<w:Sku>TEA-1</w:Sku><w:Quantity>3</w:Quantity></w:GetStock></s:Body></s:Envelope>"

    static func cases(_ base: String) -> [Case] {
        [
            Case(
                label: "urlPath, jsonBody in the order written, no Content-Type added", curl: [base + "/products/42"],
                status: "HTTP/1.1 200 OK",
                body: #"{"id":42,"name":"Teapot","price":12.5}"#, headers: ["content-type": nil]),
            Case(
                label: "urlPathPattern below the exact path, its own Content-Type", curl: [base + "/products/7"], status: "HTTP/1.1 200 OK",
                body: "some product", headers: ["content-type": "text/plain"]),
            Case(
                label: "url with its query, exactly", curl: [base + "/search?q=tea&page=1"], status: "HTTP/1.1 200 OK",
                body: "search results"),
            Case(label: "url: the query order matters", curl: [base + "/search?page=1&q=tea"], status: "HTTP/1.1 404 Not Found"),
            Case(label: "urlPattern on path and query", curl: [base + "/items?id=5"], status: "HTTP/1.1 200 OK", body: "an item"),
            Case(
                label: "urlPathTemplate with pathParameters", curl: [base + "/customers/7/orders/123"], status: "HTTP/1.1 200 OK",
                body: "order of customer 7"),
            Case(label: "a path parameter that does not match", curl: [base + "/customers/8/orders/123"], status: "HTTP/1.1 404 Not Found"),
            Case(
                label: "hasExactly, in any order; or with absent", curl: [base + "/catalogue?tag=black&tag=green"],
                status: "HTTP/1.1 200 OK", body: "green and black tea"),
            Case(
                label: "includes", curl: [base + "/catalogue?tag=white&tag=oolong"], status: "HTTP/1.1 200 OK", body: "includes white tea"),
            Case(
                label: "numbers and not", curl: [base + "/prices?max=19.5&min=1&currency=EUR"], status: "HTTP/1.1 200 OK", body: "cheap"),
            Case(label: "a number over the limit", curl: [base + "/prices?max=25&min=1&currency=EUR"], status: "HTTP/1.1 404 Not Found"),
            Case(
                label: "headers, cookies, statusMessage on the wire, a header given as a list",
                curl: [
                    base + "/account", "-H", "Accept: application/json", "-H", "X-Client: shop-app", "-H", "User-Agent: curl", "-H",
                    "X-Trace: abc123", "-H", "Cookie: a=1; session=s-42",
                ],
                status: "HTTP/1.1 200 Account OK", body: #"{"user":"ada","plan":"gold"}"#,
                headers: ["content-type": "application/json", "cache-control": "no-cache, no-store"]),
            Case(
                label: "absent header present",
                curl: [base + "/account", "-H", "Accept: application/json", "-H", "X-Client: shop-app", "-H", "X-Debug: 1"],
                status: "HTTP/1.1 404 Not Found"),
            Case(label: "basic auth", curl: [base + "/admin", "-u", "ada:lovelace"], status: "HTTP/1.1 200 OK", body: "welcome, admin"),
            Case(
                label: "without credentials", curl: [base + "/admin"], status: "HTTP/1.1 401 Unauthorized",
                headers: ["www-authenticate": #"Basic realm="shop""#]),
            Case(
                label: "dates: before now, a formatted date, a truncated one",
                curl: [
                    base + "/deliveries", "-H", "If-Modified-Since: 2020-01-01T00:00:00Z", "-H", "X-Ship-Date: 01/06/2026",
                ],
                status: "HTTP/1.1 200 OK", body: "deliveries"),
            Case(
                label: "a truncated date", curl: [base + "/windows", "-H", "X-Window: 2024-05-17T10:00:00Z"], status: "HTTP/1.1 200 OK",
                body: "a window in May 2024"),
            Case(label: "a truncated date, no header", curl: [base + "/windows"], status: "HTTP/1.1 404 Not Found"),
            Case(
                label: "host and scheme", curl: [base.replacingOccurrences(of: "127.0.0.1", with: "localhost") + "/host-check"],
                status: "HTTP/1.1 200 OK", body: "local client"),
            Case(label: "clientIp", curl: [base + "/client"], status: "HTTP/1.1 200 OK", body: "local client"),
            Case(
                label: "equalToJson with json-unit placeholders and extra elements",
                curl: [
                    "-X", "POST", base + "/orders", "-d",
                    #"{"customer":"ada","items":[{"sku":"TEA-1","quantity":2}],"gift":false,"note":null,"extra":1}"#,
                ],
                status: "HTTP/1.1 201 Created", body: #"{"id":1001}"#, headers: ["location": "/orders/1001"]),
            Case(
                label: "a json-unit regex that does not match",
                curl: [
                    "-X", "POST", base + "/orders", "-d",
                    #"{"customer":"ada","items":[{"sku":"COFFEE-1","quantity":2}],"gift":false,"note":1}"#,
                ],
                status: "HTTP/1.1 404 Not Found"),
            Case(
                label: "matchesJsonPath filters, deep scan, sub-matchers; a lenient body",
                curl: [
                    "-X", "POST", base + "/orders/search", "-d",
                    "{'filters':[{'field':'status','value':'paid'}],'lines':[{'sku':'TEA-9'}],'page':{'size':20}}",
                ],
                status: "HTTP/1.1 200 OK", body: "matching orders"),
            Case(
                label: "matchesJsonPath absent fails when present",
                curl: [
                    "-X", "POST", base + "/orders/search", "-d",
                    #"{"filters":[{"field":"status","value":"paid"}],"lines":[{"sku":"TEA-9"}],"page":{"size":20},"debug":true}"#,
                ],
                status: "HTTP/1.1 404 Not Found"),
            Case(label: "absent body", curl: ["-X", "DELETE", base + "/orders/12"], status: "HTTP/1.1 204 No Content", body: ""),
            Case(
                label: "a body where none may be", curl: ["-X", "DELETE", base + "/orders/12", "-d", "x"], status: "HTTP/1.1 404 Not Found"),
            Case(
                label: "binaryEqualTo and base64Body", curl: ["-X", "PUT", base + "/orders/1001/receipt", "--data-binary", "@-"],
                status: "HTTP/1.1 200 OK", body: "Receipt stored"),
            Case(
                label: "formParameters", curl: ["-X", "POST", base + "/checkout", "-d", "card=1234567812345678&remember=yes"],
                status: "HTTP/1.1 200 OK", body: "paid"),
            Case(
                label: "multipartPatterns ANY and ALL",
                curl: ["-X", "POST", base + "/uploads", "-H", "Content-Type: multipart/form-data; boundary=XB", "--data-binary", "@-"],
                status: "HTTP/1.1 200 OK", body: "uploaded"),
            Case(
                label: "matchesXPath with namespaces and a sub-matcher; bodyFileName",
                curl: ["-X", "POST", base + "/soap/stock", "-d", soap], status: "HTTP/1.1 200 OK", headers: ["content-type": "text/xml"]),
            Case(
                label: "equalToXml with placeholders",
                curl: ["-X", "POST", base + "/soap/ping", "-d", "<ping><from>ada</from><id>7</id></ping>"],
                status: "HTTP/1.1 200 OK", body: "<pong/>"),
            Case(label: "fixedDelayMilliseconds", curl: [base + "/slow"], status: "HTTP/1.1 200 OK", body: "slow"),
            Case(label: "delayDistribution uniform", curl: [base + "/jittery"], status: "HTTP/1.1 200 OK", body: "jittery"),
            Case(label: "delayDistribution lognormal", curl: [base + "/lognormal"], status: "HTTP/1.1 200 OK", body: "lognormal"),
            Case(label: "chunkedDribbleDelay", curl: [base + "/dribble"], status: "HTTP/1.1 200 OK", body: "dribbled slowly"),
            Case(label: "a webhook after the response", curl: [base + "/notified"], status: "HTTP/1.1 202 Accepted", body: "accepted"),
            Case(label: "a serve-event listener", curl: [base + "/listened"], status: "HTTP/1.1 200 OK", body: "listened"),
            Case(
                label: "metadata, an empty body", curl: [base + "/empty"], status: "HTTP/1.1 200 OK", body: "",
                headers: ["content-type": nil]),
        ]
    }

    @Test("httpmock serve --wiremock-root answers every mapping of the folder as WireMock does")
    func folderThroughCLI() async throws {
        let cli = try RunningCLI(["serve", "--wiremock-root", wireMockShop.path, "--port", "0"], directory: wireMockShop)
        defer {
            kill(cli.process.processIdentifier, SIGTERM)
        }
        let started = try await cli.waitFor("serving on http://")
        let line = try #require(started.split(separator: "\n").first { $0.contains("serving on http://") })
        let base = String(line[line.range(of: "http://")!.lowerBound...]).trimmingCharacters(in: .whitespaces)
        for test in Self.cases(base) {
            var arguments = test.curl
            // Bodies curl reads from standard input are given as files instead.
            if let index = arguments.firstIndex(of: "@-") {
                let file = FileManager.default.temporaryDirectory.appendingPathComponent("wiremock-body-\(UUID().uuidString)")
                try (test.label.hasPrefix("binaryEqualTo") ? Data([0, 1, 2, 3]) : Data(Self.multipart.utf8)).write(to: file)
                arguments[index] = "@" + file.path
            }
            let answer = try await curlAnswer(arguments)
            #expect(answer.statusLine == test.status, "\(test.label): \(answer)")
            if let body = test.body { #expect(answer.body == body, "\(test.label): \(answer)") }
            for (name, value) in test.headers {
                #expect(answer.headers[name] == value, "\(test.label): header \(name) in \(answer)")
            }
        }
        // The scenario: the basket is empty until a POST fills it.
        #expect(try await curlAnswer([base + "/basket"]).statusLine == "HTTP/1.1 404 Not Found")
        #expect(try await curlAnswer(["-X", "POST", base + "/basket"]).statusLine == "HTTP/1.1 201 Created")
        #expect(try await curlAnswer([base + "/basket"]).body == "one teapot")
        // EMPTY_RESPONSE: the connection closes without an answer.
        #expect(try await curlAnswer([base + "/broken"]).statusLine == "")
    }

    @Test("a miss names the mapping by name or id with its file and line, and says expected vs got for a body")
    func reportsNameTheMappingAndItsFile() async throws {
        let cli = try RunningCLI(["serve", "--wiremock-root", wireMockShop.path, "--port", "0"], directory: wireMockShop)
        defer { kill(cli.process.processIdentifier, SIGTERM) }
        let started = try await cli.waitFor("serving on http://")
        let line = try #require(started.split(separator: "\n").first { $0.contains("serving on http://") })
        let base = String(line[line.range(of: "http://")!.lowerBound...]).trimmingCharacters(in: .whitespaces)
        let miss = try await curlAnswer(["-X", "POST", base + "/orders", "-d", #"{"customer":7,"items":[]}"#])
        #expect(miss.statusLine == "HTTP/1.1 404 Not Found")
        #expect(
            miss.body.contains("Create an order: POST /orders [wiremock ") && miss.body.contains("(registered at mappings/orders.json:3)"),
            "\(miss.body)")
        #expect(miss.body.contains("bodyPatterns[0]: expected equalToJson"), "\(miss.body)")
        #expect(miss.body.contains(#"got {"customer":7,"items":[]}"#), "\(miss.body)")
        #expect(!miss.body.contains(":0)"))
        let header = try await curlAnswer([base + "/account", "-H", "Accept: text/html"])
        #expect(header.body.contains(#"headers.Accept: expected contains "json", got "text/html""#), "\(header.body)")
        #expect(
            header.body.contains("Account with a session: GET /account [wiremock ")
                && header.body.contains("(registered at mappings/account.json:"), "\(header.body)")
    }
}
#endif
