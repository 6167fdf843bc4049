#if Server
import ArgumentParser

/// `httpmock`: serves a mocks folder over HTTP (SPEC §13), Espresso-Martini-compatible.
@main
struct HTTPMockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "httpmock",
        abstract: "Serve HTTPMock mocks over HTTP/1.1.",
        subcommands: [Serve.self, Routes.self],
        defaultSubcommand: Serve.self
    )
}
#else
import Foundation

/// Without the `Server` trait the CLI has nothing to serve with.
@main
enum HTTPMockCommand {
    static func main() {
        FileHandle.standardError.write(Data("httpmock needs the Server trait: swift build --traits Server --product httpmock\n".utf8))
        exit(1)
    }
}
#endif
