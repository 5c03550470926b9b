import Foundation
import Glibc
import LedgerDomain
import LedgerKit

// MARK: - Temporary directories

/// Creates a unique folder under `/tmp`, passes its path to `body`, and removes it afterwards.
func withTempDirectory<T>(_ label: String = "ledger-test", _ body: (String) throws -> T) throws -> T {
    var template = Array("/tmp/\(label)-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    guard made != nil else { throw SystemTestError("mkdtemp failed: \(String(cString: strerror(errno)))") }
    let path = String(decoding: template.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try body(path)
}

/// A unique folder under `/tmp` for a test that cannot pass a closure (an `async` one): removed by `remove()`.
struct TemporaryFolder: Sendable {
    /// The folder's path.
    let path: String

    /// Makes `/tmp/<label>-XXXXXX`.
    init(_ label: String) throws {
        var template = Array("/tmp/\(label)-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else { throw SystemTestError("mkdtemp failed: \(String(cString: strerror(errno)))") }
        path = String(decoding: template.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Removes the folder and everything in it.
    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// A failure of the test harness itself (not of the code under test).
struct SystemTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

// MARK: - Small file helpers

/// The bytes of the file at `path`.
func readBytes(_ path: String) throws -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: path) else { throw SystemTestError("cannot read \(path)") }
    return [UInt8](data)
}

/// The UTF-8 text of the file at `path`.
func readText(_ path: String) throws -> String {
    String(decoding: try readBytes(path), as: UTF8.self)
}

/// Writes `bytes` to `path`, replacing it.
func writeBytes(_ bytes: [UInt8], to path: String) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// The lines of a log file, each with its final newline, plus any unterminated tail as a last element.
func splitLines(_ bytes: [UInt8]) -> [[UInt8]] {
    var lines: [[UInt8]] = []
    var current: [UInt8] = []
    for byte in bytes {
        current.append(byte)
        if byte == 0x0A { lines.append(current); current = [] }
    }
    if !current.isEmpty { lines.append(current) }
    return lines
}

/// Damages line `i` (0-based) of the log at `path` in place: flips one byte inside its data, so the
/// line no longer hashes to its declared hash.
func damageLine(_ path: String, line i: Int) throws {
    var lines = splitLines(try readBytes(path))
    let at = lines[i].lastIndex(of: UInt8(ascii: "{"))! + 2
    lines[i][at] = lines[i][at] == UInt8(ascii: "x") ? UInt8(ascii: "y") : UInt8(ascii: "x")
    try writeBytes(lines.flatMap { $0 }, to: path)
}

/// Edits line `i` (0-based) of the log at `path` in place, as `rehashed` does.
func editLine(_ path: String, line i: Int, _ edit: (String) -> String) throws {
    var lines = splitLines(try readBytes(path))
    lines[i] = try rehashed(String(decoding: lines[i], as: UTF8.self), edit)
    try writeBytes(lines.flatMap { $0 }, to: path)
}

/// `line` with its hashed body (its text before `,"hash":"`) rewritten by `edit` and the hash of the
/// new body, with a newline: it checks alone, and only the next line's `prev` shows the edit (as an
/// editor who recomputes one hash leaves it).
func rehashed(_ line: String, _ edit: (String) -> String) throws -> [UInt8] {
    guard let marker = line.range(of: #","hash":""#) else { throw SystemTestError("not a log line: \(line)") }
    let body = edit(String(line[..<marker.lowerBound]))
    return LineCodec.line(body: Array(body.utf8), hash: SHA256.hex(body))
}
