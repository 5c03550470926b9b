import Glibc
import LedgerKit

// MARK: - Files

/// File chores around the timings: warming the page cache, copying a log durably, removing scratch folders.
enum Files {
    /// Reads `path` once from start to end so later runs find it in the page cache; returns its size.
    @discardableResult
    static func warm(_ path: String) throws -> Int {
        let file = try FileDescriptor(path: path, flags: O_RDONLY)
        var buffer = [UInt8](repeating: 0, count: 8 << 20)
        var offset = 0
        while true {
            let n = try buffer.withUnsafeMutableBytes { (raw) throws -> Int in try file.read(into: raw.baseAddress!, count: raw.count, at: offset) }
            if n == 0 { return offset }
            offset += n
        }
    }

    /// Copies `source` to `destination` and fsyncs the copy, so its writeback is not timed later.
    static func copy(_ source: String, to destination: String) throws {
        let input = try FileDescriptor(path: source, flags: O_RDONLY)
        let output = try FileDescriptor(path: destination, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600)
        var buffer = [UInt8](repeating: 0, count: 8 << 20)
        var offset = 0
        while true {
            let n = try buffer.withUnsafeMutableBytes { (raw) throws -> Int in try input.read(into: raw.baseAddress!, count: raw.count, at: offset) }
            if n == 0 { break }
            try buffer.withUnsafeBytes { (raw) throws in try output.write(UnsafeRawBufferPointer(rebasing: raw[0..<n]), at: offset) }
            offset += n
        }
        try output.sync()
        try FileSystem.syncDirectory(FileSystem.directoryName(destination))
    }

    /// Removes `path` and everything under it (a scratch folder this tool made).
    static func removeTree(_ path: String, scratch: String) throws {
        guard FileSystem.exists(path) else { return }
        let result = try Subprocess.run("/bin/rm", ["-rf", "--", path], scratch: scratch)
        guard result.status == 0 else { throw BenchError.failed("rm -rf \(path) failed: \(result.stderr)") }
    }

    /// The folder holding this executable (where `swift build` also put `ledger`).
    static func executableDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return "." }
        return FileSystem.directoryName(String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
}
