#if Server
import Foundation
import HTTPMock
import NIOSSL
import X509

/// How ``HTTPMock/HTTPMock/startServer(host:port:impersonating:idleTimeout:maximumRequestBody:admin:adminToken:adminAllowedOrigins:tls:trustedUpstreamCertificates:logger:)``
/// serves HTTPS: which certificate the server presents.
///
/// A server started with `tls:` speaks TLS only, and offers HTTP/2 and HTTP/1.1 through ALPN
/// (clients that ask for neither get HTTP/1.1). Nothing of TLS is loaded or made for a server
/// without it.
///
/// ```swift
/// let server = try await mock.startServer(tls: .generated)
/// // server.baseURL is https://127.0.0.1:PORT; trust server.certificateAuthorityPEM
/// let kept = try await mock.startServer(tls: .generated(caDirectory: HTTPMockTLS.defaultCADirectory))
/// let own = try await mock.startServer(tls: .pem(certificate: certURL, privateKey: keyURL))
/// ```
public struct HTTPMockTLS: Sendable {
    enum Source: Sendable {
        case ephemeral
        case directory(URL)
        case pem(certificate: URL, privateKey: URL)
        case pkcs12(URL, password: String)
    }

    let source: Source

    /// A certificate authority made in memory for this server alone, and a certificate it
    /// signs for `localhost`, `127.0.0.1`, `::1` (and the server's `host`). Clients trust
    /// ``HTTPMockServer/certificateAuthorityPEM``; nothing is written to disk.
    public static var generated: HTTPMockTLS { HTTPMockTLS(source: .ephemeral) }

    /// The certificate authority kept in `caDirectory` (`ca.pem`, and `ca-key.pem` with mode
    /// 0600), made there on first use and reused after, so a client (a simulator, a trust
    /// store) trusts it once; the server's certificate is signed by it at each start. The
    /// `httpmock` CLI uses ``defaultCADirectory``.
    public static func generated(caDirectory: URL) -> HTTPMockTLS { HTTPMockTLS(source: .directory(caDirectory)) }

    /// The server's certificate (chain) and private key from PEM files, for a certificate the
    /// clients already trust.
    public static func pem(certificate: URL, privateKey: URL) -> HTTPMockTLS {
        HTTPMockTLS(source: .pem(certificate: certificate, privateKey: privateKey))
    }

    /// The server's certificate and private key from a PKCS#12 key store (`.p12`, as WireMock's
    /// `--https-keystore` with `--keystore-type PKCS12`). A Java `.jks` store is converted first:
    /// `keytool -importkeystore -srckeystore k.jks -destkeystore k.p12 -deststoretype PKCS12`.
    public static func pkcs12(_ keyStore: URL, password: String) -> HTTPMockTLS {
        HTTPMockTLS(source: .pkcs12(keyStore, password: password))
    }

    /// Where the `httpmock` CLI keeps its certificate authority: `$HTTPMOCK_CA_DIR`, else
    /// `$XDG_DATA_HOME/httpmock/ca`, else `~/.local/share/httpmock/ca`.
    public static var defaultCADirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        if let explicit = environment["HTTPMOCK_CA_DIR"], !explicit.isEmpty {
            return URL(fileURLWithPath: explicit, isDirectory: true)
        }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return URL(fileURLWithPath: data, isDirectory: true).appendingPathComponent("httpmock/ca", isDirectory: true)
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share/httpmock/ca", isDirectory: true)
    }

    /// The server's TLS context, and the CA's PEM when HTTPMock made the certificate.
    func makeContext(host: String?) throws -> (context: NIOSSLContext, authorityPEM: String?) {
        let chain: [NIOSSLCertificateSource]
        let key: NIOSSLPrivateKeySource
        var authorityPEM: String?
        switch source {
        case .ephemeral, .directory:
            let authority: CertificateAuthority
            if case .directory(let directory) = source {
                authority = try CertificateAuthority.persistent(in: directory)
            } else {
                authority = try CertificateAuthority.generate()
            }
            let issued = try authority.issueServerCertificate(for: host.map { [$0] } ?? [])
            let leafPEM = try issued.certificate.serializeAsPEM().pemString
            let keyPEM = try issued.privateKey.serializeAsPEM().pemString
            chain = [.certificate(try NIOSSLCertificate(bytes: Array(leafPEM.utf8), format: .pem))]
            key = .privateKey(try NIOSSLPrivateKey(bytes: Array(keyPEM.utf8), format: .pem))
            authorityPEM = try authority.certificatePEM
        case .pem(let certificate, let privateKey):
            let certificatePEM = try TLSFiles.read(certificate, what: "the certificate")
            let keyPEM = try TLSFiles.read(privateKey, what: "the private key")
            do {
                let certificates = try NIOSSLCertificate.fromPEMBytes(Array(certificatePEM.utf8))
                guard !certificates.isEmpty else { throw NIOSSLError.failedToLoadCertificate }
                chain = certificates.map { .certificate($0) }
            } catch {
                throw TLSFiles.unparsable(certificate, what: "the certificate", expected: "a PEM certificate", error: error)
            }
            do {
                key = .privateKey(try NIOSSLPrivateKey(bytes: Array(keyPEM.utf8), format: .pem))
            } catch {
                throw TLSFiles.unparsable(privateKey, what: "the private key", expected: "an unencrypted PEM private key", error: error)
            }
        case .pkcs12(let keyStore, let password):
            let bundle: NIOSSLPKCS12Bundle
            do {
                bundle = try NIOSSLPKCS12Bundle(file: keyStore.path, passphrase: Array(password.utf8))
            } catch {
                throw HTTPMockError(
                    .invalidRegistration,
                    "HTTPS: the key store \(keyStore.path) cannot be opened as PKCS#12 with the password given (\(error)); a Java .jks store is converted with keytool -importkeystore -srckeystore FILE.jks -destkeystore FILE.p12 -deststoretype PKCS12"
                )
            }
            chain = bundle.certificateChain.map { .certificate($0) }
            key = .privateKey(bundle.privateKey)
        }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: key)
        configuration.applicationProtocols = ["h2", "http/1.1"]
        do {
            return (try NIOSSLContext(configuration: configuration), authorityPEM)
        } catch {
            throw HTTPMockError(
                .invalidRegistration,
                "HTTPS: the certificate and private key cannot serve TLS together (\(error)); is the key the certificate's?")
        }
    }
}
#endif
