/// An error HTTPMock throws or reports, with a message that names what was wrong and where.
///
/// Compare ``code`` to tell kinds apart; new codes can be added without breaking callers.
public struct HTTPMockError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What kind of mistake this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Kind: Hashable, Sendable {
            case invalidRegistration
            case noRequestBody
            case unsupportedTask
            case instanceDeallocated
            case fixtureUnreadable
            case mockTree
            case har
            case timedOutWaiting
        }

        let kind: Kind

        /// A registration was rejected (bad path, host, method, status, lifetime or response).
        public static let invalidRegistration = Code(kind: .invalidRegistration)
        /// `MockRequest.decode` was called on a request without a body.
        public static let noRequestBody = Code(kind: .noRequestBody)
        /// The task kind cannot be served by a `URLProtocol` on this platform.
        public static let unsupportedTask = Code(kind: .unsupportedTask)
        /// A request reached the protocol class of an `HTTPMock` that no longer exists.
        public static let instanceDeallocated = Code(kind: .instanceDeallocated)
        /// A file body could not be read when the request was served.
        public static let fixtureUnreadable = Code(kind: .fixtureUnreadable)

        /// `loadMocks(from:host:)` found a mistake in a mock folder tree.
        public static let mockTree = Code(kind: .mockTree)

        /// `loadHAR(from:timing:)`, `exportHAR(to:redacting:)` or a replay scope found a
        /// malformed archive, could not read or write one, or found no archive to replay.
        public static let har = Code(kind: .har)

        /// `waitForRequest` or `waitForRequests` timed out before what it awaited arrived.
        public static let timedOutWaiting = Code(kind: .timedOutWaiting)

        /// The code's name (`invalidRegistration`).
        public var description: String { "\(kind)" }
    }

    /// The kind of error.
    public let code: Code
    /// A sentence naming what was wrong and where.
    public let message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The ``message``.
    public var description: String { message }
}
