#if Server
import Crypto
import Foundation
import HTTPMock
import SwiftASN1
import X509

/// A certificate authority that issues the HTTPS server's certificate: made with
/// swift-certificates, either in memory for one server or kept in a folder so that a client
/// trusts it once (`httpmock ca`).
///
/// A folder holds `ca.pem` (the certificate, mode 0644: it is what clients are told to trust)
/// and `ca-key.pem` (its P-256 private key, mode 0600, in a folder of mode 0700): whoever reads
/// the key can sign a certificate for any name that every client trusting this CA accepts, so
/// only the user who made it may read it. The CA's certificate says so in its name and allows
/// no intermediate (path length 0).
package struct CertificateAuthority: Sendable {
    /// The CA's certificate.
    package let certificate: Certificate
    /// The CA's private key.
    let privateKey: Certificate.PrivateKey

    /// The certificate in PEM, what a client is told to trust.
    package var certificatePEM: String {
        get throws { try certificate.serializeAsPEM().pemString }
    }

    /// The file names inside a CA folder.
    package static let certificateFile = "ca.pem"
    package static let keyFile = "ca-key.pem"

    /// A new CA, valid for ten years from an hour ago.
    package static func generate() throws -> CertificateAuthority {
        let key = P256.Signing.PrivateKey()
        let privateKey = Certificate.PrivateKey(key)
        let host = ProcessInfo.processInfo.hostName
        let name = try DistinguishedName {
            OrganizationName("HTTPMock")
            OrganizationalUnitName("local development only")
            CommonName("HTTPMock local CA (\(host.isEmpty ? "this machine" : String(host.prefix(40))))")
        }
        let now = Date()
        let publicKey = Certificate.PublicKey(key.publicKey)
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(10 * 365 * 86400),
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(digitalSignature: true, keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: publicKey)
            },
            issuerPrivateKey: privateKey)
        return CertificateAuthority(certificate: certificate, privateKey: privateKey)
    }

    /// The CA kept in `directory`: loaded when `ca.pem` and `ca-key.pem` are there, else made and
    /// written there (the folder created with mode 0700, the key with 0600).
    /// - Throws: An `HTTPMockError` naming the file that cannot be read, parsed or written.
    package static func persistent(in directory: URL) throws -> CertificateAuthority {
        let certificateURL = directory.appendingPathComponent(certificateFile)
        let keyURL = directory.appendingPathComponent(keyFile)
        let manager = FileManager.default
        if manager.fileExists(atPath: certificateURL.path) || manager.fileExists(atPath: keyURL.path) {
            return try load(certificate: certificateURL, privateKey: keyURL)
        }
        let authority = try generate()
        do {
            try manager.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            // The key is created with mode 0600 before a byte of it is written.
            guard manager.createFile(atPath: keyURL.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw CocoaError(.fileWriteNoPermission)
            }
            let handle = try FileHandle(forWritingTo: keyURL)
            try handle.write(contentsOf: Data((try authority.privateKey.serializeAsPEM().pemString + "\n").utf8))
            try handle.close()
            try Data((try authority.certificatePEM + "\n").utf8).write(to: certificateURL, options: .atomic)
            try manager.setAttributes([.posixPermissions: 0o644], ofItemAtPath: certificateURL.path)
        } catch let error as HTTPMockError {
            throw error
        } catch {
            throw HTTPMockError(
                .invalidRegistration,
                "HTTPS: cannot write the certificate authority into \(directory.path) (\(error.localizedDescription)); choose a writable folder (httpmock --ca-dir DIR)"
            )
        }
        return authority
    }

    /// The CA in `certificate` and `privateKey` (PEM files).
    static func load(certificate: URL, privateKey: URL) throws -> CertificateAuthority {
        let certificatePEM = try TLSFiles.read(certificate, what: "the CA certificate")
        let keyPEM = try TLSFiles.read(privateKey, what: "the CA private key")
        let parsed: Certificate
        do { parsed = try Certificate(pemEncoded: certificatePEM) } catch {
            throw TLSFiles.unparsable(certificate, what: "the CA certificate", expected: "a PEM certificate", error: error)
        }
        let key: Certificate.PrivateKey
        do { key = try Certificate.PrivateKey(pemEncoded: keyPEM) } catch {
            throw TLSFiles.unparsable(privateKey, what: "the CA private key", expected: "a PEM private key", error: error)
        }
        guard key.publicKey == parsed.publicKey else {
            throw HTTPMockError(
                .invalidRegistration,
                "HTTPS: \(privateKey.path) is not the private key of the CA certificate \(certificate.path); delete both to make a new CA")
        }
        return CertificateAuthority(certificate: parsed, privateKey: key)
    }

    /// A new server certificate and key signed by this CA, for `localhost`, `127.0.0.1`, `::1`
    /// and `names` (host names or IP addresses), valid for a year from an hour ago (under the 825
    /// days Apple's platforms accept for a server certificate).
    package func issueServerCertificate(for names: [String] = []) throws -> (certificate: Certificate, privateKey: Certificate.PrivateKey) {
        let key = P256.Signing.PrivateKey()
        let privateKey = Certificate.PrivateKey(key)
        let publicKey = Certificate.PublicKey(key.publicKey)
        var alternativeNames: [GeneralName] = [
            .dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
            .ipAddress(ASN1OctetString(contentBytes: ArraySlice([UInt8](repeating: 0, count: 15) + [1]))),
        ]
        for name in names where !["localhost", "127.0.0.1", "::1", "0.0.0.0", "::", ""].contains(name.lowercased()) {
            if let bytes = Self.addressBytes(name) {
                alternativeNames.append(.ipAddress(ASN1OctetString(contentBytes: ArraySlice(bytes))))
            } else {
                alternativeNames.append(.dnsName(name))
            }
        }
        let subject = try DistinguishedName {
            OrganizationName("HTTPMock")
            CommonName("localhost")
        }
        let now = Date()
        let authorityKey = try certificate.extensions.subjectKeyIdentifier?.keyIdentifier
        let issued = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: publicKey,
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(365 * 86400),
            issuer: certificate.subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true, keyEncipherment: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectKeyIdentifier(hash: publicKey)
                AuthorityKeyIdentifier(keyIdentifier: authorityKey)
                SubjectAlternativeNames(alternativeNames)
            },
            issuerPrivateKey: self.privateKey)
        return (issued, privateKey)
    }

    /// The bytes of an IPv4 or IPv6 address, `nil` for a host name.
    static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}

/// Reading the PEM files a user names, with errors that name them.
enum TLSFiles {
    static func read(_ url: URL, what: String) throws -> String {
        do {
            return try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw HTTPMockError(.invalidRegistration, "HTTPS: cannot read \(what) \(url.path) (\(error.localizedDescription))")
        }
    }

    static func unparsable(_ url: URL, what: String, expected: String, error: any Error) -> HTTPMockError {
        HTTPMockError(.invalidRegistration, "HTTPS: \(what) \(url.path) is not \(expected) (\(error))")
    }
}
#endif
