import Dispatch
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
                // The complete lines in the buffer; the last one waits for the next read unless the
                // file ends there (only then is it known to be the last line).
                var ranges: [Range<Int>] = []
                var cursor = start
                while cursor < end {
                    guard let found = memchr(all.baseAddress! + cursor, 0x0A, end - cursor) else { break }
                    let newline = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - all.baseAddress!
                    if newline + 1 == end && !eof { break }
                    ranges.append(cursor..<newline)
                    cursor = newline + 1
                }
                let prepared = prepare(all, ranges, firstLine: checker.lines + 1)
                for (range, line) in zip(ranges, prepared) {
                    let bytes = UnsafeBufferPointer(rebasing: all[range])
                    let item = finish(line, bytes, offset: base + range.lowerBound, last: range.upperBound + 1 == end, checker: &checker)
                    start = range.upperBound + 1
                    if !body(item, bytes) { return false }
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

    // MARK: - Lines

    /// A line decoded and hashed on its own, before the chain check.
    enum PreparedLine: Sendable {
        /// The envelope, the SHA-256 hex of its body and the line's own checks.
        case decoded(Envelope, hash: String, ChainChecker.Prepared)
        /// Not a v1 line at all.
        case undecodable(LogProblem)
    }

    /// Decodes and hashes one line (without its newline); `number` is its 1-based line number.
    static func prepare(_ line: UnsafeBufferPointer<UInt8>, number: Int) -> PreparedLine {
        do throws(LogProblem) {
            let (envelope, bodyLength) = try LineCodec.decode(line, lineNumber: number)
            let hash = SHA256.hex(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: line[0..<bodyLength])))
            return .decoded(envelope, hash: hash, ChainChecker.prepare(envelope))
        } catch {
            return .undecodable(error)
        }
    }

    /// Workers that prepare lines: the cores, at most 8.
    static let workers = max(1, min(8, sysconf(Int32(_SC_NPROCESSORS_ONLN))))

    /// Prepares `ranges` of `all`, spread over the cores when there are enough lines: decoding and
    /// hashing a line needs no other line; only the chain check after it is sequential.
    static func prepare(_ all: UnsafeBufferPointer<UInt8>, _ ranges: [Range<Int>], firstLine: Int) -> [PreparedLine] {
        let count = ranges.count
        guard workers > 1, count >= 256 else {
            return ranges.enumerated().map { prepare(UnsafeBufferPointer(rebasing: all[$0.element]), number: firstLine + $0.offset) }
        }
        var out = [PreparedLine?](repeating: nil, count: count)
        let parts = workers
        out.withUnsafeMutableBufferPointer { results in
            // Each worker writes its own index range of `results` and reads `all`, which outlives the call.
            nonisolated(unsafe) let slots = results
            nonisolated(unsafe) let bytes = all
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                let lower = count * part / parts, upper = count * (part + 1) / parts
                for i in lower..<upper {
                    slots[i] = prepare(UnsafeBufferPointer(rebasing: bytes[ranges[i]]), number: firstLine + i)
                }
            }
        }
        return out.map { $0! }
    }

    /// Checks a prepared complete line against the chain.
    static func finish(_ prepared: PreparedLine, _ line: UnsafeBufferPointer<UInt8>, offset: Int, last: Bool,
                       checker: inout ChainChecker) -> ScanItem {
        let length = line.count + 1
        switch prepared {
        case .decoded(let envelope, let hash, let checks):
            do throws(LogProblem) {
                return .event(try checker.check(envelope, bodyHash: hash, prepared: checks), offset: offset, length: length)
            } catch {
                return .problem(error, offset: offset, length: length)
            }
        case .undecodable(let error):
            // A torn tail is always the last item, so the checker need not count it.
            if last && error.kind == .invalidJSON && !isJSONObjectShaped(line) {
                return .tornTail(LogProblem(line: error.line, kind: .tornTail, message: "the last line is not a complete JSON line: an incomplete write"), offset: offset, length: length)
            }
            checker.skipUndecodable()
            return .problem(error, offset: offset, length: length)
        }
    }

    /// Decodes and verifies one line (without its newline).
    static func decode(_ line: UnsafeBufferPointer<UInt8>, offset: Int, terminated: Bool, last: Bool,
                       checker: inout ChainChecker) -> ScanItem {
        let number = checker.lines + 1
        guard terminated else {
            return .tornTail(LogProblem(line: number, kind: .tornTail, message: "the last line has no final newline: an incomplete write (\(line.count) bytes)"), offset: offset, length: line.count)
        }
        return finish(prepare(line, number: number), line, offset: offset, last: last, checker: &checker)
    }

    /// True when the bytes parse as JSON at all (then a bad last line is damage, not a torn write).
    private static func isJSONObjectShaped(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        (try? JSONReader.parse(line)) != nil
    }
}
