import Glibc
import LedgerDomain

// MARK: - Torn tail

/// A torn tail is the bytes after the log's last newline: a write that never finished, so never
/// acknowledged. A writer holding the exclusive lock repairs it before appending (from `catchUp`),
/// and `ledger recover` through `repairTail`: a whole event that lost only its newline gets it back;
/// anything else moves to `events.jsonl.broken` and the log is cut back to its last whole line.
extension FileEventStore {
    /// Takes the exclusive lock and repairs a torn last line, if any (moved to `brokenPath`); true
    /// when it did. Damage before the last line throws `.damaged` and is left untouched.
    public func repairTail() throws -> Bool {
        guard FileSystem.exists(logPath) else { return false }
        do {
            let lock = try FileDescriptor(path: lockPath, flags: O_RDWR | O_CREAT)
            try lock.lock(LOCK_EX)
            defer { releaseWritersLock(lock) }
            let log = try FileDescriptor(path: logPath, flags: O_RDWR)
            let before = try log.size()
            try finishErasureLeftBehind(log)
            try syncIndexFile(log)
            try catchUp(log, repairing: true)
            return try log.size() != before
        } catch {
            throw StoreError.io(error)
        }
    }

    /// When the torn bytes are whole lines but for the last one's final newline, closing any batch
    /// they are in — an acknowledged batch whose `\n` was lost, or a write cut just before it, which
    /// holds a whole batch all the same — adds the newline and fsyncs, so the batch is kept (true);
    /// false for a truly partial line, or lines of a batch cut short (`LogScanner.cutBatch`).
    func completeLine(_ log: FileDescriptor, torn: (problem: LogProblem, offset: Int, length: Int)) throws -> Bool {
        let bytes = try Self.bytes(of: log, at: torn.offset, count: torn.length)
        guard bytes.count == torn.length, bytes.last != 0x0A else { return false }
        var probe = prefix.checker
        probe.opener = keyRing
        var start = 0
        for (index, byte) in bytes.enumerated() where byte == 0x0A || index == bytes.count - 1 {
            let end = byte == 0x0A ? index : bytes.count
            let whole = bytes.withUnsafeBufferPointer { all in
                if case .event = LogScanner.decode(UnsafeBufferPointer(rebasing: all[start..<end]), offset: torn.offset + start,
                                                   terminated: true, checker: &probe) { true } else { false }
            }
            guard whole else { return false }
            start = index + 1
        }
        guard !probe.batchIsOpen else { return false }
        let newline: [UInt8] = [0x0A]
        try newline.withUnsafeBytes { (raw) throws in try log.write(raw, at: torn.offset + torn.length) }
        do {
            try log.sync()
        } catch {
            throw poison(error, "the last line's missing newline was written, but it may not be on disk")
        }
        notice("completed the last line (line \(torn.problem.line)): it was a whole event without its final newline")
        return true
    }

    /// Moves a torn tail to `events.jsonl.broken` (without its ciphertexts: `BrokenTail`), cuts the
    /// log back and fsyncs both.
    func repair(_ log: FileDescriptor, torn: (problem: LogProblem, offset: Int, length: Int)) throws {
        var bytes = BrokenTail.kept(try Self.bytes(of: log, at: torn.offset, count: torn.length))
        if bytes.last != 0x0A { bytes.append(0x0A) }
        let broken = try FileDescriptor(path: brokenPath, flags: O_RDWR | O_CREAT | O_APPEND)
        let kept = try broken.size()
        // A repair killed after its copy but before the cut left the same bytes at the end: keep one copy.
        let copied = kept >= bytes.count && (try? Self.bytes(of: broken, at: kept - bytes.count, count: bytes.count)) == bytes
        if !copied {
            do {
                try bytes.withUnsafeBytes { (raw) throws in try broken.write(raw, at: kept) }
            } catch {
                try? broken.truncate(to: kept)  // no partial copy stays in .broken; the log still holds the tail
                throw error
            }
        }
        do {
            try broken.sync()
        } catch {
            if !copied { try? broken.truncate(to: kept) }
            throw poison(error, "the torn last line could not be kept in \(brokenPath); the log is unchanged")
        }
        try log.truncate(to: torn.offset)
        do {
            try log.sync()
            try FileSystem.syncDirectory(directory)
        } catch {
            throw poison(error, "the log was cut back to repair a torn last line, but that may not be on disk")
        }
        notice("repaired a torn last line (line \(torn.problem.line), \(torn.length) bytes never acknowledged): moved to \(brokenPath)")
    }
}
