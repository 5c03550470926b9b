import Glibc
import LedgerDomain

// MARK: - LogFollower

/// Reads a log that other processes append to. Each `read` verifies and delivers only the complete
/// lines added since the last one, continuing the same chain check, under the shared lock readers
/// take when the log's folder has an `events.lock`. An incomplete last line is not damage here:
/// it is left where it is, to be read once its writer has finished it.
public final class LogFollower {
    /// What one `read` found.
    public enum Outcome: Equatable, Sendable {
        /// There is no log at the path (yet).
        case missing
        /// Every complete line has been delivered; `tornTail` is an incomplete last line left for later.
        case caughtUp(tornTail: LogProblem?)
        /// The body returned false; the next `read` continues after the event it last saw.
        case stopped
        /// A damaged line: no event at or after it is ever delivered.
        case damaged(LogProblem)
    }

    /// The log.
    public let path: String
    /// `events.lock` in the log's folder: held shared while reading, when it exists.
    public let lockPath: String
    /// The offset just after the last line delivered.
    public private(set) var verifiedEnd = 0

    private var checker: ChainChecker
    private var log: FileDescriptor?
    private var lock: FileDescriptor?
    private var identity: (device: UInt, inode: UInt)?
    private var damage: LogProblem?

    /// A reader of `path`, starting at its first line.
    public init(path: String) {
        self.path = path
        checker = ChainChecker(opener: KeyRing.forLog(path))
        self.lockPath = FileSystem.join(FileSystem.directoryName(path), "events.lock")
    }

    /// Delivers each event appended since the last call, with its line's bytes (no newline), until
    /// `body` returns false. A log cut below what was already read, or replaced, throws `.damaged`.
    public func read(_ body: (RecordedEvent, UnsafeBufferPointer<UInt8>) -> Bool) throws -> Outcome {
        if let damage { return .damaged(damage) }
        do {
            if log == nil {
                guard FileSystem.exists(path) else { return .missing }
                let opened = try FileDescriptor(path: path, flags: O_RDONLY)
                identity = try Self.identity(of: opened)
                log = opened
            }
            guard let log else { return .missing }
            if lock == nil, FileSystem.exists(lockPath) { lock = try FileDescriptor(path: lockPath, flags: O_RDONLY) }
            try lock?.lock(LOCK_SH)
            defer { lock?.unlock() }
            try checkStillTheLog(log)
            guard try log.size() > verifiedEnd else { return .caughtUp(tornTail: nil) }
            var outcome = Outcome.caughtUp(tornTail: nil)
            try LogScanner.scanLines(log, from: verifiedEnd, checker: &checker) { item, line in
                switch item {
                case .event(let event, let offset, let length):
                    verifiedEnd = offset + length
                    if body(event, line) { return true }
                    outcome = .stopped
                    return false
                case .problem(let problem, _, _):
                    damage = problem
                    outcome = .damaged(problem)
                    return false
                case .tornTail(let problem, _, _):
                    outcome = .caughtUp(tornTail: problem)
                    return false
                }
            }
            return outcome
        } catch let error as SystemError {
            throw StoreError.io(error)
        }
    }

    /// Throws `.damaged` when the file at `path` is no longer the one open, or is shorter than what was read.
    private func checkStillTheLog(_ log: FileDescriptor) throws {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw StoreError(.damaged, "the log \(path) was removed while being read")
        }
        if let identity, identity != (UInt(info.st_dev), UInt(info.st_ino)) {
            throw StoreError(.damaged, "the log \(path) was replaced by another file while being read; check it with `ledger verify` and read it again")
        }
        if try log.size() < verifiedEnd {
            throw StoreError(.damaged, "the log \(path) was cut below the \(verifiedEnd) bytes already read; run `ledger verify` on it")
        }
    }

    /// The device and inode of an open file.
    private static func identity(of file: FileDescriptor) throws -> (device: UInt, inode: UInt) {
        var info = stat()
        guard fstat(file.fd, &info) == 0 else { throw SystemError("stat", path: file.path) }
        return (UInt(info.st_dev), UInt(info.st_ino))
    }
}
