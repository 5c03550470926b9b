import Glibc
import LedgerDomain

// MARK: - FileEventStore streams through the index

extension FileEventStore {
    /// Every event of `stream`, read at the offsets the writers' index gives for its first and last
    /// lines (and the lines between, when it has more than two), under the exclusive lock after the
    /// index has caught up with the log. Each line read must decode, hash to its declared hash, belong
    /// to the stream and check as an event, and the count and last seq must be the index's; when
    /// anything disagrees, or there is no index file, the whole log is read (`readStream`).
    public func readIndexedStream(_ stream: String) throws -> [RecordedEvent] {
        let found = try withLogCaughtUpAsWriter { log -> [RecordedEvent]? in
            guard let lines = prefix.lines(of: stream) else { return nil }
            return Self.events(of: stream, at: lines, in: log, end: prefix.verifiedSize, opener: keyRing)
        }
        guard let found else { return [] }  // no log
        // Outside the exclusive lock: the whole-log read takes the shared one.
        return try found ?? readStream(stream)
    }

    /// Lines read beyond this many bytes between a stream's first and last line go to the whole-log read instead.
    private static let spanLimit = 64 << 20

    /// The events of `stream` at `lines`, or nil when a line disagrees with the index.
    private static func events(of stream: String, at lines: WritersIndex.StreamLines, in log: FileDescriptor,
                               end: Int, opener: any PersonalDataOpener) -> [RecordedEvent]? {
        guard lines.count > 0 else { return [] }
        guard lines.first >= 0, lines.first <= lines.last, lines.last < end else { return nil }
        var out: [RecordedEvent] = []
        if lines.count <= 2 {
            for offset in lines.count == 1 ? [lines.first] : [lines.first, lines.last] {
                guard let bytes = try? line(in: log, at: offset, end: end), let event = event(bytes, of: stream, opener: opener) else { return nil }
                out.append(event)
            }
        } else {
            // The lines from the first to the last: pick the stream's.
            guard let lastLine = try? line(in: log, at: lines.last, end: end), lines.last - lines.first <= spanLimit,
                  let span = try? bytes(of: log, at: lines.first, count: lines.last + lastLine.count + 1 - lines.first) else { return nil }
            let needle = Array(#","stream":"\#(stream)","#.utf8)
            var start = 0
            while start < span.count {
                let newline = span[start...].firstIndex(of: 0x0A) ?? span.count
                let bytes = Array(span[start..<newline])
                if contains(bytes, needle) {
                    guard let event = event(bytes, of: stream, opener: opener) else { return nil }
                    out.append(event)
                }
                start = newline + 1
            }
        }
        guard out.count == lines.count, out.last?.seq == lines.lastSeq,
              zip(out, out.dropFirst()).allSatisfy({ $0.seq < $1.seq }) else { return nil }
        return out
    }

    /// The line starting at `offset` (without its newline), read up to `end` at most.
    static func line(in log: FileDescriptor, at offset: Int, end: Int) throws -> [UInt8]? {
        var want = 4096
        while true {
            let bytes = try bytes(of: log, at: offset, count: min(want, end - offset))
            if let newline = bytes.firstIndex(of: 0x0A) { return Array(bytes[..<newline]) }
            guard offset + bytes.count < end, bytes.count == min(want, end - offset) else { return nil }
            want *= 4
        }
    }

    /// The event of one line of `stream`, checked alone (decodes, hashes to its declared hash, is a
    /// valid event of that stream); nil otherwise.
    private static func event(_ line: [UInt8], of stream: String, opener: any PersonalDataOpener) -> RecordedEvent? {
        checkedEvent(line, opener: opener).flatMap { $0.stream == stream ? $0 : nil }
    }

    /// The event of one line, checked alone: it decodes, hashes to its declared hash and is a valid
    /// event; nil otherwise.
    static func checkedEvent(_ line: [UInt8], opener: any PersonalDataOpener) -> RecordedEvent? {
        line.withUnsafeBufferPointer { all -> RecordedEvent? in
            guard let (envelope, bodyLength) = try? LineCodec.decode(all, lineNumber: 0),
                  SHA256.hex(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: all[0..<bodyLength]))) == envelope.hash,
                  case .event(let event) = ChainChecker.prepare(envelope, opener: opener) else { return nil }
            return RecordedEvent(envelope: envelope, event: event)
        }
    }

    /// True when `needle` occurs in `bytes`.
    private static func contains(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, needle.count <= bytes.count else { return false }
        var at = 0
        while at + needle.count <= bytes.count {
            if bytes[at] == first && bytes[at..<(at + needle.count)].elementsEqual(needle) { return true }
            at += 1
        }
        return false
    }
}
