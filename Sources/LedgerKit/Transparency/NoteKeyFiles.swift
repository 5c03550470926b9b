import Glibc
import LedgerDomain

// MARK: - NoteKeyFiles

/// The key files of `ledger keygen`: `PREFIX.skey` (the signer key, mode 0600) and `PREFIX.vkey`
/// (the verifier key, mode 0644), each one line ending in a newline. Read as regular files named
/// by their own path (never through a symbolic link), at most `maxBytes`; the signer key's text is
/// never quoted in a message.
public enum NoteKeyFiles {
    /// The largest key file read (a key is under 200 bytes with a 256-byte name).
    public static let maxBytes = 1024

    /// The signer in the .skey file at `path`, its key id checked against its public key.
    public static func readSigner(_ path: String) throws -> NoteSigner {
        let line = try readLine(path, what: "signer key")
        do { return try NoteSigner(NoteSignerKey(parsing: line)) } catch { throw NoteError(error.code, "\(path): \(error.message)") }
    }

    /// The verifier key in the .vkey file at `path`.
    public static func readVerifier(_ path: String) throws -> NoteVerifierKey {
        let line = try readLine(path, what: "verifier key")
        do { return try NoteVerifierKey(parsing: line, crypto: .libcrypto) } catch { throw NoteError(error.code, "\(path): \(error.message)") }
    }

    /// Writes `signer`'s key pair to `prefix.skey` and `prefix.vkey`, neither of which may exist
    /// (`EEXIST` otherwise, and nothing is written): the vkey first, so a signer key never exists
    /// without its public half; an skey that cannot be created removes the vkey just made.
    public static func writePair(_ signer: NoteSigner, prefix: String) throws -> (skey: String, vkey: String) {
        let skey = prefix + ".skey", vkey = prefix + ".vkey"
        var info = stat()
        for path in [skey, vkey] where lstat(path, &info) == 0 { throw SystemError("create", path: path, code: EEXIST) }
        try FileSystem.createAtomically(Array((signer.verifierKey.text + "\n").utf8), at: vkey, mode: 0o644)
        do {
            try FileSystem.createAtomically(Array((signer.signerKeyText + "\n").utf8), at: skey, mode: 0o600)
        } catch {
            try? FileSystem.remove(vkey)
            throw error
        }
        return (skey, vkey)
    }

    /// The one line of the key file at `path`: its text without one final newline; anything else
    /// (a second line, a carriage return, bytes that are not UTF-8) is `malformed-key`.
    static func readLine(_ path: String, what: String) throws -> String {
        let file: FileDescriptor
        do { file = try FileDescriptor(path: path, flags: O_RDONLY) } catch let error as SystemError { throw error.asFileRead }
        let size = try file.size()
        guard size <= maxBytes else { throw NoteError(.malformedKey, "\(path) is not a \(what) file: it has more than \(maxBytes) bytes") }
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let n = try bytes.withUnsafeMutableBytes { try file.read(into: $0.baseAddress! + done, count: size - done, at: done) }
            if n == 0 { break }
            done += n
        }
        bytes.removeLast(size - done)
        if bytes.last == 0x0A { bytes.removeLast() }
        guard !bytes.contains(where: { $0 < 0x20 }), let text = String(validating: bytes, as: UTF8.self) else {
            throw NoteError(.malformedKey, "\(path) is not a \(what) file: a key file is one line of text")
        }
        return text
    }
}
