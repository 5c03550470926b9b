import Glibc
import LedgerDomain

// MARK: - ScanItem

/// One line of a log as the scanner saw it, with its byte range in the file.
public enum ScanItem {
    /// A line that verified: the typed event.
    case event(RecordedEvent, offset: Int, length: Int)
    /// A complete line with a problem (damage, not a torn write).
    case problem(LogProblem, offset: Int, length: Int)
    /// The incomplete last line of the file: an unacknowledged write.
    case tornTail(LogProblem, offset: Int, length: Int)
}

// MARK: - LogScanner

/// Streams a log file in large chunks, decoding and verifying every line (JSON, hash, chain, schema).
/// Memory holds one chunk (or one line, if longer) plus the checker's id set.
public enum LogScanner {
    /// Bytes read per call.
    public static let chunkSize = 1 << 20

    /// Scans `file` from byte `offset`, continuing `checker`, calling `body` per line until it returns false.
    public static func scan(_ file: FileDescriptor, from offset: Int = 0, checker: inout ChainChecker,
                            _ body: (ScanItem) -> Bool) throws {
        try scanLines(file, from: offset, checker: &checker) { item, _ in body(item) }
    }

    /// Like `scan`, also passing each line's raw bytes (without the newline).
    public static func scanLines(_ file: FileDescriptor, from offset: Int = 0, checker: inout ChainChecker,
                                 _ body: (ScanItem, UnsafeBufferPointer<UInt8>) -> Bool) throws {
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        var base = offset  // file offset of buffer[0]
        var start = 0, end = 0
        var eof = false
        while true {
            if !eof {
                if start > 0 {
                    buffer.withUnsafeMutableBytes { raw in
                        _ = memmove(raw.baseAddress!, raw.baseAddress! + start, end - start)
                    }
                    base += start; end -= start; start = 0
                }
                if end == buffer.count { buffer.append(contentsOf: repeatElement(0, count: buffer.count)) }
                let n = try buffer.withUnsafeMutableBytes { (raw) throws -> Int in
                    try file.read(into: raw.baseAddress! + end, count: raw.count - end, at: base + end)
                }
                if n == 0 { eof = true } else { end += n }
            }
            let keepGoing = buffer.withUnsafeBufferPointer { all -> Bool in
                while start < end {
                    guard let found = memchr(all.baseAddress! + start, 0x0A, end - start) else { break }
                    let newline = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - all.baseAddress!
                    if newline + 1 == end && !eof { return true }  // need to know whether it is the last line
                    let line = UnsafeBufferPointer(rebasing: all[start..<newline])
                    let item = decode(line, offset: base + start, terminated: true, last: newline + 1 == end, checker: &checker)
                    start = newline + 1
                    if !body(item, line) { return false }
                }
                if eof && start < end {
                    let line = UnsafeBufferPointer(rebasing: all[start..<end])
                    let item = decode(line, offset: base + start, terminated: false, last: true, checker: &checker)
                    start = end
                    return body(item, line)
                }
                return true
            }
            if !keepGoing || (eof && start >= end) { return }
        }
    }

    /// Decodes and verifies one line (without its newline).
    static func decode(_ line: UnsafeBufferPointer<UInt8>, offset: Int, terminated: Bool, last: Bool,
                       checker: inout ChainChecker) -> ScanItem {
        let length = line.count + (terminated ? 1 : 0)
        let number = checker.lines + 1
        guard terminated else {
            return .tornTail(LogProblem(line: number, kind: .tornTail, message: "the last line has no final newline: an incomplete write (\(line.count) bytes)"), offset: offset, length: length)
        }
        do throws(LogProblem) {
            let (envelope, bodyLength) = try LineCodec.decode(line, lineNumber: number)
            let hash = SHA256.hex(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: line[0..<bodyLength])))
            do throws(LogProblem) {
                return .event(try checker.check(envelope, bodyHash: hash), offset: offset, length: length)
            } catch {
                return .problem(error, offset: offset, length: length)
            }
        } catch {
            // A torn tail is always the last item, so the checker need not count it.
            if last && error.kind == .invalidJSON && !isJSONObjectShaped(line) {
                return .tornTail(LogProblem(line: number, kind: .tornTail, message: "the last line is not a complete JSON line: an incomplete write"), offset: offset, length: length)
            }
            checker.skipUndecodable()
            return .problem(error, offset: offset, length: length)
        }
    }

    /// True when the bytes parse as JSON at all (then a bad last line is damage, not a torn write).
    private static func isJSONObjectShaped(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        (try? JSONReader.parse(line)) != nil
    }
}
