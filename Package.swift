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
    "get-customer",
    "my-entitlements",
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
    "import-customers",
    "grant-entitlement",
    "revoke-grant",
    "delete-customer",
    "merge-customers",
    "deliver-events",
    "replay-events",
    "list-events",
    "export-data",
    "sign-offer",
    "set-consumption",
    "refund-requests",
    "retention-message",
    "metrics",
    "dashboard",
    "backup-store",
    "copy-store",
    "doctor",
]

/// How a fence links its C library. A debug build (what `swift build` and the tests use) links
/// the shared library, as usual. A release build (what `make release` builds and the README
/// says to deploy; one process per request) links Debian's static archive instead: the
/// dynamic loader then has no libcrypto, sqlite3 or hiredis to map and no symbols of theirs to
/// look up at every start (4.6M of verify-signed-data's 27M instructions were the loader's work
/// for these three). Here rather than as Makefile flags because the module maps' own `link`
/// lines and pkg-config would put `-lcrypto` (the shared library) on every link line first,
/// and a plain `swift build -c release` should build what is deployed.
/// `-l:libX.a` names the archive file, so the linker cannot pick the .so beside it.
func linked(_ library: String) -> [LinkerSetting] {
    [.linkedLibrary(library, .when(configuration: .debug)),
     .unsafeFlags(["-Xlinker", "-l:lib\(library).a"], .when(configuration: .release))]
}

/// What every release executable is linked with (see `linked` for why release only), by the
/// toolchain's lld: gold, the default, has no DT_RELR.
/// - `--exclude-libs,ALL`: the static OpenSSL's symbols stay out of the dynamic symbol table.
///   libcurl, loaded with dlopen on first use, brings libcrypto.so.3; without this, that
///   library's references would bind to the executable's exported copy, so two OpenSSLs would
///   mix one's functions with the other's state.
/// - `-z pack-relative-relocs`: the ~46,000 relative relocations of a Swift binary as one
///   compact DT_RELR table (glibc 2.36, binutils 2.38 and later), less for the loader to read.
/// - `--no-export-dynamic`, after the static Swift runtime's `-export-dynamic`: our 7,000
///   public Swift symbols stay out of the dynamic symbol table, which the runtime's dladdr
///   walked at every start (220k instructions). Nothing loads against them.
/// - `--symbol-ordering-file`: the functions that requests run (bench/startup.order, made by
///   bench/make-order.sh from the bench's requests and every function's examples) side by
///   side, so the pages a process touches are few and the kernel's fault-around maps little
///   else. It moves single functions only with `releaseCodeSections`. Names the code no
///   longer has are skipped (a stale list costs memory only).
/// - `-s`: no symbol table or debug sections in what is deployed (a third of the size).
/// - `-L infra/link`: the C++ standard library linked in too (see infra/link/libstdc++.so, a
///   linker script). A swiftc `-L`, not a linker one, so it is searched before the compiler's
///   own folders.
let releaseExecutableFlags: [LinkerSetting] = [
    .unsafeFlags(["-L", "\(Context.packageDirectory)/infra/link"], .when(configuration: .release)),
    .unsafeFlags(["-use-ld=lld", "-Xlinker", "--exclude-libs", "-Xlinker", "ALL", "-Xlinker", "--no-export-dynamic",
                  "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                  "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/bench/startup.order",
                  "-Xlinker", "--no-warn-symbol-ordering", "-Xlinker", "-s"], .when(configuration: .release)),
]

/// What every product module is compiled with in release: each function in its own section,
/// which `--symbol-ordering-file` (see `releaseExecutableFlags`) needs to move it. Without it a
/// module's code is one section the linker can only move whole, and the functions a request
/// runs stayed spread over 8 MB of code.
let releaseCodeSections: [SwiftSetting] = [
    .unsafeFlags(["-Xfrontend", "-function-sections"], .when(configuration: .release)),
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
        // No pkgConfig: libcrypto.pc's Cflags are empty and its Libs would put the shared
        // library on every link line (see `linked`).
        .systemLibrary(
            name: "COpenSSL",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(
            name: "OpenSSLCrypto",
            dependencies: ["COpenSSL"],
            swiftSettings: releaseCodeSections,
            // libssl before libcrypto, which it needs: a static link resolves left to right.
            linkerSettings: linked("ssl") + linked("crypto")
        ),
        .target(
            name: "StorekeeperCore",
            dependencies: ["OpenSSLCrypto"],
            swiftSettings: releaseCodeSections
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
            dependencies: ["CCurl", "StorekeeperCore"],
            swiftSettings: releaseCodeSections
        ),
        // No pkgConfig, as for COpenSSL.
        .systemLibrary(
            name: "CSQLite",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(
            name: "SQLiteStore",
            dependencies: ["CSQLite", "StorekeeperCore"],
            swiftSettings: releaseCodeSections,
            linkerSettings: linked("sqlite3")
        ),
        // libhiredis-dev. No pkgConfig: hiredis.pc's Cflags carry -D_FILE_OFFSET_BITS=64,
        // which SwiftPM refuses with a warning on every build; the header and library sit
        // in the default search paths, so the module map alone finds them.
        .systemLibrary(
            name: "CHiredis"
        ),
        .target(
            name: "RedisStore",
            dependencies: ["CHiredis", "StorekeeperCore", "OpenSSLCrypto"],
            swiftSettings: releaseCodeSections,
            linkerSettings: linked("hiredis")
        ),
        // libfcgi-dev for the headers only. No link: FastCGIServer loads libfcgi with dlopen
        // when a process is started as a FastCGI server (see Sources/CFastCGI/shim.h).
        .systemLibrary(
            name: "CFastCGI",
            providers: [.apt(["libfcgi-dev"])]
        ),
        .target(
            name: "FastCGIServer",
            dependencies: ["CFastCGI"],
            swiftSettings: releaseCodeSections
        ),
        // Knows no adapter: handlers get them through FunctionContext, built by the composition.
        // FastCGIServer is a front door's transport, not an adapter.
        .target(
            name: "FunctionRuntime",
            dependencies: ["StorekeeperCore", "FastCGIServer"],
            swiftSettings: releaseCodeSections
        ),
        // The composition root: the one module that builds the store and HTTP adapters from
        // the settings, each on first use.
        .target(
            name: "StorekeeperComposition",
            dependencies: ["FunctionRuntime", "StorekeeperCore", "OpenSSLCrypto", "SQLiteStore", "RedisStore", "HTTPTransport"],
            swiftSettings: releaseCodeSections
        ),
        .target(
            name: "StorekeeperFunctions",
            dependencies: ["FunctionRuntime", "StorekeeperCore", "OpenSSLCrypto"],
            swiftSettings: releaseCodeSections
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
            dependencies: ["SQLiteStore", "RedisStore", "StorekeeperCore", "OpenSSLCrypto", "TestSupport", "StorekeeperTesting"]
        ),
        // Runs one store scenario in its own process, so the conformance suite can race
        // several processes against one store. A test tool, not a deployable function.
        .executableTarget(
            name: "store-stress",
            dependencies: ["SQLiteStore", "RedisStore", "StorekeeperCore", "OpenSSLCrypto"],
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
            exclude: ["function.json", "examples"],
            swiftSettings: releaseCodeSections,
            linkerSettings: releaseExecutableFlags
        )
    }
)
