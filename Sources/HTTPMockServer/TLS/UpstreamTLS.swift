#if Server
import Foundation
import HTTPMock
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL

/// TLS towards `https://` upstreams of forwards (`Forwarder`): the system's trust store, plus
/// the certificates a server was told to trust (`trustedUpstreamCertificates:`, `httpmock serve
/// --upstream-ca FILE`). The client contexts are made on the first https forward (reading the
/// trust store costs time and memory a server that forwards nothing never spends) and kept.
enum UpstreamTLS {
    /// The extra trust of each server, by its `hop` name (what `Forwarder.relay` is given).
    private static let extraTrust = NIOLockedValueBox<[String: [NIOSSLCertificate]]>([:])
    /// The client contexts made so far: the system's alone (key ""), and one per server with
    /// extra trust.
    private static let contexts = NIOLockedValueBox<[String: NIOSSLContext]>([:])

    /// Makes `hop`'s forwards trust the certificates in the PEM file `file` too.
    /// - Throws: An `HTTPMockError` naming the file when it holds no PEM certificate.
    static func trust(_ file: URL, forHop hop: String) throws {
        let text = try TLSFiles.read(file, what: "the upstream CA")
        let certificates: [NIOSSLCertificate]
        do {
            certificates = try NIOSSLCertificate.fromPEMBytes(Array(text.utf8))
        } catch {
            throw TLSFiles.unparsable(file, what: "the upstream CA", expected: "a PEM certificate", error: error)
        }
        guard !certificates.isEmpty else {
            throw HTTPMockError(
                .invalidRegistration, "HTTPS: the upstream CA \(file.path) holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
        extraTrust.withLockedValue { $0[hop] = certificates }
    }

    /// The client context for `hop`'s forwards.
    static func context(forHop hop: String) throws -> NIOSSLContext {
        let extra = extraTrust.withLockedValue { $0[hop] }
        let key = extra == nil ? "" : hop
        if let context = contexts.withLockedValue({ $0[key] }) { return context }
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.applicationProtocols = ["http/1.1"]
        if let extra { configuration.additionalTrustRoots = [.certificates(extra)] }
        let context = try NIOSSLContext(configuration: configuration)
        contexts.withLockedValue { $0[key] = context }
        return context
    }

    /// The TLS handler of a connection to `host`: SNI and the certificate's name check use
    /// `host` unless it is an IP address (SNI carries names only).
    static func handler(context: NIOSSLContext, host: String) throws -> NIOSSLClientHandler {
        let isAddress = CertificateAuthority.addressBytes(host) != nil
        return try NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : host)
    }
}
#endif
