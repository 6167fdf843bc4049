import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Errors as a person reads them: FoundationNetworking prints a `URLError` as
/// `Error Domain=NSURLErrorDomain Code=-1009 "(null)"`, which names neither the code nor why.
enum ReadableError {
    /// `URLError.notConnectedToInternet (-1009): <message>` for a `URLError`, the message of an
    /// ``HTTPMockError``, the error's own description otherwise.
    static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPMockError { return error.message }
        guard let error = error as? URLError else { return "\(error)" }
        let name = codeNames[error.code.rawValue].map { "URLError.\($0)" } ?? "URLError"
        let message =
            (error.userInfo[NSLocalizedDescriptionKey] as? String)
            ?? (error.userInfo[NSUnderlyingErrorKey] as? NSError)?.localizedDescription
        return "\(name) (\(error.code.rawValue))" + (message.map { ": \($0)" } ?? "")
    }

    private static let codeNames: [Int: String] = [
        URLError.Code.cancelled.rawValue: "cancelled",
        URLError.Code.badURL.rawValue: "badURL",
        URLError.Code.timedOut.rawValue: "timedOut",
        URLError.Code.unsupportedURL.rawValue: "unsupportedURL",
        URLError.Code.cannotFindHost.rawValue: "cannotFindHost",
        URLError.Code.cannotConnectToHost.rawValue: "cannotConnectToHost",
        URLError.Code.networkConnectionLost.rawValue: "networkConnectionLost",
        URLError.Code.dnsLookupFailed.rawValue: "dnsLookupFailed",
        URLError.Code.httpTooManyRedirects.rawValue: "httpTooManyRedirects",
        URLError.Code.resourceUnavailable.rawValue: "resourceUnavailable",
        URLError.Code.notConnectedToInternet.rawValue: "notConnectedToInternet",
        URLError.Code.badServerResponse.rawValue: "badServerResponse",
        URLError.Code.userAuthenticationRequired.rawValue: "userAuthenticationRequired",
        URLError.Code.zeroByteResource.rawValue: "zeroByteResource",
        URLError.Code.cannotDecodeContentData.rawValue: "cannotDecodeContentData",
        URLError.Code.secureConnectionFailed.rawValue: "secureConnectionFailed",
        URLError.Code.fileDoesNotExist.rawValue: "fileDoesNotExist",
    ]
}
