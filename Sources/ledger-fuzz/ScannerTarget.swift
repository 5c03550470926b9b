import Glibc
import LedgerDomain
import LedgerKit

// MARK: - ScannerTarget

/// Writes several decoder inputs as one log file and scans it with `LogScanner`: every byte of the file
/// must belong to exactly one item, in order; only an unterminated last item may be a torn tail; the bytes handed out
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
        var expectedOffset = 0, items = 0, sawTorn = false
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
                case .tornTail(_, let o, let l): (offset, length, torn) = (o, l, true)
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
        let newlines = file.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        let expectedItems = newlines + (file.last.map { $0 == 0x0A ? 0 : 1 } ?? 0)
        if items != expectedItems { failures.append("\(items) items for \(expectedItems) lines") }
        if let last = file.last, last != 0x0A, !sawTorn { failures.append("an unterminated last line not reported as torn") }
        if file.last == 0x0A, sawTorn { failures.append("a complete (newline-terminated) last line reported as torn") }
        return failures
    }
}
