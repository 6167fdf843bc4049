#if Server
import Foundation
import HTTPMock
import HTTPMockServer
import Testing

/// HTTPS and HTTP/2 (issue 44 item 2): `startServer(tls:)`, `httpmock serve --https-port` with
/// the CA of `httpmock ca`, HTTP/2 by ALPN and h2c with prior knowledge, checked with curl; and
/// forwards to `https://` upstreams that stream.
@Suite("HTTPS and HTTP/2, through curl", .serialized, .timeLimit(.minutes(3)))
struct HTTPSTests {
    /// `curl -s ARGUMENTS -w ' %{http_version} %{http_code}'`: its exit status and output.
    static func curl(_ arguments: [String]) async throws -> CommandResult {
        try await runCommand("/usr/bin/curl", ["-s", "-m", "20"] + arguments + ["-w", " %{http_version} %{http_code}"], timeout: 30)
    }

    /// A WireMock root answering `GET /hello` with `hi`.
    static func root(in folder: URL) throws -> URL {
        let root = folder.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("mappings"), withIntermediateDirectories: true)
        try Data(#"{"request":{"method":"GET","url":"/hello"},"response":{"status":200,"body":"hi"}}"#.utf8)
            .write(to: root.appendingPathComponent("mappings/hello.json"))
        return root
    }

    @Test(
        "httpmock ca exports a CA kept in --ca-dir (key 0600); serve --https-port answers curl --cacert over HTTP/1.1 and HTTP/2, h2c on the plain port"
    )
    func cliHTTPSWithExportedCA() async throws {
        let folder = try temporaryFolder("httpmock-https")
        defer { try? FileManager.default.removeItem(at: folder) }
        let caDir = folder.appendingPathComponent("ca")
        let exported = folder.appendingPathComponent("exported-ca.pem")
        let ca = try await runCommand(try httpmockExecutable().path, ["ca", "--ca-dir", caDir.path, "--output", exported.path])
        #expect(ca.status == 0, "\(ca)")
        let pem = try String(contentsOf: exported, encoding: .utf8)
        #expect(pem.hasPrefix("-----BEGIN CERTIFICATE-----"), "\(pem)")
        let keyMode = try FileManager.default.attributesOfItem(atPath: caDir.appendingPathComponent("ca-key.pem").path)[.posixPermissions]
        #expect((keyMode as? NSNumber)?.intValue == 0o600)
        // Kept: a second export prints the same certificate.
        let again = try await runCommand(try httpmockExecutable().path, ["ca", "--ca-dir", caDir.path])
        #expect(again.output == pem, "\(again)")

        let (cli, base) = try await startServe(
            ["--port", "0", "--https-port", "0", "--ca-dir", caDir.path, "--root-dir", try Self.root(in: folder).path], in: folder)
        defer { kill(cli.process.processIdentifier, SIGTERM) }
        let line = try #require(cli.text.split(separator: "\n").first { $0.contains("serving https on https://") })
        let secure = try #require(URL(string: String(line.split(separator: " ")[4])))
        let httpsURL = "https://localhost:\(try #require(secure.port))/hello"

        let http1 = try await Self.curl(["--cacert", exported.path, "--http1.1", httpsURL])
        #expect(http1.output == "hi 1.1 200", "\(http1)")
        let http2 = try await Self.curl(["--cacert", exported.path, "--http2", httpsURL])
        #expect(http2.output == "hi 2 200", "\(http2)")
        let onIPv4 = try await Self.curl(["--cacert", exported.path, "--http2", "https://127.0.0.1:\(secure.port!)/hello"])
        #expect(onIPv4.output == "hi 2 200", "\(onIPv4)")
        // Not trusted without the CA: curl refuses the certificate (exit 60).
        let untrusted = try await Self.curl([httpsURL])
        #expect(untrusted.status == 60, "\(untrusted)")

        let h2c = try await Self.curl(["--http2-prior-knowledge", base.absoluteString + "/hello"])
        #expect(h2c.output == "hi 2 200", "\(h2c)")
        let plain = try await Self.curl([base.absoluteString + "/hello"])
        #expect(plain.output == "hi 1.1 200", "\(plain)")
        #expect(cli.text.contains("GET /hello 200"), "\(cli.text)")
    }

    @Test("startServer(tls: .generated) serves https:// with HTTP/2 to a client trusting certificateAuthorityPEM")
    func libraryGeneratedCA() async throws {
        let mock = HTTPMock()
        mock.addResponses(forPath: "/users/1", responses: [.json(#"{"id":1}"#, lifetime: .eternal)])
        let server = try await mock.startServer(tls: .generated)
        defer { Task { await server.stop() } }
        #expect(server.baseURL.scheme == "https")
        let folder = try temporaryFolder("httpmock-tls")
        defer { try? FileManager.default.removeItem(at: folder) }
        let caFile = folder.appendingPathComponent("ca.pem")
        try Data(try #require(server.certificateAuthorityPEM).utf8).write(to: caFile)
        let answer = try await Self.curl(["--cacert", caFile.path, "--http2", server.baseURL.absoluteString + "/users/1"])
        #expect(answer.output == #"{"id":1} 2 200"#, "\(answer)")
        #expect(mock.recordedRequests.count == 1)
    }

    @Test("a certificate or key file that does not parse is an error naming the file")
    func unreadablePEMNamesTheFile() async throws {
        let folder = try temporaryFolder("httpmock-badpem")
        defer { try? FileManager.default.removeItem(at: folder) }
        let bad = folder.appendingPathComponent("cert.pem")
        try Data("not a certificate".utf8).write(to: bad)
        let mock = HTTPMock()
        do {
            let server = try await mock.startServer(tls: .pem(certificate: bad, privateKey: bad))
            await server.stop()
            Issue.record("a server started with a certificate that is not PEM")
        } catch let error as HTTPMockError {
            #expect(error.message.contains(bad.path) && error.message.contains("is not a PEM certificate"), "\(error.message)")
        }
        let missing = try await runCommand(
            try httpmockExecutable().path,
            ["serve", "--https-port", "0", "--tls-cert", bad.path + ".missing", "--tls-key", bad.path], timeout: 30)
        #expect(missing.status != 0)
        #expect(missing.errors.contains("cannot read the certificate \(bad.path).missing"), "\(missing)")
    }

    @Test("--tls-cert/--tls-key (PEM) and --https-keystore (PKCS#12, WireMock's flag) serve a certificate of the user's own")
    func userCertificates() async throws {
        let folder = try temporaryFolder("httpmock-owncert")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cert = folder.appendingPathComponent("cert.pem").path
        let key = folder.appendingPathComponent("key.pem").path
        let store = folder.appendingPathComponent("store.p12").path
        let made = try await runCommand(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=DNS:localhost", "-days", "2", "-keyout", key, "-out", cert,
            ])
        try #require(made.status == 0, "\(made)")
        let exported = try await runCommand(
            "/usr/bin/openssl", ["pkcs12", "-export", "-in", cert, "-inkey", key, "-out", store, "-passout", "pass:secret"])
        try #require(exported.status == 0, "\(exported)")
        let root = try Self.root(in: folder)
        for flags in [["--tls-cert", cert, "--tls-key", key], ["--https-keystore", store, "--keystore-password", "secret"]] {
            let (cli, _) = try await startServe(["--port", "0", "--https-port", "0", "--root-dir", root.path] + flags, in: folder)
            defer { kill(cli.process.processIdentifier, SIGTERM) }
            let line = try #require(cli.text.split(separator: "\n").first { $0.contains("serving https on https://") })
            let port = try #require(URL(string: String(line.split(separator: " ")[4]))?.port)
            let answer = try await Self.curl(["--cacert", cert, "--http2", "https://localhost:\(port)/hello"])
            #expect(answer.output == "hi 2 200", "\(flags): \(answer)")
        }
        let wrongPassword = try await runCommand(
            try httpmockExecutable().path, ["serve", "--https-port", "0", "--https-keystore", store, "--keystore-password", "nope"],
            timeout: 30)
        #expect(wrongPassword.status != 0)
        #expect(wrongPassword.errors.contains("the key store \(store) cannot be opened as PKCS#12"), "\(wrongPassword)")
    }

    @Test("a forward to an https:// upstream streams: the head and first bytes come before the upstream's body ends")
    func httpsForwardStreams() async throws {
        let upstreamMock = HTTPMock()
        let body = Data(repeating: UInt8(ascii: "x"), count: 400_000)
        upstreamMock.addResponses(
            forPath: "/big", responses: [.data(body, lifetime: .eternal, delivery: .throttled(bytesPerSecond: 200_000))])
        let upstream = try await upstreamMock.startServer(tls: .generated)
        defer { Task { await upstream.stop() } }
        let folder = try temporaryFolder("httpmock-upstream")
        defer { try? FileManager.default.removeItem(at: folder) }
        let caFile = folder.appendingPathComponent("upstream-ca.pem")
        try Data(try #require(upstream.certificateAuthorityPEM).utf8).write(to: caFile)
        let upstreamBase = try #require(URL(string: "https://localhost:\(upstream.port)"))

        let front = HTTPMock()
        front.unmockedPolicy = .mock(.forward(to: upstreamBase, lifetime: .eternal))
        let server = try await front.startServer(trustedUpstreamCertificates: caFile)
        defer { Task { await server.stop() } }
        let timing = try await runCommand(
            "/usr/bin/curl",
            [
                "-s", "-m", "30", "-o", "/dev/null", "-w", "%{http_code} %{size_download} %{time_starttransfer} %{time_total}",
                server.baseURL.absoluteString + "/big",
            ], timeout: 40)
        let fields = timing.output.split(separator: " ")
        #expect(fields.count == 4 && fields[0] == "200" && fields[1] == "400000", "\(timing)")
        if fields.count == 4, let first = Double(fields[2]), let total = Double(fields[3]) {
            // Throttled to 2 s upstream: buffered whole, the head would come at the end.
            #expect(total > 1.5 && first < total / 2, "first byte at \(first) s of \(total) s")
        }

        // The system's trust store alone does not trust the upstream's CA: a 502 naming it.
        let untrusting = HTTPMock()
        untrusting.unmockedPolicy = .mock(.forward(to: upstreamBase, lifetime: .eternal))
        let plain = try await untrusting.startServer()
        defer { Task { await plain.stop() } }
        let refused = try await runCommand("/usr/bin/curl", ["-s", "-m", "20", "-i", plain.baseURL.absoluteString + "/big"])
        #expect(refused.output.hasPrefix("HTTP/1.1 502"), "\(refused)")
        #expect(refused.output.contains("forwarding GET to \(upstreamBase.absoluteString)/big failed"), "\(refused)")
    }
}
#endif
