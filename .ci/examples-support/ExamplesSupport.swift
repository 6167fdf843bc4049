// The names the guides' examples use without declaring them (a mock, a URL, the reader's own
// types), compiled once into a module that every example imports (.ci/examples). An example
// that declares one of these names itself shadows the one here.
@_exported import HTTPMock

public let mock = HTTPMock()
public let url = URL(fileURLWithPath: "/tmp/example.har")
public let fixtures = URL(fileURLWithPath: "/tmp/fixtures")
public let bytes = Data(count: 2_000)
public let simulateOutage = false
public let myDelegate: (any URLSessionDelegate)? = nil

public struct User: Codable, Equatable, Sendable {
    public var id: Int
    public var name: String
    public init(id: Int, name: String) {
        self.id = id
        self.name = name
    }
}
public struct UserPatch: Codable, Sendable { public var name: String }
public struct Profile: Codable, Equatable, Sendable { public var name = "Ada" }
public struct Audit: Codable, Sendable { public var entries: [String] = [] }
public struct Page: Codable, Sendable { public var items: [Int] = [] }
public struct Login: Codable, Sendable { public var user = "ada" }
public let user = User(id: 1, name: "Ada")
public let me = user
public let profile = Profile()
public let audit = Audit()
public let pages = [Page(), Page()]

/// Stands for the reader's own API client: any type that takes the session to use.
public struct UserClient: Sendable {
    public init(session: URLSession) {}
    public func user(id: Int = 1) async throws -> User { User(id: id, name: "Ada") }
}
public typealias UsersClient = UserClient
public typealias APIClient = UserClient

public struct ProfileClient: Sendable {
    public init(session: URLSession) {}
    public func load() async throws -> Profile { Profile() }
}

/// Stands for the reader's logger.
public struct Logger: Sendable {
    public func debug(_ message: String) {}
}
public let logger = Logger()

#if os(Linux) || os(Windows)
/// XCUIApplication exists on Apple platforms only: a stand-in so UI-test examples type-check.
public final class XCUIApplication {
    public var launchArguments: [String] = []
    public init() {}
    public func launch() {}
}
#endif

extension Bundle {
    /// Stands for the test target's resource bundle, which SwiftPM generates per target.
    public static var module: Bundle { .main }
}
