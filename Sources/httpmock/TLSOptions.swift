#if Server
import ArgumentParser
import Foundation
import HTTPMock
import HTTPMockServer

/// `httpmock serve`'s HTTPS options: a second listener, TLS with HTTP/2 by ALPN, beside the
/// plain one (WireMock's `--https-port`).
struct TLSOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help:
            "Also serve HTTPS (HTTP/2 and HTTP/1.1 by ALPN) on this port; 0 picks a free one. The certificate is signed by httpmock's CA (httpmock ca) unless --tls-cert/--https-keystore is given."
    )
    var httpsPort: Int?

    @Option(help: "With --https-port: the server's certificate (chain), a PEM file, instead of one signed by httpmock's CA.")
    var tlsCert: String?

    @Option(help: "With --tls-cert: its private key, an unencrypted PEM file.")
    var tlsKey: String?

    @Option(help: "WireMock's: the server's certificate and key from a PKCS#12 key store (a .jks store: convert it with keytool).")
    var httpsKeystore: String?

    @Option(help: "WireMock's: the --https-keystore password. Default: password (WireMock's).")
    var keystorePassword: String?

    @Option(help: "WireMock's: accepted for --https-keystore; PKCS#12 stores have one password (--keystore-password).")
    var keyManagerPassword: String?

    @Option(help: "WireMock's: PKCS12 only (JKS stores are converted with keytool -importkeystore).")
    var keystoreType: String?

    @Option(
        help:
            "The folder of httpmock's certificate authority (ca.pem, ca-key.pem). Default: $HTTPMOCK_CA_DIR, else $XDG_DATA_HOME/httpmock/ca, else ~/.local/share/httpmock/ca."
    )
    var caDir: String?

    @Option(
        help: "A PEM file of CA certificates that forwards to https:// upstreams trust besides the system's (an upstream's own CA).")
    var upstreamCa: String?

    func validate() throws {
        if let httpsPort, !(0...65_535).contains(httpsPort) {
            throw ValidationError("--https-port must be a number from 0 to 65535 (0 picks a free port), got \(httpsPort).")
        }
        if (tlsCert == nil) != (tlsKey == nil) {
            throw ValidationError("--tls-cert and --tls-key go together: give the certificate's PEM file and its private key's.")
        }
        if tlsCert != nil, httpsKeystore != nil {
            throw ValidationError("--tls-cert and --https-keystore both name the server's certificate; give one.")
        }
        if let keystoreType, keystoreType.uppercased() != "PKCS12" {
            throw ValidationError(
                "--keystore-type \(keystoreType): httpmock reads PKCS12 key stores only; convert a JKS one with keytool -importkeystore -srckeystore FILE.jks -destkeystore FILE.p12 -deststoretype PKCS12."
            )
        }
        if httpsPort == nil, tlsCert != nil || httpsKeystore != nil || caDir != nil {
            throw ValidationError("--tls-cert, --https-keystore and --ca-dir say how to serve HTTPS: give --https-port N too.")
        }
    }

    /// The certificate to serve with, `nil` when HTTPS was not asked.
    var tls: HTTPMockTLS? {
        guard httpsPort != nil else { return nil }
        if let tlsCert, let tlsKey {
            return .pem(certificate: URL(fileURLWithPath: tlsCert), privateKey: URL(fileURLWithPath: tlsKey))
        }
        if let httpsKeystore {
            return .pkcs12(URL(fileURLWithPath: httpsKeystore), password: keystorePassword ?? keyManagerPassword ?? "password")
        }
        return .generated(caDirectory: Self.caDirectory(caDir))
    }

    var upstreamCertificates: URL? { upstreamCa.map { URL(fileURLWithPath: $0) } }

    /// What the start-up line says about the certificate.
    var certificateNote: String {
        if let tlsCert { return "certificate \(tlsCert)" }
        if let httpsKeystore { return "key store \(httpsKeystore)" }
        return
            "certificate signed by the CA in \(Self.caDirectory(caDir).appendingPathComponent(CertificateAuthority.certificateFile).path)"
    }

    static func caDirectory(_ path: String?) -> URL {
        path.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? HTTPMockTLS.defaultCADirectory
    }
}

/// `httpmock ca`: the certificate authority that signs `serve --https-port`'s certificates.
struct CA: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ca",
        abstract: "Print or export httpmock's CA certificate (PEM), made on first use, for clients to trust.",
        discussion:
            "The CA lives in --ca-dir (default: $HTTPMOCK_CA_DIR, else $XDG_DATA_HOME/httpmock/ca, else ~/.local/share/httpmock/ca): "
            + "ca.pem, and ca-key.pem readable by you alone (mode 0600). Whoever reads the key can make certificates that clients "
            + "trusting this CA accept for any host: trust it on development machines and simulators only, and delete the folder "
            + "to revoke it (a new CA is made on next use).")

    @Option(help: "The CA's folder. Default: $HTTPMOCK_CA_DIR, else $XDG_DATA_HOME/httpmock/ca, else ~/.local/share/httpmock/ca.")
    var caDir: String?

    @Option(name: [.short, .customLong("output")], help: "Write the certificate (PEM) to this file instead of standard output.")
    var output: String?

    @Flag(help: "Print the path of the CA certificate file instead of the certificate.")
    var path = false

    func run() throws {
        let directory = TLSOptions.caDirectory(caDir)
        let existed = FileManager.default.fileExists(atPath: directory.appendingPathComponent(CertificateAuthority.certificateFile).path)
        let authority: CertificateAuthority
        let pem: String
        do {
            authority = try CertificateAuthority.persistent(in: directory)
            pem = try authority.certificatePEM + "\n"
        } catch {
            throw ValidationError((error as? HTTPMockError)?.message ?? "\(error)")
        }
        if !existed { complain("httpmock: made a new certificate authority in \(directory.path)") }
        if path {
            Output.stdout.write(directory.appendingPathComponent(CertificateAuthority.certificateFile).path + "\n")
        } else if let output {
            do {
                try Data(pem.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
            } catch {
                throw ValidationError("Could not write the CA certificate to \(output): \(error.localizedDescription)")
            }
            complain("httpmock: wrote the CA certificate to \(output)")
        } else {
            Output.stdout.write(pem)
        }
        Output.flush()
    }
}
#endif
