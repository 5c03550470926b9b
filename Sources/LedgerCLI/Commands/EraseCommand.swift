import LedgerKit

// MARK: - EraseCommand

/// `ledger erase --email EMAIL | --expired`: forgets what the ledger holds about people outside
/// live accounts (`ErasureService`). Accounts are erased with `ledger account delete` or `account erase`.
enum EraseCommand {
    /// The definition.
    static let spec = CommandSpec(
        name: "erase", summary: "forget an address's sign-in failures and rejected registrations, or every subject past retention",
        options: [.option("email", "EMAIL", "erase every day that holds EMAIL outside live accounts (its failed sign-ins, its rejected registrations)"),
                  .flag("expired", "erase the days and deleted accounts older than LEDGER_RETENTION_DAYS (default 30), except legal holds"),
                  .flag("json", "print {status, subjects, events}, or {status: refused, reason, message}")],
        details: """
        Personal data outside accounts is encrypted under the key of its UTC day (address-YYYY-MM-DD): erasing an
        address destroys the key of every day that holds it, and with it the other addresses of those days.
        Each erased subject is one event without personal data (AddressDataErased, PersonalDataErased) in one append;
        the keys are destroyed once it is durable. An erasure is permanent: no backup of the key store brings it back.
        Exit 0 erased (or nothing to erase); 1 refused (account-live: a live account holds the address; migrate-first:
        a data version 1 log); 2 usage; 3 I/O error.
        """)

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        let email = invocation.value("email"), expired = invocation.flag("expired")
        guard (email == nil) != !expired else { throw CLIError.usage("give exactly one of --email EMAIL and --expired") }
        let days = expired ? try LedgerEnvironment.retentionDays(context.environment["LEDGER_RETENTION_DAYS"]) : 0
        let outcome: Ledger.Erasure
        do {
            outcome = try context.withLedger(invocation) { ledger in
                if let email { try await ledger.erase(email: email) } else { try await ledger.eraseExpired(retentionDays: days) }
            }
        } catch let error as LedgerError where error.code == .invalidInput && email != nil {
            // What counts as an address to erase is the library's rule (`Ledger.erase(email:)`).
            throw CLIError.usage("--email: \(error.message), not \"\(OneLine.escaped(email ?? ""))\"")
        } catch let error as LedgerError {
            guard let refusal = error.cause as? AccountRefusal else { throw error }
            return AccountCommand.report(refused: refusal.code.rawValue, refusal.message, invocation, context)
        }
        let subjects = outcome.subjects
        if !subjects.isEmpty { context.recorded.note("erased \(subjects.count) subject\(subjects.count == 1 ? "" : "s")") }
        if invocation.flag("json") {
            context.printJSON(.object(JSONObject([("status", .string(subjects.isEmpty ? "nothing-to-erase" : "erased")),
                                                  ("subjects", .array(subjects.map { .string($0) })),
                                                  ("events", .int(outcome.appended))])))
        } else if subjects.isEmpty {
            context.print("nothing to erase")
        } else {
            context.print("erased \(subjects.count) subject\(subjects.count == 1 ? "" : "s"): \(subjects.joined(separator: ", "))")
        }
        return 0
    }
}
