#if Server
import ArgumentParser
import Foundation
import HTTPMock
import HTTPMockServer

/// `httpmock routes` (alias `endpoints`): lists the routes the mocks would register.
struct Routes: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the routes of a mocks folder (httpmock routes ./mocks).",
        discussion: "Lists what serve would register from the same sources; with none named, nothing is read.",
        aliases: ["endpoints"])

    @OptionGroup var source: SourceOptions

    @Option(help: "A WireMock root folder: lists its mappings/**/*.json as serve loads them.")
    var wiremockRoot: String?

    @Option(help: "A Voodoo YAML endpoint file, or a folder of them (read recursively).")
    var config: String?

    @Option(help: "The folder of Voodoo's template: bodies (with --config).")
    var templateDir: String?

    func run() throws {
        let mock = HTTPMock()
        _ = try source.load(into: mock, mocksFolder: try source.mocksFolder())
        func message(_ error: any Error) -> String { (error as? HTTPMockError)?.message ?? "\(error)" }
        if let wiremockRoot {
            do {
                try mock.loadWireMock(from: URL(fileURLWithPath: wiremockRoot, isDirectory: true))
            } catch {
                throw ValidationError("Could not load the WireMock root \(wiremockRoot): \(message(error))")
            }
        }
        if let config {
            do {
                try mock.loadVoodoo(
                    from: URL(fileURLWithPath: config), templateDirectory: templateDir.map { URL(fileURLWithPath: $0, isDirectory: true) },
                    fileDirectories: source.fileDir.map { URL(fileURLWithPath: $0, isDirectory: true) })
            } catch {
                throw ValidationError("Could not load the Voodoo configuration \(config): \(message(error))")
            }
        } else if templateDir != nil {
            throw ValidationError("--template-dir needs --config (a Voodoo YAML file or folder).")
        }
        if !source.namesASource, wiremockRoot == nil, config == nil {
            say("No routes: no mocks folder given. Name one: httpmock routes ./mocks")
            return
        }
        let routes = mock.describeRoutes()
        say(routes.isEmpty ? "No routes." : routes)
        if !source.fileDir.isEmpty {
            say("GET, HEAD of any path no route answers: the files of \(source.fileDir.joined(separator: ", "))")
        }
    }
}
#endif
