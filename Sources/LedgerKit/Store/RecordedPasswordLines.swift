import Glibc
import LedgerDomain

// MARK: - RecordedPasswordLines

/// The password lines the writers' index recorded (`events.jsonl.index` and its durable checkpoint):
/// for each account, where its password line starts and the first 8 bytes of that line's hash, as
/// `login` trusts them. A line a log only ever gains is never changed, so one of these that the log
/// still reaches with another hash (or where no line starts any more) proves a rewrite, also when
/// the index's own header names a line past the log's end (the tail dropped after the rewrite) and
/// would otherwise be taken for stale. Read only on the way to dropping a cache, and by `verify`.
enum RecordedPasswordLines {
    /// One account slot's record.
    struct Record {
        /// The index file that holds it.
        var cache: String
        /// Where the line starts in the log.
        var offset: Int
        /// The first 8 bytes of the line's hash (`Digest32.a`).
        var hashPrefix: UInt64
    }

    /// The records of the live index and of its checkpoint beside the log at `logPath`.
    static func of(logPath: String) -> [Record] {
        let index = logPath + ".index"
        return records(in: index) + records(in: WritersIndex.checkpointPath(forIndex: index))
    }

    /// The account slots' records of the index file at `path` (the checkpoint's trailer after its
    /// slots is not read); none when it is no index of this format.
    private static func records(in path: String) -> [Record] {
        guard let file = try? FileDescriptor(path: path, flags: O_RDONLY | O_NOFOLLOW), let size = try? file.size(),
              size > WritersIndex.headerSize, let base = WritersIndex.anonymousMapping(size: size) else { return [] }
        let table = WritersIndex(path: "", fd: -1, base: base, mappedSize: size, inode: (0, 0))  // unmaps it when done
        guard (try? file.read(into: base, count: size, at: 0)) == size else { return [] }
        guard table.hasMagic else { return [] }
        let capacity = Int(table[header: WritersIndex.Header.capacity])
        guard capacity > 0, capacity <= (size - WritersIndex.headerSize) / WritersIndex.Slot.size else { return [] }
        var found: [Record] = []
        for n in 0..<capacity {
            let slot = WritersIndex.headerSize + n * WritersIndex.Slot.size
            guard table[slot, WritersIndex.Slot.tag] == WritersIndex.Tag.account.rawValue else { continue }
            let offset = Int(table[slot, WritersIndex.AccountSlot.createdLine])
            guard offset >= 0 else { continue }
            found.append(Record(cache: path, offset: offset, hashPrefix: table[slot, WritersIndex.AccountSlot.createdLineHash]))
        }
        return found
    }

    /// The first rewrite the records of `logPath`'s index prove against `log`, whose intact part
    /// ends at byte `end`: a record inside it where no line starts, or whose line has another hash.
    static func rewrite(logPath: String, log: FileDescriptor, intactEnd end: Int) -> HistoryRewrite? {
        for record in of(logPath: logPath) where record.offset < end {
            let recorded = String(repeating: "0", count: 16 - String(record.hashPrefix, radix: 16).count)
                + String(record.hashPrefix, radix: 16) + "…"
            guard let line = line(in: log, at: record.offset, before: end) else {
                return HistoryRewrite(cache: record.cache, seq: 0, recorded: recorded, found: "", offset: record.offset)
            }
            if line.hash.a != record.hashPrefix {
                return HistoryRewrite(cache: record.cache, seq: line.seq, recorded: recorded, found: line.hash.hex)
            }
        }
        return nil
    }

    /// The seq and stated hash of the line starting at `offset` (after a newline, or at 0), ending
    /// before `end`; nil when no line of the log starts there.
    private static func line(in log: FileDescriptor, at offset: Int, before end: Int) -> (seq: Int, hash: Digest32)? {
        if offset > 0 {
            var previous: UInt8 = 0
            guard (try? log.read(into: &previous, count: 1, at: offset - 1)) == 1, previous == 0x0A else { return nil }
        }
        let count = min(end - offset, 1 << 16)
        var bytes = [UInt8](repeating: 0, count: count)
        let n = bytes.withUnsafeMutableBytes { (try? log.read(into: $0.baseAddress!, count: count, at: offset)) ?? 0 }
        guard let newline = bytes.prefix(n).firstIndex(of: 0x0A) else { return nil }
        return bytes.withUnsafeBufferPointer { all -> (seq: Int, hash: Digest32)? in
            guard let (envelope, _) = try? LineCodec.decode(UnsafeBufferPointer(rebasing: all[0..<newline]), lineNumber: 0),
                  let hash = Digest32(hex: envelope.hash) else { return nil }
            return (envelope.seq, hash)
        }
    }
}
