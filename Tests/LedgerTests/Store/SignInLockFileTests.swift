import Foundation
import Glibc
import Synchronization
import LedgerKit
import Testing

// The file behind an email's sign-in lock comes and goes: a holder with no marker removes it on
// release. Whoever opens it meanwhile must never fail for a file that vanished between two calls.

@Suite struct SignInLockFileTests {
    /// Threads of one process take and release one email's lock as fast as they can (each open is
    /// its own `flock`): every acquisition succeeds, and at most one thread holds the lock at a time.
    @Test func aLockFileRemovedBetweenOpensIsCreatedAgain() throws {
        try withTempDirectory("signin-lock") { dir in
            let failures = Mutex<[String]>([]), holders = Mutex(0), overlaps = Mutex(0)
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                let locks = FileSignInLocks(directory: dir)
                for _ in 0..<300 {
                    do {
                        let held = try locks.acquire(email: "race@example.com")
                        holders.withLock { $0 += 1; if $0 > 1 { overlaps.withLock { $0 += 1 } } }
                        holders.withLock { $0 -= 1 }
                        held.release()
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
            let failed = failures.withLock { $0 }
            #expect(failed.isEmpty, "\(failed.count) acquisitions failed, e.g. \(failed.first ?? "")")
            #expect(overlaps.withLock { $0 } == 0)
            #expect(!FileManager.default.fileExists(atPath: FileSignInLocks.path(directory: dir, email: "race@example.com")))
        }
    }
}
