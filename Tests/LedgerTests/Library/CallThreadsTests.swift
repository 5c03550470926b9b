import Dispatch
import Glibc
@testable import LedgerKit
import Synchronization
import Testing

// The threads a `Ledger`'s calls run on: as many calls waiting at once as the limit allows (not as
// many as there are cores), never more, started in the order they came, and no thread kept once idle.

@Suite struct CallThreadsTests {
    /// Counts shared by the jobs of one test.
    private final class Tally: Sendable {
        let running = Mutex(0), most = Mutex(0), order = Mutex<[Int]>([])
        let done = DispatchSemaphore(value: 0)
    }

    /// Waits for `count` jobs to signal `done`; false when one is still missing after 20 seconds.
    private func waitFor(_ count: Int, _ tally: Tally) -> Bool {
        (0..<count).allSatisfy { _ in tally.done.wait(timeout: .now() + 20) == .success }
    }

    /// Waits up to 10 seconds for `condition`.
    private func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<1000 where !condition() { usleep(10_000) }
        return condition()
    }

    /// 64 jobs that each wait until all 64 have started: they all run at once (a pool as wide as
    /// the cores would never let the 64th start while the others wait).
    @Test func sixtyFourWaitingCallsRunAtOnce() async {
        let threads = CallThreads(limit: 64), tally = Tally(), gate = DispatchSemaphore(value: 0)
        for _ in 0..<64 {
            threads.run {
                let arrived = tally.running.withLock { $0 += 1; return $0 }
                if arrived == 64 {
                    for _ in 0..<63 { gate.signal() }  // the last to start lets the 63 waiting go
                } else if gate.wait(timeout: .now() + 10) == .timedOut {
                    tally.most.withLock { $0 = -1 }  // waited in vain: the 64th never started meanwhile
                }
                tally.done.signal()
            }
        }
        #expect(waitFor(64, tally))
        #expect(tally.running.withLock { $0 } == 64 && tally.most.withLock { $0 } == 0, "every call was waiting at once")
        await threads.retire()
        #expect(threads.threadCount == 0, "retired")
    }

    /// 40 jobs on at most 4 threads: never more than 4 at once, every job runs, and with one thread
    /// they run in the order they came.
    @Test func noMoreThanTheLimitAndInOrder() {
        let four = CallThreads(limit: 4), tally = Tally()
        for _ in 0..<40 {
            four.run {
                let now = tally.running.withLock { $0 += 1; return $0 }
                tally.most.withLock { $0 = max($0, now) }
                usleep(2_000)
                tally.running.withLock { $0 -= 1 }
                tally.done.signal()
            }
        }
        #expect(waitFor(40, tally))
        #expect(tally.most.withLock { $0 } <= 4 && four.threadCount <= 4)
        let one = CallThreads(limit: 1), ordered = Tally()
        for k in 0..<20 {
            one.run {
                ordered.order.withLock { $0.append(k) }
                ordered.done.signal()
            }
        }
        #expect(waitFor(20, ordered))
        #expect(ordered.order.withLock { $0 } == Array(0..<20))
    }

    /// A thread idle for the idle timeout ends; the next job starts a new one.
    @Test func idleThreadsEnd() {
        let threads = CallThreads(limit: 8, idleTimeout: .milliseconds(50)), tally = Tally()
        for _ in 0..<8 { threads.run { usleep(20_000); tally.done.signal() } }
        #expect(waitFor(8, tally))
        #expect(eventually { threads.threadCount == 0 }, "idle threads ended: \(threads.threadCount) left")
        threads.run { tally.done.signal() }
        #expect(waitFor(1, tally))
    }

    /// What a call held is let go before `retire()` returns, so no thread of a closed ledger frees
    /// it later, while the process exits (its stores' files and libcrypto contexts freed alongside
    /// the exit handlers crashed one command in a few hundred).
    @Test func retireReturnsOnceEveryThreadLetGoOfItsCalls() async throws {
        final class Flag: Sendable { let value = Mutex(false) }
        final class Held: Sendable {
            let gone: Flag
            init(_ gone: Flag) { self.gone = gone }
            deinit {
                usleep(100_000)  // a slow teardown: `retire` must wait for it
                gone.value.withLock { $0 = true }
            }
        }
        let threads = CallThreads(limit: 4), gone = Flag(), ran = Flag()
        do {
            let held = Held(gone)
            threads.run { withExtendedLifetime(held) { ran.value.withLock { $0 = true } } }
        }
        for _ in 0..<1000 where !ran.value.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
        await threads.retire()
        #expect(gone.value.withLock { $0 }, "the call's captures were freed before retire returned")
        #expect(threads.threadCount == 0)
    }
}
