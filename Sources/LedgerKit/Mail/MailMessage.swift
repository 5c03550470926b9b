import Glibc
import LedgerDomain

// MARK: - MailMessage

/// A plain-text message to one person, written as RFC 5322 for a sendmail-style mailer.
public struct MailMessage: Equatable, Sendable {
    /// The recipient's address.
    public var to: String
    /// The sender's address.
    public var from: String
    /// The subject line.
    public var subject: String
    /// The body, lines separated by `\n` (written with CRLF).
    public var body: String

    /// A message from its parts.
    public init(to: String, from: String, subject: String, body: String) {
        self.to = to; self.from = from; self.subject = subject; self.body = body
    }

    /// The message as RFC 5322 text: `To`, `From`, `Subject`, `Date` (of `date`), `Message-ID`
    /// (`<messageId@domain of From>`), MIME headers for UTF-8 plain text, a blank line, the body; CRLF
    /// line ends. Throws `MailError(.invalidMessage)` when a header value holds a line break (no
    /// header can be smuggled in through an address or a subject).
    public func rfc5322(date: Timestamp, messageId: String) throws -> String {
        for (name, value) in [("To", to), ("From", from), ("Subject", subject)]
        where value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) {
            throw MailError(.invalidMessage, "the \(name) header would hold a line break")
        }
        let domain = from.split(separator: "@").last.map(String.init) ?? "localhost"
        let headers = ["To: \(to)", "From: \(from)", "Subject: \(subject)", "Date: \(Self.date(date))",
                       "Message-ID: <\(messageId)@\(domain)>", "MIME-Version: 1.0",
                       "Content-Type: text/plain; charset=utf-8", "Content-Transfer-Encoding: 8bit"]
        let lines = body.split(separator: "\n", omittingEmptySubsequences: false).map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
        return (headers + [""] + lines).joined(separator: "\r\n") + "\r\n"
    }

    /// `date` as RFC 5322 writes it, in UTC: `Tue, 01 Dec 2026 14:23:11 +0000`.
    static func date(_ date: Timestamp) -> String {
        var seconds = time_t(date.millis / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) +0000"
    }
}
