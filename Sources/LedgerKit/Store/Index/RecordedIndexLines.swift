import Glibc
import LedgerDomain

// MARK: - RecordedIndexLines

/// The lines the writers' index recorded (`events.jsonl.index`, its durable checkpoint and the copy
/// `events.jsonl.checkpoint` carries), slot by
/// slot: each account's password line (where it starts, the first 8 bytes of its hash, as `login`
/// trusts them) and each stream's last line (where it starts, its seq, and the stream it belongs
/// to). A log only ever gains lines, so one of these that the log still reaches, where no line
/// starts any more or the line there is another, proves a rewrite — also when the index's header
/// names a line past the log's end (the tail dropped, or dropped and written anew, after the
/// rewrite) and the index would otherwise be taken for stale. Read only on the way to dropping such
/// an index, and by `verify` when a cache names a line past the end.
enum RecordedIndexLines {
    /// What one slot says of one line.
    struct Record {
        /// The index file that holds it.
        var cache: String
        /// Where the line starts in the log.
        var offset: Int
        /// What the line must be.
        var expected: Expected
    }

    /// What a slot says the line at its offset is.
    enum Expected {
        /// An account's password line: the first 8 bytes of its hash (`Digest32.a`).
        case passwordLine(hashPrefix: UInt64)
        /// A stream's last line: its seq, in the stream `category`-`id`.
        case streamLine(seq: Int, category: StreamCategory, id: UUIDBits)
    }

    /// The records of the live index, of its checkpoint and of the copy the read checkpoint carries
    /// beside the log at `logPath`.
    static func of(logPath: String) -> [Record] {
        let index = logPath + ".index", readCheckpoint = Checkpoint.path(forLog: logPath)
        let carried = CheckpointIndexSection.section(inCheckpoint: readCheckpoint).map { records(in: readCheckpoint, at: $0) } ?? []
        return records(in: index) + records(in: WritersIndex.checkpointPath(forIndex: index)) + carried
    }

    /// The stream category of a stream slot's tag.
    private static func category(of tag: UInt8) -> StreamCategory? {
        switch WritersIndex.Tag(rawValue: tag) {
        case .registrationStream: .registration
        case .sessionStream: .session
        case .signinStream: .signin
        case .accountStream: .account
        case .migrationStream: .migration
        default: nil
        }
    }

    /// The records of the index file at `path`, or of the index in its bytes `section` (a
    /// checkpoint's trailer after its slots is not read); none when it is no index of this format.
    private static func records(in path: String, at section: Range<Int>? = nil) -> [Record] {
        guard let file = try? FileDescriptor(path: path, flags: O_RDONLY | O_NOFOLLOW), let whole = try? file.size() else { return [] }
        let start = section?.lowerBound ?? 0, size = section.map { min($0.upperBound, whole) - $0.lowerBound } ?? whole
        guard size > WritersIndex.headerSize, let base = WritersIndex.anonymousMapping(size: size) else { return [] }
        let table = WritersIndex(path: "", fd: -1, base: base, mappedSize: size, inode: (0, 0))  // unmaps it when done
        guard (try? file.read(into: base, count: size, at: start)) == size, table.hasMagic else { return [] }
        let capacity = Int(table[header: WritersIndex.Header.capacity])
        guard capacity > 0, capacity <= (size - WritersIndex.headerSize) / WritersIndex.Slot.size else { return [] }
        var found: [Record] = []
        for n in 0..<capacity {
            let slot = WritersIndex.headerSize + n * WritersIndex.Slot.size
            let tag = table[slot, WritersIndex.Slot.tag]
            if tag == WritersIndex.Tag.account.rawValue {
                let offset = Int(table[slot, WritersIndex.AccountSlot.passwordLine])
                guard offset >= 0 else { continue }
                found.append(Record(cache: path, offset: offset,
                                    expected: .passwordLine(hashPrefix: table[slot, WritersIndex.AccountSlot.passwordLineHash])))
            } else if let category = category(of: tag) {
                let offset = Int(table[slot, WritersIndex.StreamSlot.lastLine])
                guard offset >= 0 else { continue }
                found.append(Record(cache: path, offset: offset,
                                    expected: .streamLine(seq: Int(table[slot, WritersIndex.Slot.seq]), category: category,
                                                          id: table[slot, WritersIndex.Slot.key])))
            }
        }
        return found
    }

    /// The first rewrite the records of `logPath`'s index prove against `log` (its first `end`
    /// bytes): a record where no line starts any more, or whose line is another. A record at the
    /// log's unfinished tail, or on a line that does not decode (damage, which every reader reports
    /// as such), proves nothing here.
    static func rewrite(logPath: String, log: FileDescriptor, intactEnd end: Int) -> HistoryRewrite? {
        for record in of(logPath: logPath) where record.offset < end {
            let found = line(in: log, at: record.offset, before: end)
            let line: (seq: Int, stream: String, hash: Digest32)?
            switch found {
            case .notALineStart: line = nil
            case .unfinished, .undecodable: continue
            case .line(let seq, let stream, let hash): line = (seq, stream, hash)
            }
            switch record.expected {
            case .passwordLine(let prefix):
                let recorded = String(repeating: "0", count: 16 - String(prefix, radix: 16).count) + String(prefix, radix: 16) + "…"
                guard let line else {
                    return HistoryRewrite(cache: record.cache, seq: 0, recorded: recorded, found: "",
                                          detail: "recorded a password line starting at byte \(record.offset) with hash \(recorded), but no line of the log starts there any more")
                }
                if line.hash.a != prefix { return HistoryRewrite(cache: record.cache, seq: line.seq, recorded: recorded, found: line.hash.hex) }
            case .streamLine(let seq, let category, let id):
                let stream = category.stream(id.uuidString)
                guard let line, line.seq == seq, line.stream == stream else {
                    let found = line.map { "line \($0.seq) of \($0.stream)" } ?? "no line starting"
                    return HistoryRewrite(cache: record.cache, seq: seq, recorded: stream, found: found,
                                          detail: "recorded line \(seq) of \(stream) starting at byte \(record.offset), but the log has \(found) there")
                }
            }
        }
        return nil
    }

    /// What the log holds at a recorded offset.
    enum Found {
        /// The byte before it is no newline: no line starts there.
        case notALineStart
        /// A line starts there but has no newline before the end: the log's unfinished tail.
        case unfinished
        /// A whole line that does not decode: damage.
        case undecodable
        /// A line: its seq, stream and stated hash.
        case line(seq: Int, stream: String, hash: Digest32)
    }

    /// What the log holds at `offset`, reading no further than `end`.
    static func line(in log: FileDescriptor, at offset: Int, before end: Int) -> Found {
        if offset > 0 {
            var previous: UInt8 = 0
            guard (try? log.read(into: &previous, count: 1, at: offset - 1)) == 1, previous == 0x0A else { return .notALineStart }
        }
        let count = min(end - offset, 1 << 16)
        var bytes = [UInt8](repeating: 0, count: count)
        let n = bytes.withUnsafeMutableBytes { (try? log.read(into: $0.baseAddress!, count: count, at: offset)) ?? 0 }
        guard let newline = bytes.prefix(n).firstIndex(of: 0x0A) else { return .unfinished }
        return bytes.withUnsafeBufferPointer { all -> Found in
            guard let (envelope, _) = try? LineCodec.decode(UnsafeBufferPointer(rebasing: all[0..<newline]), lineNumber: 0),
                  let hash = Digest32(hex: envelope.hash) else { return .undecodable }
            return .line(seq: envelope.seq, stream: envelope.stream, hash: hash)
        }
    }
}
