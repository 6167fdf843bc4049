#if Server
import ArgumentParser
import Foundation
import HTTPMock

/// `httpmock routes` (alias `endpoints`): lists the routes the mocks would register.
struct Routes: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the routes of a mocks folder (httpmock routes ./mocks).",
        discussion: "Lists what serve would register from the same sources; with none named, nothing is read.",
        aliases: ["endpoints"])

    @OptionGroup var source: SourceOptions

    func run() throws {
        let mock = HTTPMock()
        _ = try source.load(into: mock, mocksFolder: try source.mocksFolder())
        let routes = mock.describeRoutes()
        if !source.namesASource {
            say("No routes: no mocks folder given. Name one: httpmock routes ./mocks")
            return
        }
        say(routes.isEmpty ? "No routes." : routes)
        if !source.fileDir.isEmpty {
            say("GET, HEAD of any path no route answers: the files of \(source.fileDir.joined(separator: ", "))")
        }
    }
}
#endif
