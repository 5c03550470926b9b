import Dispatch
import Synchronization

// MARK: - Blocking

/// The command line's one bridge to the library's async calls: a command runs on the process's main
/// thread (never a thread of Swift's cooperative pool), which runs the call's task itself and returns
/// when it ends. No thread is started for it: a command makes one call or a few in a row, and a
/// hand-off to a pool thread and back costs more than the call's own work in a small `register`.
enum Blocking {
    /// Runs `body` in a task on this thread and returns its result (or throws its error).
    static func wait<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let outcome = Outcome<T>()
        let here = WaitingThreadExecutor()
        Task(executorPreference: here) {
            let result: Result<T, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            outcome.result.withLock { $0 = result }
            here.stop()
        }
        here.run()
        return try outcome.result.withLock { $0! }.get()
    }

    /// Where the task leaves its result for the waiting thread.
    private final class Outcome<T: Sendable>: Sendable {
        let result = Mutex<Result<T, any Error>?>(nil)
    }
}

// MARK: - WaitingThreadExecutor

/// A task executor whose jobs run on the thread in `run()`, one after the other, until `stop()`: the
/// task it is preferred by (and its child tasks) runs there, and a call resumed from another thread
/// comes back there too.
private final class WaitingThreadExecutor: TaskExecutor {
    private let jobs = Mutex<(waiting: [UnownedJob], stopped: Bool)>(([], false))
    /// Signalled once per job enqueued and once by `stop()`.
    private let wake = DispatchSemaphore(value: 0)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.waiting.append(job) }
        wake.signal()
    }

    /// Ends `run()` once the jobs enqueued before are run.
    func stop() {
        jobs.withLock { $0.stopped = true }
        wake.signal()
    }

    /// Runs the jobs as they come, on this thread, until stopped.
    func run() {
        while true {
            wake.wait()
            let next = jobs.withLock { jobs -> (job: UnownedJob?, stopped: Bool) in
                jobs.waiting.isEmpty ? (nil, jobs.stopped) : (jobs.waiting.removeFirst(), false)
            }
            if let job = next.job {
                job.runSynchronously(on: asUnownedTaskExecutor())
            } else if next.stopped {
                return
            }
        }
    }
}
