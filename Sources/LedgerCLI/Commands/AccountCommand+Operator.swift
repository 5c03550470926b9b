import LedgerDomain
import LedgerKit

// MARK: - AccountCommand: an operator's actions

extension AccountCommand {
    /// disable, enable and sign-out-everywhere: an operator names the account by UID|EMAIL.
    static let operatorActions: [Action] = [
        Action(name: "disable", takesAccount: true, options: ["reason"]) { invocation, context in
            let reason = invocation.value("reason") ?? ""
            if let problem = AccountDisabled.reasonProblem(reason) { throw CLIError.usage("--reason: \(problem)") }
            return try operate(.disable(reason: reason), status: "disabled", done: "disabled", invocation, context)
        },
        Action(name: "enable", takesAccount: true, options: []) { invocation, context in
            try operate(.enable, status: "enabled", done: "enabled", endsSessions: false, invocation, context)
        },
        Action(name: "sign-out-everywhere", takesAccount: true, options: []) { invocation, context in
            try operate(.signOutEverywhere, status: "signed-out", done: "signed out everywhere", invocation, context)
        },
    ]

    /// Runs `action` on the account UID|EMAIL names and reports it.
    private static func operate(_ action: AccountAction, status: String, done: String, endsSessions: Bool = true,
                                _ invocation: Invocation, _ context: Context) throws -> Int32 {
        let outcome = try service(invocation, context).run(action, account: invocation.positionals[1])
        report(outcome, status: status, done: done, endsSessions: endsSessions, invocation, context)
        return 0
    }
}
