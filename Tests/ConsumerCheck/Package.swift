// swift-tools-version: 6.1
// A package that depends on HTTPMock without the Server trait: `swift package
// show-dependencies` must list HTTPMock and nothing else (SPEC §1). Run by .ci/run.
import PackageDescription

let package = Package(
    name: "ConsumerCheck",
    dependencies: [
        .package(name: "HTTPMock", path: "../..")
    ],
    targets: [
        .target(name: "Consumer", dependencies: [.product(name: "HTTPMock", package: "HTTPMock")])
    ]
)
