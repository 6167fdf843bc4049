#if Server
import Foundation
import HTTPMock
import NIOConcurrencyHelpers

/// What the admin API keeps per instance beside its mappings (``WireMockState``): WireMock's
/// global settings as last sent, the recorder, and the mapping files it wrote.
final class WireMockAdminState: Sendable {
    /// A recording in progress (`POST /__admin/recordings/start`).
    struct Recording: Sendable {
        /// The route that forwards every request to the target, and its name in the journal.
        let route: Int
        let label: String
        /// The journal entries after this one are the recording's.
        let firstJournalID: Int
        /// The recording spec as sent (`captureHeaders`, `persist`, …).
        let spec: RecordSpec
    }

    enum RecordingStatus: String, Sendable {
        case neverStarted = "NeverStarted"
        case recording = "Recording"
        case stopped = "Stopped"
    }

    struct Contents: Sendable {
        /// `GET /__admin/settings`'s `extended`.
        var extended: JSONValue?
        /// `delayDistribution` as sent (its draws are the instance's ``HTTPMock/adminRandomDelay``).
        var delayDistribution: JSONValue?
        var recording: Recording?
        var recordingStatus = RecordingStatus.neverStarted
        /// Mapping files written by `POST /__admin/mappings/save` (and persistent recordings), by mapping id.
        var writtenFiles: [UUID: URL] = [:]
    }

    let contents = NIOLockedValueBox(Contents())
    /// Held while mapping files are written or deleted with their mappings (save, a persistent
    /// mapping, a removal by id): a mapping removed during a save stays removed, its file too.
    private let persistence = NIOLock()

    /// Runs `body` holding ``persistence``.
    func persisting<T>(_ body: () throws(WireMockMappingError) -> T) throws(WireMockMappingError) -> T {
        persistence.lock()
        defer { persistence.unlock() }
        return try body()
    }

    /// The state of `mock`, made on first use and kept by it.
    static func of(_ mock: HTTPMock) -> WireMockAdminState {
        mock.frontEndState(WireMockAdminState.self) { WireMockAdminState() }
    }
}

extension WireMockState {
    /// The WireMock root folder (`--wiremock-root`, ``HTTPMock/HTTPMock/loadWireMock(from:)``):
    /// the folder that holds `__files/`; `nil` when none was loaded.
    var root: URL? {
        contents.withLockedValue { $0.files?.deletingLastPathComponent() }
    }
}
#endif
