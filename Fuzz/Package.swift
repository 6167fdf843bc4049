// swift-tools-version: 6.0
// libFuzzer targets for HTTPMock's parsers and matchers (SPEC §11), kept out of the main package.
// Build and run them with ./run (see README.md); they need a toolchain with libFuzzer
// (`swiftc -sanitize=fuzzer`: the Linux toolchains have it, Xcode's does not).
import PackageDescription

let package = Package(
    name: "HTTPMockFuzz",
    dependencies: [
        .package(name: "HTTPMock", path: "..")
    ],
    targets: [
        // Declares libFuzzer's `LLVMFuzzerRunDriver`, which the Swift targets call.
        .target(name: "CFuzzer"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzer"]),
        .executableTarget(name: "FuzzPatterns", dependencies: ["FuzzSupport", .product(name: "HTTPMock", package: "HTTPMock")]),
        .executableTarget(name: "FuzzMatchers", dependencies: ["FuzzSupport", .product(name: "HTTPMock", package: "HTTPMock")]),
        .executableTarget(name: "FuzzRegex", dependencies: ["FuzzSupport", .product(name: "HTTPMock", package: "HTTPMock")]),
        .executableTarget(name: "FuzzJSONPath", dependencies: ["FuzzSupport", .product(name: "HTTPMock", package: "HTTPMock")]),
        .executableTarget(name: "FuzzXML", dependencies: ["FuzzSupport", .product(name: "HTTPMock", package: "HTTPMock")]),
        .executableTarget(name: "FuzzConfiguration", dependencies: ["FuzzSupport", .product(name: "HTTPMock", package: "HTTPMock")]),
        .executableTarget(name: "FuzzHAR", dependencies: ["FuzzSupport", .product(name: "HTTPMock", package: "HTTPMock")]),
        .executableTarget(name: "FuzzTemplates", dependencies: ["FuzzSupport", .product(name: "HTTPMock", package: "HTTPMock")]),
        .executableTarget(
            name: "FuzzServerSettings", dependencies: ["FuzzSupport", .product(name: "HTTPMock", package: "HTTPMock")]),
    ],
    swiftLanguageModes: [.v6]
)
