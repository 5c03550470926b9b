import Glibc
import LedgerKit

// MARK: - ScratchSpace

/// A temp folder for one run of the CLI, created on first use and removed with everything in it
/// when the last copy of the context goes away. Holds the copy of a log read from standard input
/// (a pipe cannot be seeked or mapped: it is read once, as a stream).
public final class ScratchSpace {
    private var folder: String?
    private var copies: [String: String] = [:]

    /// An empty scratch space (no folder yet).
    public init() {}

    deinit {
        guard let folder else { return }
        // The copy and whatever a read keeps beside a log (the views checkpoint, the tree state).
        for path in copies.values { for suffix in ["", ".checkpoint", ".tree"] { unlink(path + suffix) } }
        rmdir(folder)
    }

    /// The path of a file holding everything on standard input up to its end, made once per run.
    public func copyOfStandardInput() throws -> String {
        if let path = copies["-"] { return path }
        let folder = try self.folder ?? makeFolder()
        let path = FileSystem.join(folder, "stdin.jsonl")
        copies["-"] = path
        let file = try FileDescriptor(path: path, flags: O_WRONLY | O_CREAT | O_TRUNC)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var offset = 0
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(0, $0.baseAddress!, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n >= 0 else { throw SystemError("read", path: "standard input") }
            if n == 0 { return path }
            try buffer.withUnsafeBytes { try file.write(UnsafeRawBufferPointer(rebasing: $0.prefix(n)), at: offset) }
            offset += n
        }
    }

    private func makeFolder() throws -> String {
        var template = Array("/tmp/ledger-scratch-XXXXXX".utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else { throw SystemError("mkdtemp", path: "/tmp") }
        let made = String(decoding: template.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        folder = made
        return made
    }
}
