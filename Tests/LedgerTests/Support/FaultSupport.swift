import Foundation
import LedgerDomain
import Testing

// MARK: - I/O fault drills through the built `ledger`

/// The environment of a `ledger` process that must run without injected I/O faults
/// (an inherited `LEDGER_IO_FAULTS` is overridden).
let noIOFaults = ["LEDGER_IO_FAULTS": ""]

/// The environment of a `ledger` process whose I/O calls fail as `faults` (`OP=N,…`) says.
func ioFaults(_ faults: String) -> [String: String] { ["LEDGER_IO_FAULTS": faults] }

/// The first bytes of a log line, cut before its end: what a write interrupted part-way leaves.
let tornLineBytes = Array(#"{"seq":5,"id":"abc"#.utf8)

/// What `ledger verify --json` said about a log.
struct VerifySummary {
    /// Exit status.
    let status: Int32
    /// `ok`.
    let ok: Bool
    /// Complete intact lines checked.
    let events: Int
    /// The kinds of the problems found, in order.
    let kinds: [String]
}

/// Signs of a crash rather than an orderly error: Swift runtime traps, stack dumps, signals.
func looksLikeACrash(_ result: ProcessResult) -> Bool {
    result.status >= 128
        || ["Fatal error", "Stack dump", "Backtrace", "Current stack trace", "SIGILL", "SIGSEGV", "SIGABRT", "💣"]
        .contains { result.stderr.contains($0) }
}

/// The repair notice a writer prints when it moves a torn last line aside (not an error).
func isTornTailNotice(_ line: String) -> Bool { line.hasPrefix("ledger: repaired a torn last line") }

extension LedgerDir {
    /// `ledger verify --json` on the data directory's log, without faults.
    func verifySummary(sourceLocation: SourceLocation = #_sourceLocation) throws -> VerifySummary {
        let result = try run(["verify", "--json"], env: noIOFaults)
        #expect(result.status == 0 || result.status == 1, "verify: \(result)", sourceLocation: sourceLocation)
        let object = try parseObject(result.stdout)
        let problems = object["problems"] as? [[String: Any]] ?? []
        return VerifySummary(status: result.status, ok: object["ok"] as? Bool ?? false, events: object["events"] as? Int ?? -1,
                             kinds: problems.compactMap { $0["kind"] as? String })
    }

    /// `ledger audit --json` without faults (exit 0 or 1), parsed.
    func auditReport(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let result = try run(["audit", "--json"], env: noIOFaults)
        #expect(result.status == 0 || result.status == 1, "audit: \(result)", sourceLocation: sourceLocation)
        return try parseObject(result.stdout)
    }

    /// Appends the first bytes of a line to the log, as a writer killed mid-`write` would leave them.
    func appendTornLine() throws {
        let handle = try #require(FileHandle(forWritingAtPath: logPath))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(tornLineBytes))
    }

    /// What a power loss can leave of the last, unacknowledged batch: the log's first `count` complete
    /// lines. `events.jsonl.index` goes too (after a reboot writers distrust it: it records the boot id).
    func cutLog(keepingLines count: Int) throws {
        let lines = splitLines(try logBytes())
        try #require(lines.count >= count, "the log has \(lines.count) lines, fewer than \(count)")
        try writeBytes(lines.prefix(count).flatMap { $0 }, to: logPath)
        try? FileManager.default.removeItem(atPath: logPath + ".index")
    }

    /// `cutLog`, the kept lines then written without their `batch` members and chained again: what
    /// a power loss left of a batch written before lines carried them (or by an older ledger), whole
    /// lines that readers cannot tell from a batch of their own — the case `recover` finishes or undoes.
    func cutLogWrittenWithoutBatchMarks(keepingLines count: Int) throws {
        try cutLog(keepingLines: count)
        let unmarked = try LogRewriting.envelopes(try logBytes()).map { envelope in
            var plain = envelope
            plain.batch = nil
            return plain
        }
        try writeBytes(LogRewriting.chained(unmarked), to: logPath)
    }

    /// `DIR/events.jsonl.broken`.
    var brokenPath: String { logPath + ".broken" }

    /// The names in `DIR/locks` (none when the folder is absent).
    func lockFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path + "/locks")) ?? []).sorted()
    }
}

// MARK: - Folding the log in the test

/// The registrations and images of a log's events, folded independently of the product's views.
struct FoldedLog {
    /// Event types per registration stream id, in order.
    var registrations: [String: [String]] = [:]
    /// `ImageStored` names not followed by `ImageDeleted`.
    var storedImages: Set<String> = []
    /// uid → true while the account is live (created and not deleted).
    var liveAccounts: [String: Bool] = [:]
    /// uids with `ProfileWritten`.
    var profiles: Set<String> = []
    /// Session ids started.
    var sessions: Set<String> = []

    init(_ events: [[String: Any]]) {
        for event in events {
            let type = event["type"] as? String ?? ""
            let stream = event["stream"] as? String ?? ""
            let data = event["data"] as? [String: Any] ?? [:]
            if stream.hasPrefix("registration-") { registrations[String(stream.dropFirst(13)), default: []].append(type) }
            switch type {
            case "AccountCreated": if let uid = data["uid"] as? String { liveAccounts[uid] = true }
            case "AccountDeleted": if let uid = data["uid"] as? String { liveAccounts[uid] = false }
            case "ImageStored": if let name = data["imageName"] as? String { storedImages.insert(name) }
            case "ImageDeleted": if let name = data["imageName"] as? String { storedImages.remove(name) }
            case "ProfileWritten": if let uid = data["uid"] as? String { profiles.insert(uid) }
            case "SessionStarted": if let id = data["sessionId"] as? String { sessions.insert(id) }
            default: break
            }
        }
    }
}
