// swift-tools-version:6.0
// Storekeeper: one package, a few libraries, one executable per function.
// Layers (lowest first): C system libraries → their single Swift fence (OpenSSLCrypto)
// → StorekeeperCore (pure logic, ports) → FunctionRuntime (front doors, framing, logs, settings)
// → StorekeeperComposition (builds the store and HTTP adapters) and StorekeeperFunctions
// (handlers) → functions/<name>/main.swift, which names a handler and the composition.
import PackageDescription

/// Every deployable function: its folder under functions/ holds main.swift, function.json
/// and examples/.
let functionNames = [
    "verify-signed-data",
    "simulate-store",
    "receive-notification",
    "process-notifications",
    "get-entitlements",
    "ingest-transaction",
    "app-store-api",
    "test-notification",
    "reconcile",
    "recover-notifications",
    "migrate-receipt",
    "siwa-start",
    "siwa-callback",
    "siwa-native",
    "siwa-verify-token",
    "siwa-revoke",
    "siwa-notification",
    "grant-entitlement",
    "revoke-grant",
    "delete-customer",
    "merge-customers",
]

let package = Package(
    name: "Storekeeper",
    platforms: [.macOS(.v15)],
    products: functionNames.map { .executable(name: $0, targets: [$0]) } + [
        // For fuzz/, a package of its own that depends on this one by path.
        .library(name: "OpenSSLCrypto", targets: ["OpenSSLCrypto"]),
        .library(name: "StorekeeperCore", targets: ["StorekeeperCore"]),
        .library(name: "FunctionRuntime", targets: ["FunctionRuntime"]),
        .library(name: "StorekeeperComposition", targets: ["StorekeeperComposition"]),
        .library(name: "StorekeeperFunctions", targets: ["StorekeeperFunctions"]),
        // For fuzz/ too: its harness runs handlers in process, as the tests do.
        .library(name: "StorekeeperTesting", targets: ["StorekeeperTesting"]),
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
        // libcurl4-openssl-dev for the headers only. No pkgConfig: its only Cflags is
        // -I/usr/include/x86_64-linux-gnu, a default search path, and its Libs would link
        // libcurl, which HTTPTransport loads with dlopen on first use instead (see
        // Sources/CCurl/shim.h).
        .systemLibrary(
            name: "CCurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .target(
            name: "HTTPTransport",
            dependencies: ["CCurl", "StorekeeperCore"]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(
            name: "SQLiteStore",
            dependencies: ["CSQLite", "StorekeeperCore"]
        ),
        // libhiredis-dev. No pkgConfig: hiredis.pc's Cflags carry -D_FILE_OFFSET_BITS=64,
        // which SwiftPM refuses with a warning on every build; the header and library sit
        // in the default search paths, so the module map alone finds them.
        .systemLibrary(
            name: "CHiredis"
        ),
        .target(
            name: "RedisStore",
            dependencies: ["CHiredis", "StorekeeperCore"]
        ),
        // Knows no adapter: handlers get them through FunctionContext, built by the composition.
        .target(
            name: "FunctionRuntime",
            dependencies: ["StorekeeperCore"]
        ),
        // The composition root: the one module that builds the store and HTTP adapters from
        // the settings, each on first use.
        .target(
            name: "StorekeeperComposition",
            dependencies: ["FunctionRuntime", "StorekeeperCore", "SQLiteStore", "RedisStore", "HTTPTransport"]
        ),
        .target(
            name: "StorekeeperFunctions",
            dependencies: ["FunctionRuntime", "StorekeeperCore", "OpenSSLCrypto"]
        ),
        // Test helpers as a library, the way HummingbirdTesting serves Hummingbird, so product
        // types carry no test-only API: in-process stand-ins and fixtures for product types
        // (FunctionRunner.run(stdin:), MemoryStore, TestPKI, LifecycleSimulator, ...). Test
        // targets and fuzz/ depend on it (the tests re-export it from one file each); no
        // deployable product does.
        .target(
            name: "StorekeeperTesting",
            dependencies: ["FunctionRuntime", "StorekeeperCore", "OpenSSLCrypto"],
            path: "Tests/Support/StorekeeperTesting"
        ),
        // Kept beside StorekeeperTesting, not merged: what runs outside the test process (real
        // servers such as redis-server and the Python fakes, child processes started with
        // posix_spawn). It imports no Storekeeper module, so the store tests use it without
        // building the runtime. Test code only; no product depends on it.
        .target(
            name: "TestSupport",
            path: "Tests/Support/TestSupport"
        ),
        .testTarget(
            name: "OpenSSLCryptoTests",
            dependencies: ["OpenSSLCrypto", "StorekeeperTesting"],
            exclude: ["Vectors"]
        ),
        .testTarget(
            name: "StorekeeperCoreTests",
            dependencies: ["StorekeeperCore", "OpenSSLCrypto", "StorekeeperTesting"]
        ),
        .testTarget(
            name: "HTTPTransportTests",
            dependencies: ["HTTPTransport", "StorekeeperCore"]
        ),
        .testTarget(
            name: "KeyValueStoreTests",
            dependencies: ["SQLiteStore", "RedisStore", "StorekeeperCore", "TestSupport", "StorekeeperTesting"]
        ),
        // Runs one store scenario in its own process, so the conformance suite can race
        // several processes against one store. A test tool, not a deployable function.
        .executableTarget(
            name: "store-stress",
            dependencies: ["SQLiteStore", "RedisStore", "StorekeeperCore"],
            path: "Tests/Tools/store-stress"
        ),
        .testTarget(
            name: "FunctionRuntimeTests",
            dependencies: ["FunctionRuntime", "StorekeeperCore", "StorekeeperTesting"]
        ),
        .testTarget(
            name: "FunctionTests",
            dependencies: ["StorekeeperFunctions", "FunctionRuntime", "StorekeeperComposition", "StorekeeperCore",
                           "OpenSSLCrypto", "SQLiteStore", "RedisStore", "HTTPTransport", "TestSupport",
                           "StorekeeperTesting"]
        ),
    ] + functionNames.map { name in
        .executableTarget(
            name: name,
            dependencies: ["StorekeeperFunctions", "FunctionRuntime", "StorekeeperComposition"],
            path: "functions/\(name)",
            exclude: ["function.json", "examples"]
        )
    }
)
