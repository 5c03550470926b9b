import Dispatch
import LedgerDomain
import LedgerKit

// MARK: - ViewDigest

/// SHA-256 of each view's canonical JSON (its `--json` rows, compact, in view order), so two replays
/// (from scratch, or from a checkpoint plus the tail) can be compared byte for byte. The rows are
/// serialized and hashed in pieces, never as one document, and the views are hashed at once on the cores.
enum ViewDigest {
    /// The views, in the order `replay --json` prints their digests.
    static let names = ["users", "sessions", "images", "registrations"]

    /// `(view, hex digest)` for every view of `loaded`.
    static func digests(_ loaded: LoadedViews) -> [(String, String)] {
        var hexes = [String](repeating: "", count: names.count)
        hexes.withUnsafeMutableBufferPointer { results in
            // Each iteration writes its own slot; the views are only read.
            nonisolated(unsafe) let out = results
            let views = loaded.views
            let at = loaded.asOfTime
            DispatchQueue.concurrentPerform(iterations: names.count) { i in
                switch i {
                case 0: out[i] = hash(views.users.rows) { $0.json }
                case 1: out[i] = hash(views.sessions.rows) { $0.json(at: at) }
                case 2: out[i] = hash(views.images.rows) { $0.json }
                default: out[i] = hash(views.registrations.rows) { $0.json }
                }
            }
        }
        return Array(zip(names, hexes))
    }

    /// SHA-256 hex of `[row,row,…]` as `JSONWriter` writes the array, fed to the digest 64 KiB at a time.
    static func hash<Row>(_ rows: [Row], _ json: (Row) -> JSONValue) -> String {
        let sha = SHA256Stream()
        var buffer: [UInt8] = [UInt8(ascii: "[")]
        buffer.reserveCapacity(1 << 17)
        for (offset, row) in rows.enumerated() {
            if offset > 0 { buffer.append(UInt8(ascii: ",")) }
            JSONWriter.write(json(row), into: &buffer)
            if buffer.count >= 1 << 16 {
                buffer.withUnsafeBytes { sha.update($0) }
                buffer.removeAll(keepingCapacity: true)
            }
        }
        buffer.append(UInt8(ascii: "]"))
        buffer.withUnsafeBytes { sha.update($0) }
        return sha.finalize()
    }
}
