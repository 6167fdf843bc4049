// swift-tools-version: 6.0
// Benchmarks for HTTPMock, kept out of the main package so the library has no dependencies.
// Run from this folder: swift run -c release RouteScaling
import PackageDescription

let package = Package(
    name: "HTTPMockBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "HTTPMock", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "RouteScaling",
            dependencies: [.product(name: "HTTPMock", package: "HTTPMock")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
