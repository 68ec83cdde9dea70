// swift-tools-version:6.0
// Storekeeper: one package, a few libraries, one executable per function.
// Layers (lowest first): C system libraries → their single Swift fence (OpenSSLCrypto)
// → StorekeeperCore (pure logic, ports) → FunctionRuntime (composition root, front doors)
// → StorekeeperFunctions (handlers) → functions/<name>/main.swift.
import PackageDescription

/// Every deployable function: its folder under functions/ holds main.swift, function.json
/// and examples/.
let functionNames = [
    "verify-signed-data",
    "simulate-store",
]

let package = Package(
    name: "Storekeeper",
    platforms: [.macOS(.v15)],
    products: functionNames.map { .executable(name: $0, targets: [$0]) } + [
        // For fuzz/, a package of its own that depends on this one by path.
        .library(name: "OpenSSLCrypto", targets: ["OpenSSLCrypto"]),
        .library(name: "StorekeeperCore", targets: ["StorekeeperCore"]),
        .library(name: "FunctionRuntime", targets: ["FunctionRuntime"]),
        .library(name: "StorekeeperFunctions", targets: ["StorekeeperFunctions"]),
    ],
    targets: [
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(
            name: "OpenSSLCrypto",
            dependencies: ["COpenSSL"]
        ),
        .target(
            name: "StorekeeperCore",
            dependencies: ["OpenSSLCrypto"]
        ),
        .target(
            name: "FunctionRuntime",
            dependencies: ["StorekeeperCore", "OpenSSLCrypto"]
        ),
        .target(
            name: "StorekeeperFunctions",
            dependencies: ["FunctionRuntime", "StorekeeperCore", "OpenSSLCrypto"]
        ),
        .testTarget(
            name: "OpenSSLCryptoTests",
            dependencies: ["OpenSSLCrypto"],
            exclude: ["Vectors"]
        ),
        .testTarget(
            name: "StorekeeperCoreTests",
            dependencies: ["StorekeeperCore", "OpenSSLCrypto"]
        ),
        .testTarget(
            name: "FunctionRuntimeTests",
            dependencies: ["FunctionRuntime", "StorekeeperCore"]
        ),
        .testTarget(
            name: "FunctionTests",
            dependencies: ["StorekeeperFunctions", "FunctionRuntime", "StorekeeperCore", "OpenSSLCrypto"]
        ),
    ] + functionNames.map { name in
        .executableTarget(
            name: name,
            dependencies: ["StorekeeperFunctions", "FunctionRuntime"],
            path: "functions/\(name)",
            exclude: ["function.json", "examples"]
        )
    }
)
