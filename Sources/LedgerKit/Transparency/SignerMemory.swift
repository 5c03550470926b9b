import Glibc
import LedgerDomain

// MARK: - SignerMemory

/// What a log key signed last, one head per origin, kept beside the key (`PREFIX.heads` for
/// `PREFIX.skey`), never in the data folder: whoever can write the data folder cannot make the key
/// forget a head and sign a fork of it. Each entry holds the signed note and the mark of the head's
/// last line (its seq and chain hash; on a file store also where the signer found it in the log),
/// and a MAC: the key's Ed25519 signature over a domain-separated text of the entry, which no note
/// text can be. Loading verifies every entry (the MAC and the note, with the key); anything else
/// than an absent file or entries that verify is `signer-memory-damaged`, never silently forgotten.
///
/// The file: a first line `ledger signer heads 1`, then one line per origin,
/// `ORIGIN64 SEQ HASH START END NOTE64 MAC64` (Base64 of the origin, of the note and of the MAC;
/// START END 0 0 when the log is a PostgreSQL store). Written as a temporary file, fsynced,
/// renamed over the old one, the folder fsynced; mode 0600; read only as a regular file.
public struct SignerMemory: Sendable {
    /// One origin's head signed last.
    public struct Entry: Equatable, Sendable {
        /// The origin line of the head.
        public let origin: String
        /// The signed note, as printed (cosignatures included).
        public let note: String
        /// The head's last line: seq (the signed size), chain hash, and where it lay in the log file.
        let mark: TreeMark
        /// The checkpoint the note holds (verified with the key when loaded).
        public let body: CheckpointBody
    }

    /// The memory file's path.
    public let path: String
    /// The entries, one per origin, in the order first signed.
    public private(set) var entries: [Entry]

    /// The file's first line.
    static let header = "ledger signer heads 1"
    /// The largest memory file read.
    static let maxBytes = 8 << 20
    /// What the MAC signs before an entry's fields: a NUL, so that no note text is ever this text.
    static let domain = Array("ledger signer memory v1".utf8) + [0]

    /// The memory of the key at `keyPath`: `PREFIX.heads` for `PREFIX.skey`, else `keyPath.heads`.
    public static func path(forKey keyPath: String) -> String {
        keyPath.hasSuffix(".skey") ? String(keyPath.dropLast(5)) + ".heads" : keyPath + ".heads"
    }

    /// The memory at `path` of `signer`'s heads: empty when the file is absent (the key has signed
    /// nothing yet); `signer-memory-damaged` when it does not parse or an entry does not verify.
    public static func load(path: String, signer: NoteSigner) throws -> SignerMemory {
        guard FileSystem.exists(path) else { return SignerMemory(path: path, entries: []) }
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.read(path, limit: maxBytes)
        } catch let error as SystemError where error.code == EFBIG {
            throw damaged(path, "it has more than \(maxBytes) bytes")
        } catch let error as SystemError {
            throw error.asFileRead
        }
        guard bytes.last == 0x0A, let text = String(validating: bytes, as: UTF8.self) else { throw damaged(path, "it is not lines of text") }
        let lines = text.dropLast().split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.first == Substring(header) else { throw damaged(path, "its first line is not `\(header)`") }
        var entries: [Entry] = []
        for (number, line) in lines.dropFirst().enumerated() {
            let entry = try parse(line, signer: signer, path: path, line: number + 2)
            guard !entries.contains(where: { $0.origin == entry.origin }) else { throw damaged(path, "line \(number + 2) repeats an origin") }
            entries.append(entry)
        }
        return SignerMemory(path: path, entries: entries)
    }

    /// The head signed last under `origin`, nil when the key never signed one.
    public func entry(origin: String) -> Entry? { entries.first { $0.origin == origin } }

    /// Records `note`, just signed with the root `checked` gave for `size` lines, as `origin`'s head
    /// signed last (in memory: `save` writes it).
    public mutating func record(note: String, origin: String, size: UInt64, checked: LogTree.SigningRoot) throws {
        precondition(checked.mark.head.seq == Int(size), "the mark of the line signed is at the size signed")
        record(origin: origin, note: note, body: try CheckpointBody(origin: origin, size: size, root: checked.root), mark: checked.mark)
    }

    /// Records `note` (its checkpoint `body`), whose last line is `mark`, as `origin`'s head signed last.
    mutating func record(origin: String, note: String, body: CheckpointBody, mark: TreeMark) {
        let entry = Entry(origin: origin, note: note, mark: mark, body: body)
        if let index = entries.firstIndex(where: { $0.origin == origin }) { entries[index] = entry } else { entries.append(entry) }
    }

    /// Writes the memory with every entry MACed by `signer`: temporary file, fsync, rename, fsync
    /// of the folder; mode 0600.
    public func save(signer: NoteSigner) throws {
        var text = Self.header + "\n"
        for entry in entries {
            let fields = Self.fields(entry)
            let mac = try signer.signRecord(Self.domain + Array(fields.utf8))
            text += fields + " " + Base64.encode(mac) + "\n"
        }
        try FileSystem.writeAtomically(Array(text.utf8), to: path, mode: 0o600)
    }

    /// Takes the exclusive lock of the memory at `path` (`PATH.lock`, waiting for another signing
    /// with this key to finish), held until the returned descriptor is released: no signing loses
    /// another's entry, and two signings of one origin run in turn.
    public static func lock(path: String) throws -> FileDescriptor {
        let file = try FileDescriptor(path: path + ".lock", flags: O_RDWR | O_CREAT, mode: 0o600)
        try file.lock(LOCK_EX)
        return file
    }

    /// The fields the MAC covers: `ORIGIN64 SEQ HASH START END NOTE64`.
    private static func fields(_ entry: Entry) -> String {
        let mark = entry.mark
        return "\(Base64.encode(Array(entry.origin.utf8))) \(mark.head.seq) \(mark.head.hash) \(mark.lineStart) \(mark.lineEnd) \(Base64.encode(Array(entry.note.utf8)))"
    }

    /// The entry of `line`, its MAC and note verified with `signer`'s public key.
    private static func parse(_ line: Substring, signer: NoteSigner, path: String, line number: Int) throws -> Entry {
        let parts = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 7, let origin = Base64.decode(parts[0]).flatMap({ String(validating: $0, as: UTF8.self) }),
              let seq = Int(parts[1]), let start = Int(parts[3]), let end = Int(parts[4]), seq >= 0, start >= 0, end >= start, end < 1 << 62,
              Digest32(hex: parts[2]) != nil, let noteBytes = Base64.decode(parts[5]), let mac = Base64.decode(parts[6]) else {
            throw damaged(path, "line \(number) is not an entry")
        }
        let signed = Self.domain + Array(parts[0...5].joined(separator: " ").utf8)
        guard Ed25519.verify(mac, of: signed, publicKey: signer.verifierKey.publicKey) else {
            throw damaged(path, "line \(number) is not signed by this key (\(signer.name)); a memory of another key, or an edited one")
        }
        let body: CheckpointBody
        do { body = try SignedHead.verify(noteBytes, logKey: signer.verifierKey) } catch {
            throw damaged(path, "line \(number)'s signed head does not verify: \(error.message)")
        }
        guard body.origin == origin, body.size == UInt64(seq) else { throw damaged(path, "line \(number)'s mark is not its head's") }
        return Entry(origin: origin, note: String(decoding: noteBytes, as: UTF8.self), mark: TreeMark(head: Head(seq: seq, hash: parts[2]), lineStart: start, lineEnd: end), body: body)
    }

    /// `signer-memory-damaged` for the file at `path`.
    private static func damaged(_ path: String, _ why: String) -> SignedHeadError {
        SignedHeadError(.memoryDamaged, "the signer's memory \(path) is damaged: \(why); nothing was signed (restore it from a backup of the key's folder; remove it only for a log that starts over under a new origin)")
    }
}
