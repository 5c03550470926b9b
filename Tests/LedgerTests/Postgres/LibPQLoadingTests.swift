import Foundation
import LedgerCLI
@testable import LedgerKit
import Testing

// MARK: - LibPQLoadingTests

/// libpq is loaded when a PostgreSQL store is first opened, never by a command on a data folder, and
/// a host without it (or with one too old) gets one line naming what is missing.
struct LibPQLoadingTests {
    /// The dynamic loader's own account of the libraries a run of the built `ledger` loaded.
    private func loadedLibraries(_ arguments: [String], stdin: String? = nil) throws -> (ProcessResult, String) {
        let result = try run(Paths.ledger, arguments, stdin: stdin, env: ["LD_DEBUG": "libs", "LEDGER_HASH_COST": "1"])
        return (result, result.stderr)
    }

    @Test func aFileStoreCommandNeverLoadsIt() throws {
        try withTempDirectory { folder in
            let (registered, libraries) = try loadedLibraries(
                ["register", "--data", folder, "--email", "a@example.com", "--username", "A", "--password-stdin", "--json"],
                stdin: "pass word 1\n")
            #expect(registered.status == 0, "\(registered.stdout)")
            #expect(libraries.contains("libcrypto.so"), "the loader's trace is there (LD_DEBUG=libs)")
            #expect(!libraries.contains("libpq"))
            let (replayed, replayLibraries) = try loadedLibraries(["replay", "\(folder)/events.jsonl", "--json"])
            #expect(replayed.status == 0)
            #expect(!replayLibraries.contains("libpq"))
        }
    }

    @Test func aPostgreSQLStoreLoadsItWhenOpened() throws {
        // Nothing listens on port 1: the connection fails after libpq is loaded, with libpq's words.
        let (result, libraries) = try loadedLibraries(["users", "--store", "postgres://ledger@127.0.0.1:1/none", "--json"])
        #expect(result.status == 3)
        #expect(libraries.contains("libpq.so.5"))
        #expect(result.stdout.contains("\"code\":\"store-unavailable\""))
        #expect(result.stdout.contains("Connection refused"))
    }

    @Test func aMissingLibraryIsOneLineNamingIt() throws {
        guard case .failure(let error) = LibPQ.load("libpq-not-installed.so.5") else {
            Issue.record("a library that does not exist was loaded"); return
        }
        #expect(error.message.hasPrefix("a PostgreSQL store needs libpq (libpq-not-installed.so.5, from the libpq5 package), which cannot be loaded: "))
        #expect(!error.message.contains("\n"))
        #expect(error.code == .unavailable && error.reason == StoreError.clientLibraryMissing)
        // The command line says what to install, not to look at a server nobody asked.
        let shown = CLIError.from(error)
        #expect(shown.message.hasSuffix("; install libpq (Debian: `apt-get install libpq5`) on this host"), "\(shown.message)")
        #expect(!shown.message.contains("server is running"))
        #expect(shown.code == "store-unavailable")
    }

    @Test func aLibraryWithoutItsFunctionsIsRefused() throws {
        // The C library loads, but has none of libpq's functions.
        guard case .failure(let error) = LibPQ.load("libc.so.6") else {
            Issue.record("libc was taken for libpq"); return
        }
        // Every function it lacks is named, not only the first.
        #expect(error.message.hasPrefix("the libpq found (libc.so.6) lacks PQconnectStartParams, PQconnectdbParams, PQconnectPoll, "))
        #expect(error.message.hasSuffix(", PQenterPipelineMode, PQexitPipelineMode, PQpipelineSync: a PostgreSQL store needs libpq 14 or later"))
    }

    @Test func theInstalledLibraryHasEveryFunction() throws {
        guard case .success(let pq) = LibPQ.load(LibPQ.fileName) else {
            Issue.record("libpq.so.5 did not load"); return
        }
        #expect(LibPQ.text(pq.errorMessage(nil)) != "")  // libpq's message for a NULL connection
        #expect(LibPQ.text(nil) == "")
    }
}
