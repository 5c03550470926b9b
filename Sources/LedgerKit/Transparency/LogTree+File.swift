import Glibc
import LedgerDomain

// MARK: - LogTree on a log file

extension LogTree {
    /// The tree of the log file at `logPath`, its state (`<log>.tree`) extended to the log's end under
    /// the file's exclusive lock (held while the tree is open). A missing log throws `SystemError`
    /// (ENOENT) before any state is written.
    public static func open(logPath: String) throws -> LogTree {
        let log = try FileDescriptor(path: logPath, flags: O_RDONLY)
        let storage = try TreeFile(path: TreeFile.path(forLog: logPath), create: true)
        let durable = LogPrefix(file: log, end: try durableEnd(of: log, logPath: logPath))
        let tree = LogTree(storage: storage) { tree in
            try storage.reset()
            try tree.extend(durable, from: 0, after: nil)
        }
        tree.logPath = logPath
        do {
            try tree.catchUp(storage, log: log, durable: durable, logPath: logPath)
        } catch is TreeDamaged {
            try tree.rebuild(tree)
        }
        return tree
    }

    /// Extends `storage` from the line it covers, when the log still holds that line with the leaf
    /// it recorded; else starts it over, unless the caches prove a rewritten history.
    private func catchUp(_ storage: TreeFile, log: FileDescriptor, durable: LogPrefix, logPath: String) throws {
        guard let mark = storage.mark else {
            if storage.leaves != 0 || !storage.headerIntact { try storage.reset() }
            return try extend(durable, from: 0, after: nil)
        }
        if try holds(mark, in: log, leaf: storage.node(level: 0, index: storage.leaves - 1)) {
            return try extend(durable, from: mark.lineEnd, after: mark)
        }
        if let rewrite = try RecordedHeads.rewrite(logPath: logPath, log: log) {
            throw StoreError(.historyRewritten, rewrite.message)
        }
        try storage.reset()
        try extend(durable, from: 0, after: nil)
    }

    /// The log's size under the readers' shared lock on `events.lock` (when the folder has one):
    /// a writer holds it exclusive from its write to its sync, so every byte below is durable, and the
    /// state never records a line a power cut could take back (which would later read as a rewrite).
    /// Released at once: writers wait only for a `stat`, not for the extension.
    private static func durableEnd(of log: FileDescriptor, logPath: String) throws -> Int {
        let lockPath = FileSystem.join(FileSystem.directoryName(logPath), "events.lock")
        let lock = FileSystem.exists(lockPath) ? try FileDescriptor(path: lockPath, flags: O_RDONLY) : nil
        try lock?.lock(LOCK_SH)
        defer { lock?.unlock() }
        return try log.size()
    }

    /// True when `log` holds, where `mark` says, the verified line it names, and that line's leaf hash is `leaf`.
    private func holds(_ mark: TreeMark, in log: FileDescriptor, leaf: Digest32) throws -> Bool {
        guard SavedHeadLine.verifiedTime(in: log, lineStart: mark.lineStart, offset: mark.lineEnd, head: mark.head) != nil else { return false }
        var line = [UInt8](repeating: 0, count: mark.lineEnd - mark.lineStart - 1)
        let n = try line.withUnsafeMutableBytes { try log.read(into: $0.baseAddress!, count: $0.count, at: mark.lineStart) }
        return n == line.count && line.withUnsafeBytes { hasher.leafHash($0) } == leaf
    }
}

// MARK: - LogPrefix

/// The first `end` bytes of a log file, as the scanner reads them: what was durable when the tree
/// was opened (`durableEnd`); lines appended since wait for the next command.
final class LogPrefix: LogBytes {
    /// The log.
    let file: FileDescriptor
    /// Where the prefix ends.
    let end: Int

    /// The first `end` bytes of `file`.
    init(file: FileDescriptor, end: Int) {
        self.file = file
        self.end = end
    }

    func size() throws -> Int { end }

    func read(into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int) throws -> Int {
        guard offset < end else { return 0 }
        return try file.read(into: buffer, count: min(count, end - offset), at: offset)
    }
}
