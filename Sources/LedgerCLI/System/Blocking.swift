import Dispatch
import Synchronization

// MARK: - Blocking

/// The command line's one bridge to the library's async calls: a command runs on the process's main
/// thread (never a thread of Swift's cooperative pool), which waits here for the call to end.
enum Blocking {
    /// Runs `body` in a task and waits for its result (or error).
    static func wait<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let outcome = Outcome<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            let result: Result<T, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            outcome.result.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return try outcome.result.withLock { $0! }.get()
    }

    /// Where the task leaves its result for the waiting thread.
    private final class Outcome<T: Sendable>: Sendable {
        let result = Mutex<Result<T, any Error>?>(nil)
    }
}
