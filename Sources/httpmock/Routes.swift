#if Server
import ArgumentParser
import Foundation
import HTTPMock
import HTTPMockServer

/// `httpmock routes` (alias `endpoints`): lists the routes the mocks would register.
struct Routes: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the routes of a mocks folder.", aliases: ["endpoints"])

    @Argument(help: "The mocks folder. Default: the current folder.")
    var folder: String?

    @Option(help: "The mocks folder, as Espresso-Martini names it (same as FOLDER).")
    var requestsFolder: String?

    func run() throws {
        let mock = try loadedMock(from: try mocksFolder(folder, requestsFolder: requestsFolder))
        let routes = mock.describeRoutes()
        say(routes.isEmpty ? "No routes." : routes)
    }
}
#endif
