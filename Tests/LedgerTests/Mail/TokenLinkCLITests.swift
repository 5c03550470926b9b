import Foundation
import LedgerKit
import Testing

// Mail an app can send: with `LEDGER_VERIFY_LINK` / `LEDGER_RESET_LINK`, the message carries one
// link built from the operator's template (the token in it, once) instead of a command; a template
// that is not https (http://localhost aside) or does not hold {token} exactly once is exit 2.

@Suite struct TokenLinkCLITests {
    private let password = "correct horse battery"

    @Test func aTemplateMakesTheMessageALinkHoldingTheTokenOnce() throws {
        try withLedgerDir { dir in
            let mailbox = try Mailbox(folder: dir.path)
            let email = uniqueEmail("linked")
            #expect(try dir.register(email: email, password: password).status == 0)
            let env = mailbox.environment.merging(["LEDGER_VERIFY_LINK": "https://app.example.com/verify?token={token}",
                                                   "LEDGER_RESET_LINK": "http://localhost:8080/reset/{token}"]) { _, new in new }
            #expect(try dir.run(["account", "send-verification", "--email", email], env: env).status == 0)
            #expect(try dir.run(["account", "request-reset", "--email", email], env: env).status == 0)
            let messages = mailbox.messages()
            try #require(messages.count == 2)
            for (message, prefix) in zip(messages, ["https://app.example.com/verify?token=", "http://localhost:8080/reset/"]) {
                let link = try #require(message.components(separatedBy: "\r\n").first { $0.hasPrefix(prefix) }, "\(message)")
                let token = String(link.dropFirst(prefix.count))
                #expect(AccountToken.uid(of: token) != nil, "the link ends in the token: \(link)")
                #expect(message.components(separatedBy: token).count == 2, "the token appears once")
                #expect(!message.contains("--token-stdin"), "no command when a link is given")
            }
            // The linked tokens work as the command's do.
            let verifyToken = String(messages[0].components(separatedBy: "token=")[1].prefix(while: { !$0.isWhitespace }))
            #expect(try dir.run(["account", "verify-email", "--token-stdin"], stdin: verifyToken + "\n").status == 0)
        }
    }

    @Test func withoutATemplateTheMessageNamesTheCommandAndTheTokenOnce() throws {
        try withLedgerDir { dir in
            let mailbox = try Mailbox(folder: dir.path)
            let email = uniqueEmail("unlinked")
            #expect(try dir.register(email: email, password: password).status == 0)
            #expect(try dir.run(["account", "request-reset", "--email", email], env: mailbox.environment).status == 0)
            let message = try #require(mailbox.messages().last)
            let token = try #require(Mailbox.token(in: message))
            #expect(message.components(separatedBy: token).count == 2)
            #expect(message.contains("ledger account reset-password --token-stdin"))
        }
    }

    @Test(arguments: ["http://app.example.com/verify?token={token}", "https://app.example.com/verify", "https://a.example/{token}/{token}",
                      "ftp://localhost/{token}", "https://app.example.com/verify?token={token} x", "javascript:{token}", "http://localhost.evil.com/{token}"])
    func aBadTemplateIsABadEnvironment(_ template: String) throws {
        try withLedgerDir { dir in
            let mailbox = try Mailbox(folder: dir.path)
            let email = uniqueEmail("badlink")
            #expect(try dir.register(email: email, password: password).status == 0)
            let env = mailbox.environment.merging(["LEDGER_VERIFY_LINK": template]) { _, new in new }
            let result = try dir.run(["account", "send-verification", "--email", email, "--json"], env: env)
            #expect(result.status == 2, "\(result)")
            #expect(result.stdout.contains("bad-environment") && result.stderr.contains("LEDGER_VERIFY_LINK"), "\(result)")
            #expect(result.stderrLines.count == 1)
            #expect(mailbox.messages().isEmpty)
        }
    }
}
