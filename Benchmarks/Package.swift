// swift-tools-version: 6.0
// Benchmarks for HTTPMock, kept out of the main package so the library has no dependencies.
// Run from this folder: swift run -c release Benchmarks
import PackageDescription

let package = Package(
    name: "HTTPMockBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "HTTPMock", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
    ],
    targets: [
        .executableTarget(
            name: "Benchmarks",
            dependencies: [
                .product(name: "HTTPMock", package: "HTTPMock"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
