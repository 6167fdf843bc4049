// swift-tools-version: 6.1
// Integration tests: real URLSession clients that HTTPMock's authors did not write, driven
// through HTTPMock. Kept out of the main package so the library has no dependencies.
// Run from this folder: swift test
import PackageDescription

let package = Package(
    name: "HTTPMockIntegrationTests",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "HTTPMock", path: "..", traits: ["Server"]),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
    ],
    targets: [
        .testTarget(
            name: "OpenAPIURLSessionTests",
            dependencies: [
                .product(name: "HTTPMock", package: "HTTPMock"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .testTarget(
            name: "AsyncHTTPClientTests",
            dependencies: [
                .product(name: "HTTPMock", package: "HTTPMock"),
                .product(name: "HTTPMockServer", package: "HTTPMock"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
