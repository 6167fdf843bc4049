// swift-tools-version: 6.1
// Benchmarks for HTTPMock, kept out of the main package so the library has no dependencies.
// Run from this folder: swift run -c release Benchmarks
import PackageDescription

let package = Package(
    name: "HTTPMockBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "HTTPMock", path: "..", traits: ["Server", "JavaScript"]),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
    ],
    targets: [
        .executableTarget(
            name: "Benchmarks",
            dependencies: [
                .product(name: "HTTPMock", package: "HTTPMock"),
                .product(name: "HTTPMockServer", package: "HTTPMock"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
