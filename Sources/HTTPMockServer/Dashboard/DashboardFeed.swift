#if Server
import Foundation
import HTTPMock
import NIOConcurrencyHelpers

/// The dashboard's event stream (`GET /__admin/events`): each page gets a
/// snapshot, then deltas — the requests journaled or finished since, the routes whose queues
/// moved, scenarios and store when they change — never the whole journal again.
///
/// One feed per admin API while a page is open: one task looks at the instance every 200 ms
/// (the journal's newest entries by identity, O(changes), not a copy of the journal), encodes
/// what changed once and hands it to every subscriber. Each subscriber's backlog is bounded
/// (``maximumBacklog``): a page that does not read is dropped — its backlog freed, its stream
/// ended — rather than buffered without end (50 such pages grew the process to 3.2 GB in 28 s).
/// A subscriber with nothing to send gets a `ping` event every 2 s, so a page that went away
/// is noticed (the write fails) and its connection and descriptor are freed even when nothing
/// happens.
final class DashboardFeed: Sendable {
    /// Bytes of events a subscriber may have waiting before it is dropped.
    static let maximumBacklog = 256 * 1024
    static let tick: UInt64 = 200_000_000
    /// Ticks between pings to an idle subscriber (2 s).
    static let pingTicks = 10

    private let api: AdminAPI
    private let subscribers = NIOLockedValueBox(Subscribers())

    private struct Subscribers {
        var all: [Int: Subscriber] = [:]
        var nextID = 0
        var isTicking = false
    }

    private init(api: AdminAPI) { self.api = api }

    /// An admin API's feed, held weakly by the API (``AdminAPI/dashboardFeed``): a feed lives
    /// as long as a subscriber holds it, and it holds the API.
    struct Slot: Sendable {
        weak var feed: DashboardFeed?
    }

    /// `api`'s feed: the one alive, else a new one.
    static func of(_ api: AdminAPI) -> DashboardFeed {
        api.dashboardFeed.withLockedValue { slot in
            if let feed = slot.feed { return feed }
            let feed = DashboardFeed(api: api)
            slot.feed = feed
            return feed
        }
    }

    /// The events of one page: the snapshot now, then deltas as they come.
    func events() -> Events {
        let subscriber = Subscriber()
        let startsTicking = subscribers.withLockedValue { state -> Bool in
            state.all[state.nextID] = subscriber
            subscriber.id = state.nextID
            state.nextID += 1
            defer { state.isTicking = true }
            return !state.isTicking
        }
        if startsTicking {
            // Where deltas start: read before the snapshot below, so nothing falls between them.
            var cursor = Cursor()
            _ = cursor.delta(from: api)
            startTicking(from: cursor)
        }
        // Taken after the subscriber is listed, so no delta falls between the two (a delta may
        // repeat what the snapshot has: the page merges by identity).
        let snapshot = ServerSentEvent(data: AdminAPI.compactJSON(api.dashboardState))
        return Events(first: snapshot, subscription: Subscription(feed: self, subscriber: subscriber))
    }

    fileprivate func remove(_ subscriber: Subscriber) {
        subscribers.withLockedValue { _ = $0.all.removeValue(forKey: subscriber.id) }
    }

    private func startTicking(from start: Cursor) {
        Task { [self] in
            var cursor = start
            var ticks = 0
            while true {
                try? await Task.sleep(nanoseconds: Self.tick)
                let listening = subscribers.withLockedValue { state -> [Subscriber]? in
                    if state.all.isEmpty {
                        state.isTicking = false
                        return nil
                    }
                    return Array(state.all.values)
                }
                guard let listening else { return }
                ticks += 1
                let delta = cursor.delta(from: api).map { ServerSentEvent(data: AdminAPI.compactJSON($0)) }
                let pings = ticks % Self.pingTicks == 0
                for subscriber in listening {
                    if let delta {
                        subscriber.deliver(delta)
                    } else if pings {
                        subscriber.ping()
                    }
                }
            }
        }
    }

    /// What the feed sent last, to send only what changed.
    private struct Cursor {
        var lastID = Int.min
        /// Entries sent before they were settled (a status, an error or a report to come).
        var unsettled: [Int] = []
        var total = -1
        var oldest: Int?
        var routeProgress: [Int: String] = [:]
        var routeDescriptions: [Int: AdminRouteConditions] = [:]
        var scenarios = ""
        var store = ""
        var reveal = false

        /// What changed since the last call, as a `delta` event's JSON; `nil` when nothing did.
        mutating func delta(from api: AdminAPI) -> JSONValue? {
            let mock = api.mock
            let reveal = mock.revealSecrets
            var changed: [String: JSONValue] = [:]
            if reveal != self.reveal {
                // Everything on the page is shown the other way now: start over.
                self = Cursor()
                self.reveal = reveal
                changed["reload"] = .bool(true)
            }
            let (entries, total, oldest) = mock.adminJournal(after: lastID, limit: AdminAPI.dashboardRequestLimit)
            // Entries sent before they settled are sent again once they have; those the journal
            // dropped meanwhile are forgotten.
            let reread = unsettled.isEmpty ? [] : mock.adminJournalEntries(unsettled)
            let sent = reread.filter(AdminAPI.isSettled) + entries
            unsettled = reread.filter { !AdminAPI.isSettled($0) }.map(\.journalID)
            for entry in entries where !AdminAPI.isSettled(entry) { unsettled.append(entry.journalID) }
            unsettled = Array(unsettled.suffix(AdminAPI.dashboardRequestLimit))
            if let last = entries.last { lastID = last.journalID }
            if !sent.isEmpty {
                changed["requests"] = .array(sent.reversed().map { AdminAPI.dashboardEntry($0, reveal: reveal) })
            }
            if total != self.total || oldest != self.oldest || !sent.isEmpty {
                self.total = total
                self.oldest = oldest
                changed["total"] = .integer(total)
                changed["oldest"] = oldest.map(JSONValue.integer) ?? .null
            }
            routes(of: api, reveal: reveal, into: &changed)
            let scenarioList = JSONValue.array(api.scenarios)
            let scenarios = AdminAPI.compactJSON(scenarioList)
            if scenarios != self.scenarios {
                self.scenarios = scenarios
                changed["scenarios"] = scenarioList
            }
            let storeValue = JSONValue.object(mock.store.snapshot)
            let store = AdminAPI.compactJSON(storeValue)
            if store != self.store {
                self.store = store
                changed["store"] = storeValue
            }
            guard !changed.isEmpty else { return nil }
            changed["kind"] = .string("delta")
            return .object(changed)
        }

        /// The routes whose queues moved or that are new, and those removed.
        private mutating func routes(of api: AdminAPI, reveal: Bool, into changed: inout [String: JSONValue]) {
            let states = api.mock.adminRouteStates
            let orders = Set(states.map(\.order))
            let removed = routeProgress.keys.filter { !orders.contains($0) }.sorted()
            for order in removed {
                routeProgress[order] = nil
                routeDescriptions[order] = nil
            }
            if states.contains(where: { routeDescriptions[$0.order] == nil }) {
                for conditions in api.mock.adminRouteConditions(except: Set(routeDescriptions.keys), revealSecrets: reveal) {
                    routeDescriptions[conditions.order] = conditions
                }
            }
            var moved: [JSONValue] = []
            var mappings: [Int: WireMockMapping]?
            for state in states {
                let progress = AdminAPI.routeProgress(state)
                guard routeProgress[state.order] != progress, let conditions = routeDescriptions[state.order] else { continue }
                routeProgress[state.order] = progress
                if mappings == nil { mappings = api.mappingsByRoute }
                moved.append(AdminAPI.dashboardRoute(conditions, state, mapping: mappings?[state.order], reveal: reveal))
            }
            if !moved.isEmpty { changed["routes"] = .array(moved) }
            if !removed.isEmpty { changed["removedRoutes"] = .array(removed.map(JSONValue.integer)) }
        }
    }

    /// A subscriber's place in its feed, given up when the page's stream ends however it ends
    /// (dropped, the client gone, a write failed): the stream's iterator holds it.
    final class Subscription: Sendable {
        let feed: DashboardFeed
        let subscriber: Subscriber

        init(feed: DashboardFeed, subscriber: Subscriber) {
            self.feed = feed
            self.subscriber = subscriber
        }

        deinit { feed.remove(subscriber) }
    }

    /// The events of one page, as the response's sequence.
    struct Events: AsyncSequence, Sendable {
        typealias Element = ServerSentEvent
        let first: ServerSentEvent
        let subscription: Subscription

        func makeAsyncIterator() -> Iterator { Iterator(events: self) }

        struct Iterator: AsyncIteratorProtocol {
            let events: Events
            var sentFirst = false

            mutating func next() async -> ServerSentEvent? {
                if !sentFirst {
                    sentFirst = true
                    return events.first
                }
                return await events.subscription.subscriber.next()
            }
        }
    }
}

/// One page's events waiting to be written, and the writer waiting for them.
final class Subscriber: @unchecked Sendable {
    // @unchecked: `id` is set once under the feed's lock before the subscriber is shared; every
    // other field is behind `state`.
    fileprivate(set) var id = 0

    private struct State {
        var backlog: [ServerSentEvent] = []
        var bytes = 0
        /// Dropped for not reading, or its writer went away: it gets nothing more.
        var isEnded = false
        var waiting: CheckedContinuation<ServerSentEvent?, Never>?
    }

    private let state = NIOLockedValueBox(State())

    /// Whether it was dropped for a backlog over ``DashboardFeed/maximumBacklog``.
    var wasDropped: Bool { state.withLockedValue { $0.isEnded } }

    func deliver(_ event: ServerSentEvent) {
        let size = event.data.utf8.count
        let waiting = state.withLockedValue { state -> CheckedContinuation<ServerSentEvent?, Never>? in
            guard !state.isEnded else { return nil }
            if let waiting = state.waiting {
                state.waiting = nil
                return waiting
            }
            state.backlog.append(event)
            state.bytes += size
            if state.bytes > DashboardFeed.maximumBacklog {
                // A page that does not read: drop it rather than buffer without end.
                state.isEnded = true
                state.backlog = []
                state.bytes = 0
            }
            return nil
        }
        waiting?.resume(returning: event)
    }

    /// A `ping` to a writer that waits with nothing to send (nothing when it is busy writing).
    func ping() {
        let waiting = state.withLockedValue { state -> CheckedContinuation<ServerSentEvent?, Never>? in
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume(returning: ServerSentEvent(data: "", event: "ping"))
    }

    /// The next event to write; `nil` when the subscriber was dropped or its task cancelled.
    func next() async -> ServerSentEvent? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<ServerSentEvent?, Never>) in
                let ready = state.withLockedValue { state -> ServerSentEvent?? in
                    if !state.backlog.isEmpty {
                        let event = state.backlog.removeFirst()
                        state.bytes -= event.data.utf8.count
                        return .some(event)
                    }
                    if state.isEnded || Task.isCancelled { return .some(nil) }
                    state.waiting = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiting = state.withLockedValue { state -> CheckedContinuation<ServerSentEvent?, Never>? in
                state.isEnded = true
                defer { state.waiting = nil }
                return state.waiting
            }
            waiting?.resume(returning: nil)
        }
    }
}

extension AdminAPI {
    /// `GET /__admin/events`: the dashboard's snapshot, then deltas (``DashboardFeed``).
    func dashboardEvents(for request: MockRequest) -> ServedAnswer {
        let feed = DashboardFeed.of(self)
        let response = MockResponse.eventStreamFromSequence(headers: ["Cache-Control": "no-store"]) { _ in feed.events() }
        return .directEvents(response, for: request) ?? Self.notFound("no event stream", method: "GET")
    }
}
#endif
