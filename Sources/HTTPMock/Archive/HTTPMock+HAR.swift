import Foundation

extension HTTPMock {
    /// Registers every entry of a HAR 1.2 archive (as browsers, Proxyman, Charles and
    /// ``exportHAR(to:redacting:)`` write them) as a route.
    ///
    /// ```swift
    /// try mock.loadHAR(from: Bundle.module.url(forResource: "checkout", withExtension: "har")!)
    /// ```
    ///
    /// Each entry's method and URL (host, port when the URL names one, path, and the exact query)
    /// become the route. Identical requests are served in recorded order, the last one
    /// `.eternal`, so retries, paging and polling replay as recorded. Responses keep their
    /// status and headers, except `Content-Encoding`, `Content-Length` and `Transfer-Encoding`
    /// (they described the recorded transfer); the body is `content.text`, base64-decoded when
    /// `content.encoding` is `base64`. An entry with status 0 (a browser's record of a request
    /// that got no answer) fails with `URLError(.networkConnectionLost)`. A query value
    /// recorded as `REDACTED` matches any value. Browser extras (`_`-prefixed fields, missing
    /// optional fields, `content.size` of -1, compression figures) are ignored.
    ///
    /// Loading is atomic: a malformed archive throws ``HTTPMockError`` (code `.har`) naming the
    /// file, the entry (`log.entries[3]`), the field and what it held, and registers nothing.
    ///
    /// - Parameters:
    ///   - url: The `.har` file.
    ///   - timing: `.immediate` (the default) serves at once; `.recorded` delays each response
    ///     by its entry's recorded `time`.
    public func loadHAR(from url: URL, timing: HARTiming = .immediate) throws {
        try loadHAR(from: url, timing: timing, matching: [], redaction: [])
    }

    /// `loadHAR` with replay options; returns the entries it registered.
    @discardableResult
    func loadHAR(from url: URL, timing: HARTiming, matching: HARMatching, redaction: Redaction) throws(HTTPMockError) -> [HAREntry] {
        let entries = try HARReader.entries(at: url)
        let definitions = HARRoutes.definitions(for: entries, file: url.path, timing: timing, matching: matching, redaction: redaction)
        try Registration.registerOrThrow(
            definitions, on: registry, defaultDomain: defaultDomain, errors: .init(code: .har, operation: "loadHAR(\(url.path))"))
        return entries
    }

    /// Writes the journal as a HAR 1.2 archive: every request, in arrival order, with the
    /// response the client received (mocked, dynamic, passthrough or the unmocked policy's).
    ///
    /// ```swift
    /// try mock.exportHAR(to: URL(fileURLWithPath: "/tmp/session.har"))
    /// ```
    ///
    /// The archive opens in browsers' HAR viewers and loads back with ``loadHAR(from:timing:)``.
    /// Bodies are written as text when they are UTF-8, else base64; a file body is read when
    /// exporting, so the archive holds its bytes. A request that failed (a transport error, a
    /// timeout, a cancellation) is written with status 0 and its error in `_error`. Redaction
    /// happens before anything is written: secrets never reach the disk.
    ///
    /// - Parameters:
    ///   - url: The file to write (replaced atomically; its folder is created).
    ///   - redaction: What to remove; `.default` strips `Authorization`, `Proxy-Authorization`,
    ///     `Cookie` and `Set-Cookie`. See ``Redaction``.
    public func exportHAR(to url: URL, redacting redaction: Redaction = .default) throws {
        try HARWriter.write(recordedRequests.map(HARWriter.entry(for:)), to: url, redaction: redaction)
    }
}
