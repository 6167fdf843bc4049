#if Server
import Foundation
import HTTPMock
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL

/// TLS towards the `https://` upstreams of one server's forwards (`Forwarder`): the system's
/// trust store, plus the certificates the server was told to trust (`trustedUpstreamCertificates:`,
/// `httpmock serve --upstream-ca FILE`). Each server holds its own (``ServingSite``); the client
/// context is made on its first https forward (reading the trust store costs time and memory a
/// server that forwards nothing never spends) and kept while the server lives.
final class UpstreamTLS: Sendable {
    /// The certificates trusted besides the system's; `nil`: the system's alone.
    private let extraTrust: [NIOSSLCertificate]?
    private let made = NIOLockedValueBox<NIOSSLContext?>(nil)

    /// Trusting the system's store alone.
    init() {
        extraTrust = nil
    }

    /// Trusting the system's store and the certificates in the PEM file `file`.
    /// - Throws: An `HTTPMockError` naming the file when it holds no PEM certificate.
    init(trusting file: URL) throws {
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
        extraTrust = certificates
    }

    /// The client context of this server's forwards, made on first use.
    func context() throws -> NIOSSLContext {
        try made.withLockedValue { made in
            if let made { return made }
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.applicationProtocols = ["http/1.1"]
            if let extraTrust { configuration.additionalTrustRoots = [.certificates(extraTrust)] }
            let context = try NIOSSLContext(configuration: configuration)
            made = context
            return context
        }
    }

    /// The TLS handler of a connection to `host`: SNI and the certificate's name check use
    /// `host` unless it is an IP address (SNI carries names only).
    static func handler(context: NIOSSLContext, host: String) throws -> NIOSSLClientHandler {
        let isAddress = CertificateAuthority.addressBytes(host) != nil
        return try NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : host)
    }
}
#endif
