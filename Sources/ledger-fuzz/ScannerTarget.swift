import Glibc
import LedgerDomain
import LedgerKit

// MARK: - ScannerTarget

/// Writes several decoder inputs as one log file and scans it with `LogScanner`: every byte of the file
/// must belong to exactly one item, in order; only an unterminated last item, or a batch cut short at the end
/// (complete lines, the last one `[k,n]` with k < n: one torn item), may be a torn tail; the bytes handed out
/// per line must be the file's.
final class ScannerTarget {
    private let fd: Int32
    private let path: String

    /// A scratch file in `$TMPDIR` (or `/tmp`), unlinked at once and scanned through its descriptor.
    init() throws {
        var template = Array("\(Self.temporaryDirectory)/ledger-fuzz-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw SystemError("mkstemp", path: Self.temporaryDirectory) }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        self.fd = fd
        path = "/proc/self/fd/\(fd)"
    }

    deinit { close(fd) }

    private static var temporaryDirectory: String {
        guard let value = getenv("TMPDIR"), value.pointee != 0 else { return "/tmp" }
        return String(cString: value)
    }

    /// Scans `lines` joined by newlines (with a final newline when `terminated`); returns broken invariants.
    func run(_ lines: [[UInt8]], terminated: Bool, stats: inout DecoderStats) -> [String] {
        var file = Array(lines.joined(separator: [0x0A]))
        if terminated && !file.isEmpty { file.append(0x0A) }
        guard ftruncate(fd, 0) == 0, file.withUnsafeBytes({ pwrite(fd, $0.baseAddress, $0.count, 0) }) == file.count else {
            return ["cannot write the scratch file: \(String(cString: strerror(errno)))"]
        }
        stats.scans += 1
        var failures: [String] = []
        var expectedOffset = 0, items = 0, sawTorn = false, tornOffset: Int?
        var checker = ChainChecker()
        do {
            let descriptor = try FileDescriptor(duplicating: fd, path: path)
            try LogScanner.scanLines(descriptor, checker: &checker) { item, line in
                items += 1
                let (offset, length, torn): (Int, Int, Bool)
                switch item {
                case .event(_, let o, let l): (offset, length, torn) = (o, l, false)
                case .problem(let problem, let o, let l):
                    (offset, length, torn) = (o, l, false)
                    if problem.kind == .tornTail { failures.append("a torn tail reported as an ordinary problem") }
                case .tornTail(_, let o, let l): (offset, length, torn) = (o, l, true); tornOffset = o
                }
                if sawTorn { failures.append("an item after the torn tail") }
                sawTorn = sawTorn || torn
                if offset != expectedOffset { failures.append("item \(items) starts at byte \(offset), not \(expectedOffset)") }
                if offset >= 0, offset + line.count <= file.count, !file[offset..<(offset + line.count)].elementsEqual(line) {
                    failures.append("item \(items): the line bytes are not the file's")
                }
                if length != line.count && length != line.count + 1 { failures.append("item \(items): length \(length) for a \(line.count)-byte line") }
                expectedOffset = offset + length
                return true
            }
        } catch {
            failures.append("scanning threw \(error)")
        }
        if expectedOffset != file.count { failures.append("the items cover \(expectedOffset) of \(file.count) bytes") }
        // A batch cut short is one torn item however many complete lines it has.
        let cutBatch = tornOffset.map { $0 >= 0 && $0 < file.count && file.last == 0x0A && Self.endsInsideABatch(file[$0...]) } ?? false
        let newlines = file[..<(cutBatch ? tornOffset! : file.count)].reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        let expectedItems = newlines + (cutBatch || file.last.map({ $0 != 0x0A }) == true ? 1 : 0)
        if items != expectedItems { failures.append("\(items) items for \(expectedItems) lines") }
        if let last = file.last, last != 0x0A, !sawTorn { failures.append("an unterminated last line not reported as torn") }
        if file.last == 0x0A, sawTorn, !cutBatch { failures.append("a complete (newline-terminated) last line reported as torn") }
        return failures
    }

    /// True when the last of `lines` (complete, newline-terminated) decodes with a `batch` mark that
    /// leaves its batch open: the log ends inside a batch (Events/README.md, Batches).
    private static func endsInsideABatch(_ lines: ArraySlice<UInt8>) -> Bool {
        let body = lines.dropLast()
        let last = Array(body[(body.lastIndex(of: 0x0A).map { $0 + 1 } ?? body.startIndex)...])
        let decoded = last.withUnsafeBufferPointer { try? LineCodec.decode($0, lineNumber: 1) }
        return decoded?.0.batch?.leavesBatchOpen == true
    }
}
