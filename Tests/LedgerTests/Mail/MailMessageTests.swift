import Foundation
import LedgerDomain
import LedgerKit
import Testing

/// The message a mailer gets: no header can be smuggled in through an address or a subject, and an
/// address that could carry one never reaches a message (the email rule refuses it first).
@Suite struct MailMessageTests {
    private static let date = Timestamp(millis: 1_700_000_000_000)

    @Test(arguments: ["\r\n", "\n", "\r", "\0"])
    func aLineBreakInAHeaderIsRefused(_ breakText: String) {
        let injected = "owner@example.com" + breakText + "Bcc: thief@example.com"
        for message in [MailMessage(to: injected, from: "ledger@localhost", subject: "s", body: "b"),
                        MailMessage(to: "owner@example.com", from: injected, subject: "s", body: "b"),
                        MailMessage(to: "owner@example.com", from: "ledger@localhost", subject: "s" + breakText + "Bcc: thief@example.com", body: "b")] {
            #expect(throws: MailError.self) { _ = try message.rfc5322(date: Self.date, messageId: "1") }
        }
        #expect(EmailRule.problem(EmailRule.normalized(injected)) != nil, "no account can hold such an email")
    }

    @Test func theBodyIsAfterTheHeadersWithCRLFLineEnds() throws {
        let text = try MailMessage(to: "owner@example.com", from: "ledger@example.org", subject: "Hello", body: "one\ntwo\r\n\nthree")
            .rfc5322(date: Self.date, messageId: "abc")
        let lines = text.components(separatedBy: "\r\n")
        #expect(lines.prefix(3) == ["To: owner@example.com", "From: ledger@example.org", "Subject: Hello"])
        #expect(lines.contains("Message-ID: <abc@example.org>"))
        #expect(Array(lines.drop(while: { !$0.isEmpty }).dropFirst()) == ["one", "two", "", "three", ""])
        #expect(!text.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "no bare line feed")
    }
}
