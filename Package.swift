// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "HTTPMock",
    platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8)],
    products: [
        .library(name: "HTTPMock", targets: ["HTTPMock"]),
    ],
    targets: [
        .target(name: "HTTPMock"),
        .executableTarget(name: "httpmock-demo", dependencies: ["HTTPMock"]),
        .testTarget(
            name: "HTTPMockTests",
            dependencies: ["HTTPMock"],
            exclude: ["Support/test_server.py"],
            resources: [.copy("Fixtures"), .copy("Mocks"), .process("Resources")]
        ),
        // bstien/HTTPMock's spellings, as its users wrote them (Docs/Migrating.md).
        .testTarget(name: "HTTPMockMigrationTests", dependencies: ["HTTPMock"]),
    ],
    swiftLanguageModes: [.v6]
)
