import Foundation

/// How much of its history an instance's journal keeps: a long-running server
/// (`httpmock serve`) must not grow without bound. Unlimited by default, as tests read the
/// whole journal.
struct JournalLimits: Sendable {
    /// The most entries kept; the oldest go first. `nil`: all.
    var maximumEntries: Int?
    /// Request bodies larger than this many bytes are kept as their size only. `nil`: all.
    var maximumBodyBytes: Int?
    /// The most bytes the entries hold (``Journal/bytes``); the oldest go first. `nil`: any.
    var maximumTotalBytes: Int?

    /// `request` as the journal keeps it, and the size of the body it dropped, if any.
    func kept(_ request: MockRequest) -> (MockRequest, droppedBodySize: Int?) {
        guard let limit = maximumBodyBytes, let body = request.body, body.count > limit else { return (request, nil) }
        var trimmed = MockRequest(
            method: request.method, target: request.target, headers: request.headers, body: nil, clientAddress: request.clientAddress)
        trimmed.pathParameters = request.pathParameters
        return (trimmed, body.count)
    }

    /// Drops the oldest entries over ``maximumEntries``, then the oldest while the entries hold
    /// more than ``maximumTotalBytes`` (the newest entry stays).
    func enforce(on journal: inout Journal) {
        if let limit = maximumEntries, journal.count > limit {
            journal.removeFirst(journal.count - limit)
        }
        guard let limit = maximumTotalBytes, journal.bytes > limit, journal.count > 1 else { return }
        var over = journal.bytes - limit
        var dropped = 0
        while over > 0, dropped < journal.count - 1 {
            over -= journal[dropped].journalBytes
            dropped += 1
        }
        journal.removeFirst(dropped)
    }
}

extension HTTPMock {
    /// The most requests the journal keeps (``recordedRequests``, `verify()`, `exportHAR`);
    /// when a request is journaled past it, the oldest entry is forgotten. `nil` (the default)
    /// keeps every request, as a test expects; a long-running server sets it so memory stays
    /// bounded (`httpmock serve --journal-limit`, default 10,000).
    ///
    /// ```swift
    /// mock.journalLimit = 10_000
    /// mock.journalBodyLimit = 1024 * 1024   // larger request bodies: size only
    /// ```
    ///
    /// A negative value is treated as 0.
    public var journalLimit: Int? {
        get { registry.journalLimits.maximumEntries }
        set { registry.updateJournalLimits { $0.maximumEntries = newValue.map { max(0, $0) } } }
    }

    /// Request bodies larger than this many bytes are journaled as their size only: the entry's
    /// `request.body` is `nil` and ``RecordedRequest/bodySize`` tells how large it was. `nil`
    /// (the default) keeps every body. Matchers and handlers always see the whole body.
    ///
    /// ```swift
    /// mock.journalBodyLimit = 1024 * 1024
    /// ```
    ///
    /// A negative value is treated as 0.
    public var journalBodyLimit: Int? {
        get { registry.journalLimits.maximumBodyBytes }
        set { registry.updateJournalLimits { $0.maximumBodyBytes = newValue.map { max(0, $0) } } }
    }

    /// The most bytes the journal's entries hold together — request bodies, near-miss reports,
    /// and the bodies of responses that arrived after the lookup (a handler's, a forward's) —
    /// so many large bodies under ``journalLimit`` cannot fill memory; past it the oldest
    /// entries are forgotten (the newest always stays). `nil` (the default) keeps what
    /// ``journalLimit`` allows; `httpmock serve --journal-bytes-limit` (default 256 MB).
    ///
    /// ```swift
    /// mock.journalBytesLimit = 256 * 1024 * 1024
    /// ```
    ///
    /// A negative value is treated as 0.
    public var journalBytesLimit: Int? {
        get { registry.journalLimits.maximumTotalBytes }
        set { registry.updateJournalLimits { $0.maximumTotalBytes = newValue.map { max(0, $0) } } }
    }
}

extension Registry {
    var journalLimits: JournalLimits { state.withLock { $0.journalLimits } }

    /// Changes the limits; the journal is trimmed to the new entry limit at once.
    func updateJournalLimits(_ change: (inout JournalLimits) -> Void) {
        state.withLock { state in
            change(&state.journalLimits)
            state.journalLimits.enforce(on: &state.journal)
        }
    }
}
