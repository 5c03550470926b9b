import Glibc
import LedgerDomain

// MARK: - Checkpoint: sealed, yet no read takes it

extension Checkpoint {
    /// Why no read takes the checkpoint beside `log` although its seal holds: every byte before
    /// its digest hashes to that digest, yet the views hold what no log folds to (an impossible
    /// time, count or text; `CheckpointReader`'s refusal). Damage does not seal itself, so such a
    /// file was sealed after it was made so, by hand or by a writer that wrote what its reader
    /// refuses; `ledger verify` reports it. Nil when there is no such file, it is not a checkpoint
    /// of this format and version (an older build's is ignored and replaced), its seal does not
    /// hold (damage: reads replace it), or its views read.
    public static func sealedRefusal(forLog log: String) -> String? {
        guard let saved = try? FileDescriptor(path: path(forLog: log), flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK),
              let size = try? saved.size(), size >= magic.count + 16 + 64 else { return nil }
        let end = CheckpointIndexSection.layout(of: saved, size: size).digestAt
        let viewsStart = magic.count + 16
        guard end >= viewsStart, end + 64 <= size else { return nil }
        // The seal, over every byte before the digest, read a piece at a time.
        let sha = SHA256Stream()
        var piece = [UInt8](repeating: 0, count: 1 << 20)
        var position = 0
        while position < end {
            let want = min(piece.count, end - position)
            guard let n = try? piece.withUnsafeMutableBytes({ try saved.read(into: $0.baseAddress!, count: want, at: position) }), n > 0 else { return nil }
            if position == 0, n < magic.count || Array(piece.prefix(magic.count)) != magic { return nil }
            piece.withUnsafeBytes { sha.update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            position += n
        }
        var digest = [UInt8](repeating: 0, count: 64)
        guard (try? digest.withUnsafeMutableBytes({ try saved.read(into: $0.baseAddress!, count: 64, at: end) })) == 64,
              digest == Array(sha.finalize().utf8) else { return nil }
        // Only a checkpoint of this version is judged: another build's is ignored and replaced.
        var version = [UInt8](repeating: 0, count: CheckpointWriter.magic.count)
        guard (try? version.withUnsafeMutableBytes({ try saved.read(into: $0.baseAddress!, count: $0.count, at: viewsStart) })) == version.count,
              version == CheckpointWriter.magic else { return nil }
        // The views, as a read takes them.
        var at = viewsStart
        do {
            _ = try CheckpointReader.read(source: { buffer in
                let n = try saved.read(into: buffer.baseAddress!, count: min(buffer.count, end - at), at: at)
                at += n
                return n
            })
            return nil
        } catch let refusal as CheckpointError {
            return refusal.message
        } catch {
            return nil
        }
    }
}
