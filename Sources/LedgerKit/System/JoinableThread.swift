import Glibc

// MARK: - JoinableThread

/// Work started on a thread of its own (not a dispatch queue's: their threads are as many as the
/// cores, and the scanner's worker must not wait behind it), waited for with `join`. A thread that
/// cannot be started runs the work at once, in the caller's thread.
final class JoinableThread: @unchecked Sendable {
    // @unchecked: `thread` is written by `init` and read by `join`, both on the starting thread.
    private var thread: pthread_t?

    /// Starts `body` on a new thread.
    init(_ body: @escaping @Sendable () -> Void) {
        final class Job {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        var started = pthread_t()
        let job = Unmanaged.passRetained(Job(body)).toOpaque()
        if pthread_create(&started, nil, { pointer in
            Unmanaged<Job>.fromOpaque(pointer!).takeRetainedValue().body()
            return nil
        }, job) == 0 {
            thread = started
        } else {
            Unmanaged<Job>.fromOpaque(job).takeRetainedValue().body()
        }
    }

    /// Returns once the work has ended; called at most once, by the thread that started it.
    func join() {
        if let thread { pthread_join(thread, nil) }
        thread = nil
    }

    deinit { if let thread { pthread_join(thread, nil) } }
}
