import LedgerKit

// MARK: - AccountCommand: verification and reset tokens

extension AccountCommand {
    /// send-verification and request-reset (by `--email`, answered alike whoever holds it), and
    /// verify-email and reset-password (by the token on standard input).
    static let tokenActions: [Action] = [
        Action(name: "send-verification", takesAccount: false, options: ["email"], required: ["email"]) { invocation, context in
            try request(.verification, invocation, context)
        },
        Action(name: "verify-email", takesAccount: false, options: ["token-stdin"], required: ["token-stdin"]) { invocation, context in
            let token = try tokenLine(invocation, context)
            let outcome = try context.withLedger(invocation) { try await $0.verifyEmail(token: token) }
            report(outcome, status: "verified", done: "has its email verified", endsSessions: false, invocation, context)
            return 0
        },
        Action(name: "request-reset", takesAccount: false, options: ["email"], required: ["email"]) { invocation, context in
            try request(.reset, invocation, context)
        },
        Action(name: "reset-password", takesAccount: false, options: ["token-stdin"], required: ["token-stdin"]) { invocation, context in
            let token = try tokenLine(invocation, context)
            guard let line = context.readBytesLine() else {
                throw CLIError.usage("--token-stdin: standard input has one line; write the token, then the new password, a line each")
            }
            try PasswordInput.refuseLongLine(line)
            let password = Ledger.Input.password(fromLine: line.last == 0x0D ? Array(line.dropLast()) : line)
            if let problem = Ledger.Input.passwordProblem(password) { throw CLIError.usage("the new password: \(problem)") }
            let outcome = try context.withLedger(invocation) { try await $0.resetPassword(token: token, newPassword: password) }
            report(outcome, status: "password-reset", done: "has a new password", invocation, context)
            return 0
        },
    ]

    /// The one answer of a token request, whoever holds the email (no enumeration).
    static let requestAnswer = "if an account uses that email, a message is on its way"

    /// Issues a token of `kind` to the account of `--email` and mails it. The mailer must be set
    /// before the email is looked up; the request is durable before the message is sent. Unknown,
    /// pending, disabled, deleted (and, for a verification, verified) emails get the same answer,
    /// nothing appended and no message.
    private static func request(_ kind: TokenKind, _ invocation: Invocation, _ context: Context) throws -> Int32 {
        let email = invocation.required("email")
        let mailer = try Mailer.fromEnvironment(context.environment)
        let issued = try context.withLedger(invocation) { ledger in
            switch kind {
            case .verification: try await ledger.requestVerification(email: email)
            case .reset: try await ledger.requestPasswordReset(email: email)
            }
        }
        if let issued {
            do {
                let text = try message(kind, issued, from: mailer.from, context)
                    .rfc5322(date: context.clock.now(), messageId: Identifiers.hex(context.random.bytes(16)))
                try mailer.send(text)
            } catch let error as MailError {
                throw MailError(error.code, "\(error.message); the request was recorded and its token is unusable until a new one is requested")
            }
        }
        if invocation.flag("json") {
            context.printJSON(.object(JSONObject([("status", .string("requested"))])))
        } else {
            context.print(requestAnswer)
        }
        return 0
    }

    /// The message carrying `issued`'s token (`TokenMessage`: a link from the operator's template, or the command to give it to).
    private static func message(_ kind: TokenKind, _ issued: Ledger.IssuedToken, from: String,
                                _ context: Context) throws -> MailMessage {
        TokenMessage.message(kind, token: issued.token, to: issued.email, from: from, expires: issued.expiresAt,
                             links: try TokenMessage.Links.fromEnvironment(context.environment))
    }

    /// The token: the first line of standard input with `--token-stdin` (spaces around it ignored).
    private static func tokenLine(_ invocation: Invocation, _ context: Context) throws -> String {
        guard let bytes = context.readBytesLine() else {
            throw CLIError.usage("--token-stdin: standard input is empty; write the token as its first line")
        }
        try PasswordInput.refuseLongLine(bytes)
        let line = String(decoding: bytes, as: UTF8.self)
        return String(withoutCR(line).drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }

    /// `line` without the `\r` of a CRLF line end.
    private static func withoutCR(_ line: String) -> String { line.hasSuffix("\r") ? String(line.dropLast()) : line }
}
