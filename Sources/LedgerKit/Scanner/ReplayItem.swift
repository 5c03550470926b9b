import Dispatch
import Glibc
import LedgerDomain

// MARK: - ReplayItem

/// One line of a log as `LogScanner.scanFacts` saw it.
public enum ReplayItem {
    /// A line that verified: what the views fold, where it lies — valid only during the call that
    /// gets the item, so the fold reads it in place instead of copying it and retaining its
    /// strings — and the line's hash.
    case event(UnsafePointer<ViewEvent>, hash: Digest32, offset: Int, length: Int)
    /// A complete line with a problem (damage, not a torn write).
    case problem(LogProblem, offset: Int, length: Int)
    /// The bytes after the file's last newline: an incomplete, so unacknowledged, write.
    case tornTail(LogProblem, offset: Int, length: Int)

    /// Calls `body` with the item of the full decoder's `item`; returns what it returns.
    static func with(_ item: ScanItem, _ body: (ReplayItem) -> Bool) -> Bool {
        switch item {
        case .event(let recorded, let offset, let length):
            let hash = Digest32(hex: recorded.envelope.hash) ?? .zero
            return withUnsafePointer(to: ViewEvent(recorded)) { body(.event($0, hash: hash, offset: offset, length: length)) }
        case .problem(let problem, let offset, let length): return body(.problem(problem, offset: offset, length: length))
        case .tornTail(let problem, let offset, let length): return body(.tornTail(problem, offset: offset, length: length))
        }
    }
}

extension ReplayLine {
    /// Where the `event` of the facts at `facts` lies.
    @inline(__always)
    static func event(at facts: UnsafePointer<ReplayLine>) -> UnsafePointer<ViewEvent> {
        UnsafeRawPointer(facts).advanced(by: eventOffset).assumingMemoryBound(to: ViewEvent.self)
    }
}

/// The byte offset of `ReplayLine.event` (a stored property, so it has one).
private let eventOffset = MemoryLayout<ReplayLine>.offset(of: \ReplayLine.event) ?? 0
