// swift-tools-version: 6.1
import PackageDescription

/// The HTTP server and its CLI (SPEC §13) live behind the `Server` trait, off by default: every
/// use of a third-party product is conditioned on it, so a package that depends on HTTPMock
/// without the trait resolves and builds no package.
let server: Set<String> = ["Server"]
/// Voodoo's JavaScript responses (SPEC §18) run on JavaScriptCore: the system framework on Apple
/// platforms; on Linux `libjavascriptcoregtk-4.1.so.0` (Debian's `libjavascriptcoregtk-4.1-0`),
/// opened by `CJavaScriptCore` when the first script loads — not linked, so building needs neither
/// the -dev package nor pkg-config, and a process without scripts never loads it (SPEC §23). The
/// trait enables `Server`.
let javaScript: Set<String> = ["JavaScript"]

let package = Package(
    name: "HTTPMock",
    platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8)],
    products: [
        .library(name: "HTTPMock", targets: ["HTTPMock"]),
        .library(name: "HTTPMockServer", targets: ["HTTPMockServer"]),
        .executable(name: "httpmock", targets: ["httpmock"]),
    ],
    traits: [
        .trait(
            name: "Server",
            description: "HTTPMockServer (serve an HTTPMock over HTTP/1.1, HTTPS and HTTP/2 on SwiftNIO) and the httpmock CLI."),
        .trait(
            name: "JavaScript",
            description: "Voodoo's JavaScript responses on JavaScriptCore (Linux: libjavascriptcoregtk-4.1-0, opened on first use).",
            enabledTraits: ["Server"]
        ),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/GraphQLSwift/GraphQL", from: "4.3.0"),
        // HTTPS and HTTP/2 (`startServer(tls:)`, `httpmock serve --https-port`, `httpmock ca`),
        // behind the `Server` trait like NIO: the library HTTPMock depends on nothing.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
        // The server's and the CLI's log (`HTTPMock.serverLogger`, `httpmock --log-level`), behind
        // the `Server` trait like NIO: the library HTTPMock keeps its closure (`logHandler`).
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .target(name: "HTTPMock"),
        // JavaScriptCore's C API, declared by HTTPMock and forwarded to the library it opens
        // with dlopen on first use (Linux only: see `HTTPMockServer`'s dependencies).
        .target(name: "CJavaScriptCore", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .target(
            name: "HTTPMockServer",
            dependencies: [
                "HTTPMock",
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio", condition: .when(traits: server)),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: server)),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: server)),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: server)),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: server)),
                .product(name: "NIOHTTP2", package: "swift-nio-http2", condition: .when(traits: server)),
                .product(name: "X509", package: "swift-certificates", condition: .when(traits: server)),
                .product(name: "Crypto", package: "swift-crypto", condition: .when(traits: server)),
                .product(name: "SwiftASN1", package: "swift-asn1", condition: .when(traits: server)),
                .product(name: "Yams", package: "Yams", condition: .when(traits: server)),
                .product(name: "GraphQL", package: "GraphQL", condition: .when(traits: server)),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: server)),
                .target(name: "CJavaScriptCore", condition: .when(platforms: [.linux], traits: javaScript)),
            ],
            linkerSettings: [.linkedFramework("JavaScriptCore", .when(platforms: [.macOS, .iOS, .tvOS]))]
        ),
        .executableTarget(
            name: "httpmock",
            dependencies: [
                "HTTPMock",
                "HTTPMockServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: server)),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: server)),
            ],
            // The static build's ld.lld symbol ordering file (README, .ci/link-order): not a source.
            exclude: ["link-order.txt"]
        ),
        .executableTarget(name: "httpmock-demo", dependencies: ["HTTPMock"]),
        // Caps how many tests Swift Testing runs at once, so that the suites do not starve the
        // cooperative pool on a two-core machine (Tests/TestSettings/TestSettings.c). Tests only.
        .target(name: "HTTPMockTestSettings", path: "Tests/TestSettings"),
        // What the test targets share (running a test in a child process). Tests only.
        .target(name: "HTTPMockTestSupport", path: "Tests/TestSupport"),
        .testTarget(
            name: "HTTPMockTests",
            dependencies: ["HTTPMock", "HTTPMockTestSettings", "HTTPMockTestSupport"],
            exclude: ["Support/test_server.py"],
            resources: [.copy("Fixtures"), .copy("Mocks"), .process("Resources")]
        ),
        // bstien/HTTPMock's spellings, as its users wrote them (Docs/HTTPMock.docc/Migrating.md).
        .testTarget(name: "HTTPMockMigrationTests", dependencies: ["HTTPMock", "HTTPMockTestSettings"]),
        .testTarget(
            name: "HTTPMockServerTests",
            dependencies: [
                "HTTPMock",
                "HTTPMockServer",
                "HTTPMockTestSettings",
                "HTTPMockTestSupport",
                .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: server)),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: server)),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: server)),
                .product(name: "NIOEmbedded", package: "swift-nio", condition: .when(traits: server)),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: server)),
                .product(name: "Logging", package: "swift-log", condition: .when(traits: server)),
                .product(name: "InMemoryLogging", package: "swift-log", condition: .when(traits: server)),
            ],
            exclude: ["VoodooFixtures", "WireMockFixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
