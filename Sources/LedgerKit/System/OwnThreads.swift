import Glibc

// MARK: - OwnThreads

/// Runs work on threads of its own: `DispatchQueue.concurrentPerform` runs no more iterations at
/// once than there are cores, and a drill or benchmark of callers that wait (for a lock, for an
/// `fdatasync`) needs them all waiting at once.
public enum OwnThreads {
    /// Runs `body(k)` for each k in `0..<count`, each on a new thread, and returns when all have.
    public static func run(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        final class Job: @unchecked Sendable {
            // @unchecked: handed to exactly one thread, and only read there.
            let body: @Sendable (Int) -> Void, index: Int
            init(_ body: @escaping @Sendable (Int) -> Void, _ index: Int) { self.body = body; self.index = index }
        }
        var threads: [pthread_t] = []
        for k in 0..<count {
            var thread = pthread_t()
            let job = Unmanaged.passRetained(Job(body, k)).toOpaque()
            let started = pthread_create(&thread, nil, { pointer in
                let job = Unmanaged<Job>.fromOpaque(pointer!).takeRetainedValue()
                job.body(job.index)
                return nil
            }, job)
            if started == 0 {
                threads.append(thread)
            } else {
                // No thread for it (a process out of threads): run it here, so no work is lost.
                let job = Unmanaged<Job>.fromOpaque(job).takeRetainedValue()
                job.body(job.index)
            }
        }
        for thread in threads { pthread_join(thread, nil) }
    }
}
