import LedgerKit

// MARK: - AuditCommand

/// `ledger audit`: failed registrations, sign-in failures, account changes, revoked sessions and anomalies; exit 1 when any anomaly.
enum AuditCommand {
    /// The definition.
    static let spec = CommandSpec(
        name: "audit", summary: "failed registrations, sign-in failures per email, account changes, revoked sessions, and anomalies (exit 1 if any)",
        options: ReadOptions.specs,
        details: "Anomalies: interrupted, account-without-profile, orphan-image-file, foreign-file, missing-image-file, image-mismatch; "
            + "rule breaks of the log: duplicate-live-account, signin-while-locked, password-checked-while-locked, session-without-account, "
            + "token-redeemed-twice, session-active-after-disable.")

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        let blobs = FileBlobStore(directory: try ReadOptions.directory(invocation, context))
        let locks = try ReadOptions.locks(invocation, context)
        let snapshot = try Auditor.snapshot(blobs: blobs, locks: locks)
        let loaded = try ReadOptions.load(invocation, context, views: [.registrations, .images, .signIns, .accountChanges, .sessions])
        let views = loaded.views
        // Anomalies are written as they are found, never held as a list (one per stored image
        // when the image folder is gone).
        let eachAnomaly = { (body: (Anomaly) -> Void) in
            Auditor.forEachAnomaly(views, at: loaded.asOfTime, blobs: blobs, locks: locks, snapshot: snapshot, body)
        }
        var found = 0
        if invocation.flag("json") {
            // `{"failedRegistrations":[…],"signInFailures":[…],"accountChanges":[…],"sessionsRevoked":[…],"anomalies":[…]}`, the long lists streamed.
            let write = { (bytes: UnsafeRawBufferPointer) in context.out(String(decoding: bytes, as: UTF8.self)) }
            context.out(#"{"failedRegistrations":"#)
            ViewRowsWriter.registrations(views.registrations, failedOnly: true, sink: write)
            context.out(#","signInFailures":"#)
            ViewRowsWriter.signInFailures(views.signIns, at: loaded.asOfTime, sink: write)
            context.out(#","accountChanges":"#)
            writeArray(views.accountChanges.changes, context) { $0.json }
            context.out(#","sessionsRevoked":"#)
            writeArray(views.accountChanges.revoked, context) { $0.json }
            context.out(#","anomalies":"#)
            var out: [UInt8] = [UInt8(ascii: "[")]
            eachAnomaly { anomaly in
                if found > 0 { out.append(UInt8(ascii: ",")) }
                found += 1
                JSONWriter.write(.object(JSONObject([("kind", .string(anomaly.kind)), (anomaly.key, .string(anomaly.value)),
                                                     ("message", .string(anomaly.message))])), into: &out)
                flushIfFull(&out, context)
            }
            out.append(contentsOf: Array("]}\n".utf8))
            out.withUnsafeBytes { context.outBytes($0) }
        } else {
            let failed = views.registrations.rows.filter { $0.outcome != .completed }
            let signIns = views.signIns.rows
            let style = context.style
            context.print(style.bold("Failed registrations"))
            var failures = Table(headers: ["REGISTRATION", "STARTED", "EMAIL", "OUTCOME", "STEP", "REASON"],
                                 rows: failed.map { [$0.registration, $0.startedAt?.rfc3339 ?? "-", $0.email.map(ErasedText.forTable) ?? "-", $0.outcome.rawValue,
                                                     $0.failure?.step.rawValue ?? "-", $0.failure?.reason ?? "-"] })
            failures.tone = { column, _ in column == 3 ? .red : nil }
            context.printTable(failures, noun: "registration")
            context.print("")
            context.print(style.bold("Sign-in failures"))
            var signInTable = Table(headers: ["EMAIL", "FAILURES", "LOCKED"],
                                    rows: signIns.map { [ErasedText.forTable($0.email), String($0.failures), views.signIns.lockedUntil($0.email, at: loaded.asOfTime) != nil ? "yes" : "no"] })
            signInTable.tone = { column, text in column == 2 && text == "yes" ? .red : nil }
            context.printTable(signInTable, noun: "email")
            context.print("")
            printAccountChanges(views.accountChanges, context)
            eachAnomaly { anomaly in
                if found == 0 { context.print(style.red("ANOMALIES")) }
                found += 1
                context.print(style.red("  \(anomaly.kind) \(anomaly.key)=\(OneLine.escaped(anomaly.value)): \(OneLine.escaped(anomaly.message))"))
            }
            if found == 0 { context.print(style.green("No anomalies.")) }
        }
        return found == 0 ? 0 : CLIError.Status.failure.rawValue
    }

    /// Hands `out` to standard output once it holds 64 KiB.
    private static func flushIfFull(_ out: inout [UInt8], _ context: Context) {
        guard out.count >= 1 << 16 else { return }
        out.withUnsafeBytes { context.outBytes($0) }
        out.removeAll(keepingCapacity: true)
    }

    /// Writes `items` as a compact JSON array, about 64 KiB at a time: a long list is never held
    /// whole as one string.
    private static func writeArray<Item>(_ items: [Item], _ context: Context, _ json: (Item) -> JSONValue) {
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (n, item) in items.enumerated() {
            if n > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.write(json(item), into: &out)
            flushIfFull(&out, context)
        }
        out.append(UInt8(ascii: "]"))
        out.withUnsafeBytes { context.outBytes($0) }
    }

    /// The human tables of account changes and revoked sessions, each in log order.
    private static func printAccountChanges(_ view: AccountChangeView, _ context: Context) {
        context.print(context.style.bold("Account changes"))
        var changes = Table(headers: ["SEQ", "AT", "UID", "EMAIL", "CHANGE", "DETAIL"],
                            rows: view.changes.map { [String($0.seq), $0.at.rfc3339, $0.uid.uuidString, ErasedText.forTable($0.email), $0.change.rawValue,
                                                      $0.detail()] })
        changes.tone = { column, text in
            column == 4 && [AccountChangeView.Change.disabled.rawValue, AccountChangeView.Change.deleted.rawValue].contains(text) ? .red : nil
        }
        context.printTable(changes, noun: "change")
        context.print("")
        context.print(context.style.bold("Sessions revoked"))
        context.printTable(Table(headers: ["SEQ", "AT", "UID", "SESSION", "REASON"],
                                 rows: view.revoked.map { [String($0.seq), $0.at.rfc3339, $0.uid.uuidString, $0.session.uuidString, $0.reason] }),
                           noun: "session")
        context.print("")
    }
}
