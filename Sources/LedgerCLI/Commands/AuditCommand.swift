import LedgerDomain
import LedgerKit

// MARK: - AuditCommand

/// `ledger audit`: failed registrations, sign-in failures and anomalies; exit 1 when any anomaly.
enum AuditCommand {
    /// The definition.
    static let spec = CommandSpec(
        name: "audit", summary: "failed registrations, sign-in failures per email, and anomalies (exit 1 if any)",
        options: ReadOptions.specs,
        details: "Anomalies: interrupted, account-without-profile, orphan-image-file, missing-image-file, image-mismatch.")

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        let blobs = FileBlobStore(directory: try ReadOptions.directory(invocation, context))
        let locks = try ReadOptions.locks(invocation, context)
        let snapshot = try Auditor.snapshot(blobs: blobs, locks: locks)
        let loaded = try ReadOptions.load(invocation, context, views: [.registrations, .images, .signIns])
        let views = loaded.views
        let anomalies = Auditor.anomalies(views, blobs: blobs, locks: locks, snapshot: snapshot)
        if invocation.flag("json") {
            // `{"failedRegistrations":[…],"signInFailures":[…],"anomalies":[…]}`, the long lists streamed.
            let write = { (bytes: UnsafeRawBufferPointer) in context.out(String(decoding: bytes, as: UTF8.self)) }
            context.out(#"{"failedRegistrations":"#)
            ViewRowsWriter.registrations(views.registrations, failedOnly: true, sink: write)
            context.out(#","signInFailures":"#)
            ViewRowsWriter.signInFailures(views.signIns, at: loaded.asOfTime, sink: write)
            context.out(#","anomalies":"#)
            context.out(JSONWriter.string(.array(anomalies.map {
                .object(JSONObject([("kind", .string($0.kind)), ($0.key, .string($0.value)), ("message", .string($0.message))]))
            })))
            context.out("}\n")
        } else {
            let failed = views.registrations.rows.filter { $0.outcome != .completed }
            let signIns = views.signIns.rows
            let style = context.style
            context.print(style.bold("Failed registrations"))
            var failures = Table(headers: ["REGISTRATION", "STARTED", "EMAIL", "OUTCOME", "STEP", "REASON"],
                                 rows: failed.map { [$0.registration, $0.startedAt?.rfc3339 ?? "-", $0.email ?? "-", $0.outcome.rawValue,
                                                     $0.failure?.step.rawValue ?? "-", $0.failure?.reason ?? "-"] })
            failures.tone = { column, _ in column == 3 ? .red : nil }
            context.printTable(failures, noun: "registration")
            context.print("")
            context.print(style.bold("Sign-in failures"))
            var signInTable = Table(headers: ["EMAIL", "FAILURES", "LOCKED"],
                                    rows: signIns.map { [$0.email, String($0.failures), views.signIns.lockedUntil($0.email, at: loaded.asOfTime) != nil ? "yes" : "no"] })
            signInTable.tone = { column, text in column == 2 && text == "yes" ? .red : nil }
            context.printTable(signInTable, noun: "email")
            context.print("")
            context.print(anomalies.isEmpty ? style.green("No anomalies.") : style.red("ANOMALIES"))
            for anomaly in anomalies { context.print(style.red("  \(anomaly.kind) \(anomaly.key)=\(anomaly.value): \(anomaly.message)")) }
        }
        return anomalies.isEmpty ? 0 : CLIError.Status.failure.rawValue
    }
}
