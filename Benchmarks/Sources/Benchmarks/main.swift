// HTTPMock benchmarks. Every figure is a ratio against a baseline measured in the same run.
//
//     cd Benchmarks && swift run -c release Benchmarks [section ...]
//
// Sections: overhead, routes, instances, largefile, server, httpserver, wrk, replay, voodoo, templating, wiremock,
// wiremockroutes, wiremockregex
// (default: all).
// `Benchmarks servers SECONDS`: the three servers of `wrk` for SECONDS, their URLs printed, for a profiler.
// Exits 1 when a target is missed.
import Foundation
import HTTPMock

let requested = Set(CommandLine.arguments.dropFirst())
func wants(_ section: String) -> Bool { requested.isEmpty || requested.contains(section) }

var missed: [String] = []
@MainActor func record(_ rows: [Row]) {
    missed += rows.filter { $0.met == false }.map(\.name)
}

print(
    "HTTPMock benchmarks — \(ProcessInfo.processInfo.operatingSystemVersionString), \(ProcessInfo.processInfo.activeProcessorCount) cores")

let profiling = requested.contains("profile") || requested.contains("profilebare") || requested.contains("servers")
if !profiling, wants("overhead") { record(try await Overhead.run()) }
if !profiling, wants("routes") { record(try await RouteScaling.run()) }
if !profiling, wants("instances") { record(try await Instances.run()) }
if !profiling, wants("largefile") { record(try await LargeFile.run()) }
if !profiling, wants("server") { record(try await VersusServer.run()) }
if !profiling, wants("httpserver") { record(try await ServerVersusHummingbird.run()) }
if !profiling, wants("wrk") { record(try await WrkVersusServers.run()) }
if !profiling, wants("replay") { record(try await Replay.run()) }
if !profiling, wants("voodoo") { record(try await VoodooScripts.run()) }
if !profiling, wants("templating") { record(try await Templating.run()) }
if !profiling, wants("wiremock") { record(try await WireMockVersusJVM.run()) }
if !profiling, wants("wiremockroutes") { record(try await WireMockRoutes.run()) }
if !profiling, wants("wiremockregex") {
    let rows = try await WireMockRegexShapes.run()
    Row.printTable(
        "httpmock serve vs WireMock 2.35.1 (JVM), 1,000 urlPathPatterns without distinct prefixes, journals off: wrk -t2 -c64 -d\(WrkVersusServers.seconds)s (\(WireMockVersusJVM.rounds) interleaved rounds, median)",
        rows)
    record(rows)
}

if !missed.isEmpty {
    print("\nMissed targets: \(missed.joined(separator: ", "))")
    exit(1)
}

/// `TASKS` of `Benchmarks profile N [TASKS]`: concurrent tasks, 64 unless given (1 for sequential).
let profileTasks = CommandLine.arguments.dropFirst(3).first.flatMap(Int.init) ?? 64

// `Benchmarks profile N [TASKS]`: N exact-route hits over TASKS tasks and nothing else, for a profiler.
if requested.contains("profile") {
    let count = CommandLine.arguments.dropFirst(2).first.flatMap(Int.init) ?? 2_000
    let mock = HTTPMock()
    mock.logHandler = nil
    mock.addResponses(
        forPath: "/item", host: "api.example.com", responses: [.data(BareProtocol.body, contentType: "text/plain", lifetime: .eternal)])
    let request = URLRequest(url: URL(string: "https://api.example.com/item")!)
    let session = mock.urlSession
    try await withThrowingTaskGroup(of: Void.self) { group in
        for task in 0..<profileTasks {
            group.addTask { for _ in stride(from: task, to: count, by: profileTasks) { _ = try await session.data(for: request) } }
        }
        try await group.waitForAll()
    }
}

// `Benchmarks profilebare N [TASKS]`: the same through the bare protocol, to diff profiles against.
if requested.contains("profilebare") {
    let count = CommandLine.arguments.dropFirst(2).first.flatMap(Int.init) ?? 2_000
    let session = BareProtocol.session()
    let request = URLRequest(url: URL(string: "https://api.example.com/item")!)
    try await withThrowingTaskGroup(of: Void.self) { group in
        for task in 0..<profileTasks {
            group.addTask { for _ in stride(from: task, to: count, by: profileTasks) { _ = try await session.data(for: request) } }
        }
        try await group.waitForAll()
    }
}

// `Benchmarks servers SECONDS`: the bare NIO server, Hummingbird and HTTPMockServer of the `wrk`
// section, serving for SECONDS (60 unless given), for `wrk` and `perf record -p` by hand.
if requested.contains("servers") {
    let seconds = CommandLine.arguments.dropFirst(2).first.flatMap(Int.init) ?? 60
    try await WrkVersusServers.serve(seconds: seconds)
}
