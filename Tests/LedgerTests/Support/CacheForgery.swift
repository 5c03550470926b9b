import LedgerDomain
import LedgerKit
import Testing

// MARK: - CacheForgery

/// What someone with write access to the data directory can do to the caches beside a log without
/// touching the log: a checkpoint of views folded from edited events, sealed as ledger seals one,
/// and a stream slot of the writers' index shortened in place.
enum CacheForgery {
    /// Saves, with the library's own writer, a checkpoint of the views the log's envelopes give once
    /// `edit` has changed them, claiming the log's real head, event count and ids: a re-sealed checkpoint.
    /// `adjust` changes the views last, before they are saved.
    static func checkpoint(_ dir: LedgerDir, edit: ([Envelope]) -> [Envelope], adjust: (inout LedgerViews) -> Void = { _ in }) throws {
        let bytes = try dir.logBytes()
        let real = try LogRewriting.envelopes(bytes)
        var views = LedgerViews()
        for envelope in edit(real) {
            guard case .event(let event) = ChainChecker.prepare(envelope) else { throw SystemTestError("an edited envelope does not check") }
            views.apply(RecordedEvent(envelope: envelope, event: event))
        }
        let last = try #require(real.last)
        views.head = Head(seq: last.seq, hash: last.hash)
        views.events = real.count
        adjust(&views)
        let lastLine = try #require(splitLines(bytes).last)
        Checkpoint(views: views, ids: try LogRewriting.fingerprints(ofLog: dir.logPath), lineStart: bytes.count - lastLine.count,
                   offset: bytes.count).save(forLog: dir.logPath)
        #expect(FileSystem.exists(Checkpoint.path(forLog: dir.logPath)))
    }

    /// Edits the writers' index's slot of `stream` so that it says the stream ends at its `keep`-th
    /// line: its count, last line and seq as if the lines after never were (the header left as it is).
    static func shortenStream(_ dir: LedgerDir, _ stream: String, keeping keep: Int) throws {
        let path = dir.logPath + ".index"
        var index = try readBytes(path)
        let lines = splitLines(try dir.logBytes())
        var offset = 0
        var mine: [(offset: Int, seq: Int)] = []
        for (n, line) in lines.enumerated() {
            let envelope = try Array(line.dropLast()).withUnsafeBufferPointer { try LineCodec.decode($0, lineNumber: n + 1).0 }
            if envelope.stream == stream { mine.append((offset, envelope.seq)) }
            offset += line.count
        }
        #expect(keep >= 1 && keep < mine.count, "the stream has \(mine.count) lines")
        let (category, id) = try #require(StreamName.parse(stream))
        let key = try #require(UUIDBits(uuid: id))
        // WritersIndex's layout: a 4096-byte header, then 48-byte slots: the tag, the count (UInt32 at
        // +4), the key (high, low at +8), the first and last line's offsets (+24, +32), the seq (+40).
        let tag: UInt8 = category == .registration ? 1 : category == .account ? 10 : 2
        let slot = try #require(stride(from: 4096, to: index.count, by: 48).first { at in
            index[at] == tag && index.withUnsafeBytes {
                $0.loadUnaligned(fromByteOffset: at + 8, as: UInt64.self) == key.high && $0.loadUnaligned(fromByteOffset: at + 16, as: UInt64.self) == key.low
            }
        }, "no slot for \(stream)")
        index.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: UInt32(keep), toByteOffset: slot + 4, as: UInt32.self)
            raw.storeBytes(of: Int64(mine[keep - 1].offset), toByteOffset: slot + 32, as: Int64.self)
            raw.storeBytes(of: Int64(mine[keep - 1].seq), toByteOffset: slot + 40, as: Int64.self)
        }
        try writeBytes(index, to: path)
    }
}
