import Dispatch
import LedgerKit

// MARK: - ViewDigest

/// SHA-256 of each view's canonical JSON (its `--json` rows, compact, in view order), so two replays
/// (from scratch, or from a checkpoint plus the tail) can be compared byte for byte. The rows are
/// serialized and hashed in pieces, never as one document, and the views are hashed at once on the cores.
enum ViewDigest {
    /// The views, in the order `replay --json` prints their digests.
    static let names = ["users", "sessions", "images", "registrations"]
    /// The same views, largest first (their rows' bytes at 1M events: 67, ~40, 34, 18 MB), so the
    /// threads that digest them end together.
    private static let largestFirst = ["sessions", "registrations", "users", "images"]

    /// `(view, hex digest)` for every view of `loaded`; `alongside` runs on the cores with them, last
    /// (on whichever core is free first).
    static func digests(_ loaded: LoadedViews, alongside: @Sendable () -> Void = {}) -> [(String, String)] {
        var hexes = [String](repeating: "", count: names.count)
        hexes.withUnsafeMutableBufferPointer { results in
            // Each iteration writes its own slot; the views are only read.
            nonisolated(unsafe) let out = results
            let views = loaded.views
            let at = loaded.asOfTime
            DispatchQueue.concurrentPerform(iterations: largestFirst.count + 1) { turn in
                guard turn < largestFirst.count else { return alongside() }
                let name = largestFirst[turn]
                guard let i = names.firstIndex(of: name) else { return }
                let sha = SHA256Stream()
                let sink: (UnsafeRawBufferPointer) -> Void = { sha.update($0) }
                switch i {
                case 0: ViewRowsWriter.users(views.users, sink: sink)
                case 1: ViewRowsWriter.sessions(views.sessions, at: at, sink: sink)
                case 2: ViewRowsWriter.images(views.images, sink: sink)
                default: ViewRowsWriter.registrations(views.registrations, sink: sink)
                }
                out[i] = sha.finalize()
            }
        }
        return Array(zip(names, hexes))
    }
}
