/// An HTTP request method, compared case-insensitively.
///
/// Use the constants or any string literal for other methods:
/// ```swift
/// mock.addResponses(forPath: "/cache", method: "PURGE", responses: [.empty()])
/// ```
public struct HTTPMethod: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The method name, uppercased (`"GET"`).
    public let rawValue: String

    /// A method from its name, in any case.
    public init(_ name: String) {
        // Methods almost always arrive uppercased already: keep the string, allocate nothing.
        let isUppercased = name.utf8.allSatisfy { !($0 >= 97 && $0 <= 122) && $0 < 128 }
        self.rawValue = isUppercased ? name : name.uppercased()
    }

    public init(stringLiteral value: String) {
        self.init(value)
    }

    public var description: String { rawValue }

    /// `GET`.
    public static let get: HTTPMethod = "GET"
    /// `POST`.
    public static let post: HTTPMethod = "POST"
    /// `PUT`.
    public static let put: HTTPMethod = "PUT"
    /// `PATCH`.
    public static let patch: HTTPMethod = "PATCH"
    /// `DELETE`.
    public static let delete: HTTPMethod = "DELETE"
    /// `HEAD`.
    public static let head: HTTPMethod = "HEAD"
    /// `OPTIONS`.
    public static let options: HTTPMethod = "OPTIONS"
    /// `TRACE`.
    public static let trace: HTTPMethod = "TRACE"
    /// `CONNECT`.
    public static let connect: HTTPMethod = "CONNECT"

    /// Whether the name is an HTTP token (RFC 9110 §5.6.2), so a request can carry it.
    package var isValidToken: Bool {
        !rawValue.isEmpty
            && rawValue.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII && (CharacterSetToken.allowed.contains(scalar))
            }
    }
}

private enum CharacterSetToken {
    static let allowed: Set<Unicode.Scalar> = Set(
        "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".unicodeScalars)
}
