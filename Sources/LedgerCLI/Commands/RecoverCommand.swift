import LedgerKit

// MARK: - RecoverCommand

/// `ledger recover [--accept-history]`: finishes registrations whose process died, removes orphan
/// images, repairs a torn tail; with `--accept-history`, first discards the caches that recorded
/// another history.
enum RecoverCommand {
    /// The definition.
    static let spec = CommandSpec(
        name: "recover", summary: "finish interrupted registrations, remove orphan images, repair a torn tail, destroy restored keys of erased subjects",
        options: [
            .flag("accept-history", "first discard the caches beside the log (events.jsonl.index, its checkpoint, events.jsonl.checkpoint, events.jsonl.tree): "
                + "after restoring the log from a backup on purpose, when writers refuse with history-rewritten"),
            .flag("json", "print what was done as JSON"),
        ],
        details: """
        Registrations whose process is still running are left alone. Running it twice changes nothing the second time.
        Decides from the whole verified log, never from a cache (about a second per million events).
        --accept-history is the deliberate way back after a legitimate restore: the caches recorded another
        history (that is what history-rewritten means), so check the log first (ledger verify --expect SEQ:HASH).
        """)

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        let acceptHistory = invocation.flag("accept-history")
        let recovery = try context.withLedger(invocation) { try await $0.recover(acceptHistory: acceptHistory) }
        let report = recovery.report, discarded = recovery.discardedCaches
        if !report.changedNothing {
            context.recorded.note("recover: \(report.interrupted.count) interrupted, \(report.compensated.count) compensated, "
                + "\(report.removedImages.count) image files and \(report.removedTemporaryFiles.count) temporary files removed"
                + (report.repairedTornTail ? ", a torn tail repaired" : "")
                + (report.destroyedKeys.isEmpty ? "" : ", \(report.destroyedKeys.count) keys of erased subjects destroyed"))
        }
        if invocation.flag("json") {
            let list = { (items: [String]) -> JSONValue in .array(items.map(JSONValue.string)) }
            var members: [(String, JSONValue)] = [
                ("repairedTornTail", .bool(report.repairedTornTail)), ("interrupted", list(report.interrupted)),
                ("compensated", list(report.compensated)), ("stillPending", list(report.stillPending)),
                ("skippedRunning", list(report.skippedRunning)), ("removedImages", list(report.removedImages)),
                ("removedTemporaryFiles", list(report.removedTemporaryFiles)), ("destroyedKeys", list(report.destroyedKeys)),
                ("finishedErasures", list(report.finishedErasures)),
            ]
            if invocation.flag("accept-history") { members.append(("discardedCaches", list(discarded))) }
            context.printJSON(.object(JSONObject(members)))
        } else {
            for path in discarded { context.print("discarded cache: \(path)") }
            if report.changedNothing && report.stillPending.isEmpty {
                context.print("nothing to recover\(report.skippedRunning.isEmpty ? "" : " (\(report.skippedRunning.count) registrations still running)")")
            }
            if report.repairedTornTail { context.print("repaired a torn last line") }
            for id in report.interrupted { context.print("interrupted: \(id)") }
            for id in report.compensated { context.print("compensated: \(id)") }
            for id in report.stillPending { context.print("still compensation-pending: \(id)") }
            for name in report.removedImages { context.print("removed orphan image file: \(name)") }
            for name in report.removedTemporaryFiles { context.print("removed a temporary file left by a crash: \(name)") }
            for subject in report.destroyedKeys {
                context.print(report.finishedErasures.contains(subject)
                              ? "destroyed the key of erased \(subject): its erasure was cut short, and is finished now"
                              : "destroyed the key of erased \(subject): restored from a backup taken before its erasure")
            }
        }
        return report.stillPending.isEmpty ? 0 : CLIError.Status.failure.rawValue
    }
}
