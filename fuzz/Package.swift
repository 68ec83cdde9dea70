// swift-tools-version:6.0
// Storekeeper's libFuzzer targets: a package of its own, so the sanitized build has its own
// folder (fuzz/run.sh builds it in var/fuzz/build with `--sanitize fuzzer --sanitize address`)
// and the main package's .build is never touched. See fuzz/README.md.
import PackageDescription

/// Each is an executable `fuzz-<name>` with its entry point in Sources/<name>/; the logic is
/// `FuzzTarget` in Sources/FuzzEntries, which `swift test` also runs on the committed inputs.
let fuzzTargets = ["jws-verify", "front-doors", "cgi", "verify-signed-data", "receipt-reader", "identity-token", "ocsp-response", "catalog"]

let package = Package(
    name: "StorekeeperFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Storekeeper", path: ".."),
    ],
    targets: [
        .target(
            name: "FuzzEntries",
            dependencies: [
                .product(name: "OpenSSLCrypto", package: "Storekeeper"),
                .product(name: "StorekeeperCore", package: "Storekeeper"),
                .product(name: "FunctionRuntime", package: "Storekeeper"),
                .product(name: "StorekeeperComposition", package: "Storekeeper"),
                .product(name: "StorekeeperFunctions", package: "Storekeeper"),
                .product(name: "StorekeeperTesting", package: "Storekeeper"),
            ]
        ),
    ] + fuzzTargets.map { name in
        .executableTarget(name: "fuzz-\(name)", dependencies: ["FuzzEntries"], path: "Sources/\(name)")
    }
)
