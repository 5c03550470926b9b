import Glibc
import LedgerDomain

// MARK: - ErasureLine

/// An erasure a cache records (a views checkpoint's account changes, the writers' index's last
/// erasures), looked up in the log itself before anything is done because of it: the line with
/// the recorded seq must be an erasure event of the recorded subject whose body hashes to its own
/// hash. A cache only says where to look; a forged record that names a live subject, or a seq
/// past the log, is never taken for an erasure. A few `pread`s: the line at a known offset, or
/// one found by bisecting the log on the seq each line starts with (`{"seq":N,`, as ledger writes
/// it); a log spelled otherwise is not searched, and the record is not taken.
enum ErasureLine {
    /// The longest line read (an erasure event is a few hundred bytes).
    private static let longestLine = 1 << 16
    /// Bytes read to find where a line starts.
    private static let probe = 4096

    /// True when the line of `log` (`size` bytes) at `offset` — or, without it, the line whose
    /// seq is `erasure.seq` — is the erasure of `erasure.subject` at that seq, its hash holding.
    static func holds(_ erasure: RecordedErasure, in log: FileDescriptor, size: Int, at offset: Int? = nil) -> Bool {
        guard erasure.seq > 0, let start = offset ?? lineStart(seq: erasure.seq, in: log, size: size),
              start >= 0, start < size, let line = bytes(of: log, at: start, count: min(longestLine, size - start)),
              let end = line.firstIndex(of: 0x0A) else { return false }
        return line[..<end].withUnsafeBufferPointer { holds(erasure, line: $0) }
    }

    /// True when `line` (without its newline) is the erasure of `erasure.subject` at `erasure.seq`,
    /// its hash holding.
    static func holds(_ erasure: RecordedErasure, line: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let (envelope, bodyLength) = try? LineCodec.decode(line, lineNumber: erasure.seq), envelope.seq == erasure.seq,
              SHA256.hex(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: line[0..<bodyLength]))) == envelope.hash,
              let type = EventType(rawValue: envelope.type),
              let event = try? LedgerEvent.decode(type: type, data: envelope.data) else { return false }
        return event.erasedSubject == erasure.subject
    }

    /// Where the line whose seq is `target` starts, found by bisection (lines are numbered from 1
    /// in order); nil when a line on the way does not start with its seq, or there is none.
    static func lineStart(seq target: Int, in log: FileDescriptor, size: Int) -> Int? {
        var low = 0, high = size  // `low` starts a line whose seq is at most the target's; the target starts before `high`
        for _ in 0..<128 {
            guard let seq = seq(at: low, in: log, size: size), seq <= target else { return nil }
            if seq == target { return low }
            let middle = low + (high - low) / 2
            if let start = nextLineStart(after: middle, in: log, size: size), start > low, start < high {
                guard let found = self.seq(at: start, in: log, size: size) else { return nil }
                if found <= target { low = start } else { high = start }
            } else {
                // No line starts in the upper half: step one line on.
                guard let next = nextLineStart(after: low, in: log, size: size), next < high else { return nil }
                low = next
            }
        }
        return nil
    }

    /// The seq the line at `start` begins with (`{"seq":N`), nil when it begins otherwise.
    private static func seq(at start: Int, in log: FileDescriptor, size: Int) -> Int? {
        let prefix = Array(#"{"seq":"#.utf8)
        guard let head = bytes(of: log, at: start, count: min(32, size - start)), head.starts(with: prefix) else { return nil }
        var value = 0, digits = 0
        for byte in head.dropFirst(prefix.count) {
            guard byte >= 0x30, byte <= 0x39 else { break }
            guard digits < 18 else { return nil }
            value = value * 10 + Int(byte - 0x30)
            digits += 1
        }
        return digits > 0 ? value : nil
    }

    /// The start of the first line that begins after byte `offset` (just past the next newline at
    /// or after it), looked for in the next `longestLine` bytes.
    private static func nextLineStart(after offset: Int, in log: FileDescriptor, size: Int) -> Int? {
        var at = offset
        while at < size, at - offset < longestLine {
            guard let chunk = bytes(of: log, at: at, count: min(probe, size - at)) else { return nil }
            if let newline = chunk.firstIndex(of: 0x0A) { return at + newline + 1 < size ? at + newline + 1 : nil }
            at += chunk.count
        }
        return nil
    }

    /// `count` bytes of `log` at `offset` (fewer at its end); nil when nothing could be read.
    private static func bytes(of log: FileDescriptor, at offset: Int, count: Int) -> [UInt8]? {
        guard count > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: count)
        let n = buffer.withUnsafeMutableBytes { (try? log.read(into: $0.baseAddress!, count: count, at: offset)) ?? 0 }
        guard n > 0 else { return nil }
        buffer.removeLast(count - n)
        return buffer
    }
}
