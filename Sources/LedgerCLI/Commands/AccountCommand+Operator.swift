import LedgerKit

// MARK: - AccountCommand: an operator's actions

extension AccountCommand {
    /// disable, enable and sign-out-everywhere: an operator names the account by UID|EMAIL.
    static let operatorActions: [Action] = [
        Action(name: "disable", takesAccount: true, options: ["reason"]) { invocation, context in
            let reason = invocation.value("reason") ?? ""
            if let problem = AccountDisabled.reasonProblem(reason) { throw CLIError.usage("--reason: \(problem)") }
            return try operate(status: "disabled", done: "disabled", invocation, context) { try await $0.disable(account: $1, reason: reason) }
        },
        Action(name: "enable", takesAccount: true, options: []) { invocation, context in
            try operate(status: "enabled", done: "enabled", endsSessions: false, invocation, context) { try await $0.enable(account: $1) }
        },
        Action(name: "sign-out-everywhere", takesAccount: true, options: []) { invocation, context in
            try operate(status: "signed-out", done: "signed out everywhere", invocation, context) { try await $0.signOutEverywhere(account: $1) }
        },
    ]

    /// Runs `call` on the account UID|EMAIL names and reports it.
    private static func operate(status: String, done: String, endsSessions: Bool = true, _ invocation: Invocation, _ context: Context,
                                _ call: @escaping @Sendable (Ledger, String) async throws -> Ledger.AccountChange) throws -> Int32 {
        let account = invocation.positionals[1]
        let outcome = try context.withLedger(invocation) { try await call($0, account) }
        report(outcome, status: status, done: done, endsSessions: endsSessions, invocation, context)
        return 0
    }
}
