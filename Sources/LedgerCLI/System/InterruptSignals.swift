import Glibc

// MARK: - InterruptSignals

/// SIGINT and SIGTERM turned from a way to die into something to wait for: while blocked they stay
/// pending, and `wait` sleeps until a timeout or until one arrives. No handler runs, so no state is
/// shared with signal context (the process has a single thread, which does the waiting).
struct InterruptSignals {
    private var signals = sigset_t()
    private var previous = sigset_t()

    /// Blocks SIGINT and SIGTERM until `restore()`.
    static func block() -> InterruptSignals {
        var blocked = InterruptSignals()
        sigemptyset(&blocked.signals)
        sigaddset(&blocked.signals, SIGINT)
        sigaddset(&blocked.signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &blocked.signals, &blocked.previous)
        return blocked
    }

    /// True when SIGINT or SIGTERM is pending (without waiting or consuming it).
    func pending() -> Bool {
        var pending = sigset_t()
        sigpending(&pending)
        return sigismember(&pending, SIGINT) == 1 || sigismember(&pending, SIGTERM) == 1
    }

    /// Waits up to `milliseconds` for SIGINT or SIGTERM; true (and consumed) when one arrived.
    func wait(milliseconds: Int) -> Bool {
        var timeout = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
        var signals = signals
        while true {
            if sigtimedwait(&signals, nil, &timeout) > 0 { return true }
            if errno != EINTR { return false }  // EAGAIN: the timeout passed
        }
    }

    /// Puts back the signal mask from before `block()`.
    func restore() {
        var previous = previous
        pthread_sigmask(SIG_SETMASK, &previous, nil)
    }
}
