import Glibc
import Synchronization

// MARK: - IOFaults

/// I/O fault injection for the reliability drills, from `LEDGER_IO_FAULTS=OP=N,…` (installed by
/// the edge with `StoreTuning`): the Nth call
/// (counted per process, from 1) of OP fails. OP is `write` (EIO), `enospc` (a write fails with
/// ENOSPC, as on a full disk), `fsync` (EIO) or `rename` (EIO); `kill-write` and `kill-fsync`
/// SIGKILL the process instead, before its Nth write or fsync (a crash at exactly that point;
/// they count the same calls as `write` and `fsync`). None in production.
public enum IOFaults {
    /// The operations that can be made to fail.
    public enum Operation: String, CaseIterable, Sendable {
        /// `pwrite` on a file.
        case write
        /// A `pwrite` failing as on a full disk.
        case enospc
        /// `fsync` of a file or folder.
        case fsync
        /// `rename` of a temp file into place.
        case rename
        /// A `pwrite` that is never made: the process is killed just before it.
        case killWrite = "kill-write"
        /// An `fsync` that is never made: the process is killed just before it.
        case killFsync = "kill-fsync"
    }

    private struct State {
        var targets: [Operation: Int] = [:]
        var counts: [Operation: Int] = [:]
    }

    private static let state = Mutex(State())

    /// Targets `targets` from now on, the counts starting over (`StoreTuning.install`).
    static func reset(targets: [Operation: Int]) {
        state.withLock { $0 = State(targets: targets, counts: [:]) }
    }

    /// Counts one call of `operation`; returns the errno to fail it with when it is the targeted one.
    static func fault(_ operation: Operation) -> Int32? {
        state.withLock { state -> Int32? in
            guard !state.targets.isEmpty else { return nil }
            var failing: Int32?
            let ops: [Operation] = switch operation {
            case .write: [.write, .enospc, .killWrite]
            case .fsync: [.fsync, .killFsync]
            default: [operation]
            }
            for op in ops {
                state.counts[op, default: 0] += 1
                guard state.targets[op] == state.counts[op] else { continue }
                if op == .killWrite || op == .killFsync { kill(getpid(), SIGKILL) }
                failing = op == .enospc ? ENOSPC : EIO
            }
            return failing
        }
    }
}
