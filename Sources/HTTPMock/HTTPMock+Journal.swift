extension HTTPMock {
    /// The recorded requests for which `isIncluded` returns `true`, in arrival order.
    ///
    /// ```swift
    /// let calls = mock.requests(where: { entry in
    ///     entry.request.method == .post && entry.request.headers["Mcp-Session-Id"] != nil
    /// })
    /// let failures = mock.requests(where: { $0.statusCode.map { $0 >= 400 } ?? true })
    /// ```
    ///
    /// `isIncluded` runs on a snapshot of the journal, outside HTTPMock's lock, so it may call
    /// back into the instance.
    ///
    /// - Parameter isIncluded: Whether an entry belongs in the result.
    /// - Returns: The matching entries, oldest first.
    public func requests(where isIncluded: (RecordedRequest) throws -> Bool) rethrows -> [RecordedRequest] {
        try recordedRequests.filter(isIncluded)
    }
}
