import LedgerDomain
import LedgerKit

// MARK: - AccountCommand

/// `ledger account disable|enable|sign-out-everywhere UID|EMAIL [--reason TEXT] [--json]`: what an
/// operator does to an account after sign-up, decided by `AccountFold.decide`.
enum AccountCommand {
    /// The actions, as typed.
    static let actions = ["disable", "enable", "sign-out-everywhere"]

    /// The definition.
    static let spec = CommandSpec(
        name: "account", summary: "disable or enable an account, or sign it out everywhere",
        positionals: [PositionalSpec(name: "ACTION", optional: false, help: "disable, enable or sign-out-everywhere", choices: actions),
                      PositionalSpec(name: "UID|EMAIL", optional: false, help: "the account's id or email")],
        options: [.option("reason", "TEXT", "disable: the operator's reason, kept in the log (at most 500 characters)"),
                  .flag("json", "print {status, uid, email, accountStatus, endedSessions}")],
        details: """
        disable: AccountDisabled, and every active session ends (account-disabled); sign-in is then refused.
        enable: AccountEnabled (a disabled account only).
        sign-out-everywhere: every active session ends (revoked).
        A refusal (see the state table in Docs/CLI.md) prints one line and exits 1.
        """)

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        let action = try Self.action(invocation)
        let service = AccountService(store: try context.store(invocation), signInLocks: try context.signInLocks(invocation),
                                     clock: context.clock)
        let outcome: AccountService.Outcome
        do {
            outcome = try service.run(action, account: invocation.positionals[1])
        } catch let refusal as AccountRefusal {
            if invocation.flag("json") {
                context.printJSON(.object(JSONObject([("status", .string("refused")), ("reason", .string(refusal.code.rawValue)),
                                                      ("message", .string(refusal.message))])))
            } else {
                context.complain(refusal.message)
            }
            return CLIError.Status.failure.rawValue
        }
        let word = switch action { case .disable: "disabled"; case .enable: "enabled"; case .signOutEverywhere: "signed-out" }
        if invocation.flag("json") {
            context.printJSON(.object(JSONObject([
                ("status", .string(word)), ("uid", .string(outcome.uid)), ("email", .string(outcome.email)),
                ("accountStatus", .string(outcome.status.rawValue)),
                ("endedSessions", .array(outcome.endedSessions.map { .string($0) })),
            ])))
        } else {
            context.print("account \(outcome.uid) (\(outcome.email)) \(word == "signed-out" ? "signed out everywhere" : word)")
            context.print("\(outcome.endedSessions.count) session\(outcome.endedSessions.count == 1 ? "" : "s") ended")
        }
        return 0
    }

    /// The action of `invocation`, its `--reason` checked.
    private static func action(_ invocation: Invocation) throws -> AccountAction {
        let reason = invocation.value("reason")
        switch invocation.positionals[0] {
        case "disable":
            if let reason, let problem = AccountDisabled.reasonProblem(reason) { throw CLIError.usage("--reason: \(problem)") }
            return .disable(reason: reason ?? "")
        case let other:
            guard reason == nil else { throw CLIError.usage("--reason goes with `ledger account disable` only") }
            return other == "enable" ? .enable : .signOutEverywhere
        }
    }
}
