import Foundation
import Glibc
@testable import LedgerCLI
@testable import LedgerKit
import Testing

// MARK: - BlockingTests

/// The command line's bridge to the library: the call's task, and a ledger opened for the command,
/// run on the thread that waits (no thread is handed the work and back), and what the task returns
/// or throws reaches that thread.
@Suite struct BlockingTests {
    /// The calling thread's id, as a number (pthread_t is a pointer-sized integer on Linux).
    private static func me() -> UInt { UInt(pthread_self()) }

    @Test func theTaskRunsOnTheWaitingThreadAcrossSuspensions() throws {
        let caller = Self.me()
        let seen = try Blocking.wait { () async throws -> [UInt] in
            var threads = [Self.me()]
            await Task.yield()
            threads.append(Self.me())
            // A child task, and a continuation resumed from another thread, come back here too.
            async let child = Self.me()
            threads.append(await child)
            let resumed: UInt = await withCheckedContinuation { continuation in
                Thread { continuation.resume(returning: 0) }.start()
            }
            threads.append(Self.me() &+ resumed)
            return threads
        }
        #expect(seen == [caller, caller, caller, caller])
    }

    @Test func anErrorOfTheTaskIsThrownToTheWaitingThread() {
        struct Refused: Error, Equatable {}
        #expect(throws: Refused.self) { try Blocking.wait { () async throws -> Int in throw Refused() } }
    }

    @Test func aLedgerOpenedForTheCallerRunsItsCallsOnTheCallersThread() throws {
        try withTempDirectory("blocking") { dir in
            var onCaller = Ledger.Configuration(directory: dir, hashCost: 1)
            onCaller.callsOnCallersThread = true
            let configuration = onCaller
            let caller = Self.me()
            let (head, threads) = try Blocking.wait { () async throws -> (Ledger.Head, Int) in
                let ledger = try await Ledger.open(configuration)
                _ = try await ledger.register(email: "blocking@example.com", password: "correct horse 1", userName: "B")
                let head = try await ledger.head()
                let threads = ledger.callThreadCount  // a thread that ran a call idles a while before it ends
                await ledger.close()
                return (head, threads)
            }
            #expect(head.seq >= 3, "the registration was appended: \(head)")
            #expect(threads == 0, "the ledger started \(threads) threads of its own")
            #expect(Self.me() == caller)
        }
    }
}
