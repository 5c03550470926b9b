import Glibc
import LedgerDomain

// MARK: - VerifyReport

/// The outcome of verifying a whole log file.
public struct VerifyReport: Equatable, Sendable {
    /// Complete lines checked (a torn tail is not counted).
    public var events = 0
    /// The head of the intact prefix: the last line before the first problem.
    public var head = Head.empty
    /// Problems found, in line order (at most `maxProblems`).
    public var problems: [LogProblem] = []

    /// True when no problem was found.
    public var ok: Bool { problems.isEmpty }
}

// MARK: - LogVerifier

/// Verifies a log file from its first byte: JSON, envelope, `seq`, hashes, chain, types and data.
public enum LogVerifier {
    /// Problems kept in a report; counting goes on past it.
    public static let maxProblems = 100

    /// Verifies the log at `path`. Throws `SystemError` when it cannot be read.
    public static func verify(path: String) throws -> VerifyReport {
        // Ids are checked once at the end; on a maybe (a repeated id: damage) the log is read again
        // with the per-line check, which names the line.
        if let report = try verify(path: path, deferringIDs: true) { return report }
        return try verify(path: path, deferringIDs: false) ?? VerifyReport()
    }

    /// `verify`, checking ids at the end (`deferringIDs`; nil when they may repeat) or per line.
    private static func verify(path: String, deferringIDs: Bool) throws -> VerifyReport? {
        let file = try FileDescriptor(path: path, flags: O_RDONLY)
        var report = VerifyReport()
        var checker = ChainChecker()
        if deferringIDs {
            checker.deferIDChecks(lines: (try file.size()) / 450)
        } else {
            checker.reserve(lines: (try file.size()) / 450)
        }
        // The head of the intact prefix, as bits until the end.
        var head: (seq: Int, hash: Digest32)?
        try LogScanner.scanFacts(file, checker: &checker) { item in
            switch item {
            case .event(let event, let hash, _, _):
                report.events += 1
                if report.problems.isEmpty { head = (event.pointee.seq, hash) }
            case .problem(let problem, _, _):
                report.events += 1
                if report.problems.count < maxProblems { report.problems.append(problem) }
            case .tornTail(let problem, _, _):
                if report.problems.count < maxProblems { report.problems.append(problem) }
            }
            return true
        }
        if checker.idsMayRepeat() { return nil }
        if let head { report.head = Head(seq: head.seq, hash: head.hash.hex) }
        return report
    }
}
