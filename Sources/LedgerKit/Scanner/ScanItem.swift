import Dispatch
import Glibc
import LedgerDomain

// MARK: - ScanItem

/// One line of a log as the scanner saw it, with its byte range in the file.
public enum ScanItem {
    /// A line that verified: the typed event.
    case event(RecordedEvent, offset: Int, length: Int)
    /// A complete line with a problem (damage, not a torn write).
    case problem(LogProblem, offset: Int, length: Int)
    /// The bytes after the file's last newline: an incomplete, so unacknowledged, write.
    case tornTail(LogProblem, offset: Int, length: Int)
}
