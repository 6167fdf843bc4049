#if Server
import HTTPMock

/// HTTPMock's header fields (a request as the registry sees it), named so in files where
/// NIOHTTP1's `HTTPHeaders` is in scope too.
typealias MockHeaders = HTTPHeaders

/// HTTPMock's request method, named so in files where NIOHTTP1's `HTTPMethod` is in scope too.
typealias MockMethod = HTTPMethod
#endif
