import Dispatch
import Glibc
import Synchronization

// MARK: - CallThreads

/// The threads a `Ledger`'s calls run on: threads of its own, since a call waits (for a lock, an
/// `fdatasync`, the server) while it holds one. Not a `DispatchQueue`: on Linux a concurrent queue
/// runs on the global pool Swift's cooperative executor also uses, about as wide as there are cores
/// and widened only slowly while its threads wait, so 64 tasks calling at once had a handful of
/// calls running (and the group commit a few batches to gather per sync instead of dozens).
///
/// At most `limit` threads run calls, each started when a call finds none idle and kept for the
/// next call; a call that finds `limit` busy waits in line, holding no thread, and calls start in
/// the order they came. A thread left idle for `idleTimeout` ends; `retire()` ends every thread
/// once its call is done and returns when they have all ended, having let go of what their calls
/// held: a process may then exit without a thread of the ledger freeing its stores (closing files,
/// freeing libcrypto contexts) while the exit handlers run.
final class CallThreads: Sendable {
    /// One call's work.
    typealias Job = @Sendable () -> Void

    /// One thread, while it is idle: what it is handed next.
    private final class Worker: @unchecked Sendable {
        // @unchecked: `job` is set under `CallThreads.state`'s lock by whoever takes the worker off
        // the idle list, before `wake` is signalled; the worker reads it under that lock after.
        var job: Job?
        let wake = DispatchSemaphore(value: 0)
    }

    private struct State {
        /// Calls waiting for a thread, first at `head` (taken ones are nil until the array is cut).
        var line: [Job?] = []
        var head = 0
        /// Idle threads, the last one idle since the shortest time.
        var idle: [Worker] = []
        /// Threads started and not ended (one counts until it has let go of its last call).
        var threads = 0
        /// True once retired: a thread that finds no call waiting ends instead of idling.
        var retired = false
        /// Who waits for the last thread to end.
        var ended: [CheckedContinuation<Void, Never>] = []

        mutating func next() -> Job? {
            guard head < line.count else { return nil }
            defer {
                line[head] = nil
                head += 1
                if head == line.count {
                    line.removeAll(keepingCapacity: true)
                    head = 0
                } else if head >= 64, head * 2 >= line.count {
                    line.removeFirst(head)
                    head = 0
                }
            }
            return line[head]
        }
    }

    /// The most threads running calls at once.
    let limit: Int
    private let idleTimeout: DispatchTimeInterval
    private let state = Mutex(State())

    /// Threads for calls, at most `limit` (at least one) at once.
    init(limit: Int, idleTimeout: DispatchTimeInterval = .seconds(2)) {
        self.limit = max(1, limit)
        self.idleTimeout = idleTimeout
    }

    /// Runs `job` on one of the threads: an idle one, a new one while there are fewer than `limit`,
    /// else the first one to finish what it runs (after the calls that came before).
    func run(_ job: @escaping Job) {
        enum Start { case handed(Worker), newThread, queued }
        let start = state.withLock { state -> Start in
            if let worker = state.idle.popLast() {
                worker.job = job
                return .handed(worker)
            }
            guard state.threads < limit else {
                state.line.append(job)
                return .queued
            }
            state.threads += 1
            return .newThread
        }
        switch start {
        case .handed(let worker): worker.wake.signal()
        case .queued: break
        case .newThread: if !startThread(job) { noThread(job) }
        }
    }

    /// Ends the idle threads now and every other one once its call is done (a closed ledger runs no
    /// more calls), and returns when all have ended.
    func retire() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let (idle, now) = state.withLock { state -> ([Worker], Bool) in
                state.retired = true
                defer { state.idle = [] }
                if state.threads == 0 { return (state.idle, true) }
                state.ended.append(done)
                return (state.idle, false)
            }
            for worker in idle { worker.wake.signal() }  // woken with no job: it ends
            if now { done.resume() }
        }
    }

    /// How many threads are started and not ended (for tests).
    var threadCount: Int { state.withLock { $0.threads } }

    // MARK: - Threads

    /// Starts a detached thread that runs `job`, then whatever comes; false when none could be
    /// started.
    private func startThread(_ job: @escaping Job) -> Bool {
        final class Start: @unchecked Sendable {
            // @unchecked: handed to exactly one thread, and only read there.
            let threads: CallThreads, job: Job
            init(_ threads: CallThreads, _ job: @escaping Job) { self.threads = threads; self.job = job }
        }
        var thread = pthread_t()
        let start = Unmanaged.passRetained(Start(self, job)).toOpaque()
        let started = pthread_create(&thread, nil, { pointer in
            let threads = Unmanaged<Start>.fromOpaque(pointer!).takeUnretainedValue().threads
            // The start (and the first call it holds) is let go before the thread counts as ended.
            threads.work(Unmanaged<Start>.fromOpaque(pointer!).takeRetainedValue().job)
            threads.ended()
            return nil
        }, start)
        guard started == 0 else {
            Unmanaged<Start>.fromOpaque(start).release()
            return false
        }
        pthread_detach(thread)  // nobody joins it: its resources go when it ends
        return true
    }

    /// A thread has ended, holding nothing of its calls any more: the last one wakes `retire()`.
    private func ended() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.threads -= 1
            guard state.threads == 0 else { return [] }
            defer { state.ended = [] }
            return state.ended
        }
        for waiter in waiting { waiter.resume() }
    }

    /// No thread could be started for `job` (a process out of threads): an idle thread takes it, else
    /// it waits in line for a running one, else (none runs) it runs here, so no call is lost.
    private func noThread(_ job: @escaping Job) {
        enum Fallback { case handed(Worker), queued, here }
        let fallback = state.withLock { state -> Fallback in
            state.threads -= 1
            if let worker = state.idle.popLast() {
                worker.job = job
                return .handed(worker)
            }
            guard state.threads > 0 else { return .here }
            state.line.append(job)
            return .queued
        }
        switch fallback {
        case .handed(let worker): worker.wake.signal()
        case .queued: break
        case .here: job()
        }
    }

    /// A thread's life: `first`, then each call waiting in line, then idle until handed another;
    /// it ends when retired or idle for `idleTimeout`.
    private func work(_ first: @escaping Job) {
        let me = Worker()
        var job: Job? = first
        while let running = job {
            running()
            job = nil  // what the call held goes now, not when the next call comes
            enum Next { case run(Job), idle, end }
            let next = state.withLock { state -> Next in
                if let next = state.next() { return .run(next) }
                if state.retired { return .end }
                state.idle.append(me)
                return .idle
            }
            switch next {
            case .run(let waiting): job = waiting
            case .idle: job = waitIdle(me)
            case .end: job = nil
            }
        }
    }

    /// Waits, idle, for a job; nil when this thread ends (retired, or idle for `idleTimeout`).
    private func waitIdle(_ me: Worker) -> Job? {
        while true {
            if me.wake.wait(timeout: .now() + idleTimeout) == .success {
                return state.withLock { _ in
                    defer { me.job = nil }
                    return me.job  // nil: retired
                }
            }
            let ended = state.withLock { state -> Bool in
                // Taken off the idle list meanwhile: a job (or retirement) is on its way.
                guard let k = state.idle.firstIndex(where: { $0 === me }) else { return false }
                state.idle.remove(at: k)
                return true
            }
            if ended { return nil }
        }
    }
}
