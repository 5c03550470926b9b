import Glibc
import LedgerDomain

// MARK: - WitnessSizes

/// The log's record of the size each witness last cosigned, what `ledger head --key` sends as
/// `old N`: a small text file beside the log (`events.jsonl.witnesses`), one line per witness,
/// `ID SIZE`, ID the SHA-256 (hex) of the `LEDGER_WITNESS` command line. Only a hint: a witness
/// holding another size answers with it (`size-conflict`) and is asked again from there, so a
/// missing, stale or damaged file costs one more round trip, never a wrong cosignature. Read only
/// as a regular file (never through a symbolic link), at most `maxBytes`; replaced atomically
/// (temporary file, fsync, rename, fsync the folder).
public struct WitnessSizes {
    /// The largest file read: far more than the lines of the few witnesses a log has.
    public static let maxBytes = 65_536

    /// The file's path.
    public let path: String

    /// The record at `path`.
    public init(path: String) { self.path = path }

    /// The record beside the log file at `logPath`.
    public static func path(forLog logPath: String) -> String { logPath + ".witnesses" }

    /// The witness id of `command`: the SHA-256 of its bytes, in hex.
    public static func id(ofCommand command: String) -> String { SHA256.hex(Array(command.utf8)) }

    /// The sizes recorded, by witness id; lines that do not parse are left out. A missing file, or
    /// one over `maxBytes` (no record ledger writes; only a hint), is an empty record; a symbolic
    /// link throws `SystemError`.
    public func load() throws -> [String: UInt64] {
        guard FileSystem.exists(path) else { return [:] }
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.read(path, limit: Self.maxBytes)
        } catch let error as SystemError where error.code == EFBIG {
            return [:]
        }
        var sizes: [String: UInt64] = [:]
        for line in bytes.split(separator: 0x0A) {
            let parts = line.split(separator: 0x20)
            guard parts.count == 2, parts[0].count == 64, parts[0].allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
                  (1...20).contains(parts[1].count), parts[1].allSatisfy({ (0x30...0x39).contains($0) }),
                  let size = UInt64(String(decoding: parts[1], as: UTF8.self)) else { continue }
            sizes[String(decoding: parts[0], as: UTF8.self)] = size
        }
        return sizes
    }

    /// The size the witness `id` last cosigned; 0 when none is recorded.
    public func size(of id: String) throws -> UInt64 { try load()[id] ?? 0 }

    /// Records that the witness `id` cosigned `size`, keeping the other witnesses' lines.
    public func record(_ size: UInt64, for id: String) throws {
        var sizes = try load()
        sizes[id] = size
        let text = sizes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)\n" }.joined()
        try FileSystem.writeAtomically(Array(text.utf8), to: path, mode: 0o644)
    }
}
