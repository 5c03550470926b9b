// swift-tools-version:6.0
import PackageDescription

/// Settings shared by every Swift target.
let strictSettings: [SwiftSetting] = [
    // `any P` must be spelled out, so the cost of an existential is visible at the use site.
    .enableUpcomingFeature("ExistentialAny"),
    // An import in one file does not leak its members into the other files of the module.
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "ledger",
    products: [
        .library(name: "LedgerKit", targets: ["LedgerKit"]),
        .executable(name: "ledger", targets: ["ledger"]),
    ],
    targets: [
        // OpenSSL libcrypto: SHA-256 (EVP) and random bytes.
        .systemLibrary(name: "CLibcrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // libxcrypt: crypt(3) with yescrypt for password hashes.
        .systemLibrary(name: "CCrypt", pkgConfig: "libxcrypt", providers: [.apt(["libcrypt-dev"])]),
        // libpq: the PostgreSQL client library, for the shared multi-host event store. Its header
        // only: the library is loaded when a PostgreSQL store is first opened (`LibPQ`), so the
        // commands that never open one do not load it and the twenty libraries it needs.
        .systemLibrary(name: "CLibpq", providers: [.apt(["libpq-dev"])]),
        // glibc's prctl(2), wrapped (it is variadic): the `ledger` process made not dumpable.
        .systemLibrary(name: "CProcessControl"),
        // The compiler's prefetch hint, which Swift cannot name: the key table's lines asked for ahead.
        .systemLibrary(name: "CMemoryHints"),
        // The pure core: events, JSON, views, deciders. No Foundation, no I/O.
        .target(name: "LedgerDomain", swiftSettings: strictSettings),
        // The shell: stores, hashing, passwords, images, the saga coordinator.
        .target(name: "LedgerKit", dependencies: ["LedgerDomain", "CLibcrypto", "CCrypt", "CLibpq", "CMemoryHints"], swiftSettings: strictSettings),
        // The command-line interface as a library, so tests can drive it in-process. A client of
        // LedgerKit alone (it cannot name a rule of LedgerDomain): the values LedgerKit hands it are
        // LedgerDomain's, given by `typealias`, so their members must be visible through LedgerKit's
        // import, which MemberImportVisibility would hide; the other strict settings apply.
        .target(name: "LedgerCLI", dependencies: ["LedgerKit"], swiftSettings: [.enableUpcomingFeature("ExistentialAny")]),
        .executableTarget(name: "ledger", dependencies: ["LedgerCLI", "CProcessControl"], swiftSettings: strictSettings),
        // Drives the store from many processes at once for the concurrency and crash drills.
        .executableTarget(name: "ledger-drill", dependencies: ["LedgerKit", "LedgerDomain"], swiftSettings: strictSettings),
        // Mutation fuzzing of the log line decoder and the image checker (hostile-input drill).
        .executableTarget(name: "ledger-fuzz", dependencies: ["LedgerKit", "LedgerDomain"], swiftSettings: strictSettings),
        // Generates realistic logs and times replay, verify, append and register (Docs/Performance.md).
        .executableTarget(name: "ledger-bench", dependencies: ["LedgerKit", "LedgerDomain"], swiftSettings: strictSettings),
        .testTarget(
            name: "LedgerTests",
            dependencies: ["LedgerKit", "LedgerDomain", "LedgerCLI", "ledger", "ledger-drill"],
            exclude: ["Fixtures"],  // data the tests read in place (e.g. the NFC vectors)
            swiftSettings: strictSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
