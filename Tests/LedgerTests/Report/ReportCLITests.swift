import Foundation
import Testing

/// `ledger report` through the built binary: the page it writes, its options and exit statuses.
struct ReportCLITests {
    /// The head of the demo log (Events/samples/EXPECTED.md).
    static let demoHash = "90978856cb226b5f6aaf6147f7eae3a2a313288c4a3483ca237c5987c66b6ebf"

    /// The sections every report has.
    static let sections = ["digest", "funnel", "failures", "compensations", "timeline", "failed-registrations", "sign-ins", "account-changes", "anomalies"]

    @Test func theDemoReportIsSelfContainedAndComplete() throws {
        try withTempDirectory { dir in
            let out = dir + "/report.html"
            let result = try ledger("report", "--log", Paths.demoLog, "--html", out)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout == "wrote \(out)\n")
            #expect(result.stderr.isEmpty)
            let html = try readText(out)
            for key in Self.sections { #expect(html.contains("data-section=\"\(key)\""), "\(key)") }
            #expect(html.contains("data-head-seq=\"25\""))
            #expect(html.contains(Self.demoHash))
            #expect(html.contains("data-verify=\"passed\""))
            #expect(html.contains("No anomalies."))
            // Nothing runs and nothing is fetched: no script, no remote (or any) src/href, no url().
            for forbidden in ["<script", "http://", "https://", "src=", "href=", "url(", "@import", "<link", "<iframe"] {
                #expect(!html.contains(forbidden), "\(forbidden)")
            }
            #expect(html.components(separatedBy: "<svg").count - 1 >= 3)
            #expect(html.components(separatedBy: "data-registration=").count - 1 == 3)
            #expect(pageLacks(html, "carol@example.com") && pageText(html).contains("c***@example.com"))
            let shown = try ledger("report", "--log", Paths.demoLog, "--html", out, "--show-emails")
            #expect(shown.status == 0, "\(shown)")
            #expect(pageText(try readText(out)).contains("carol@example.com"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["report.html"], "no temporary file is left")
        }
    }

    /// An email quoted in a failure message ("the email … is already in use") is masked like the
    /// email column unless `--show-emails`; one the shape scan would cut short at `}` (valid in a dot-atom) is masked whole
    /// too (the row's own email is masked wherever its message quotes it), not even its local part left.
    @Test(arguments: ["carol-\(UInt32.random(in: 0...UInt32.max))@example.com", "carol-\(UInt32.random(in: 0...UInt32.max))}@example.com"])
    func emailsInFailureMessagesAreMasked(email: String) throws {
        try withLedgerDir { dir in
            #expect(try dir.register(email: email).status == 0)
            let taken = try dir.register(email: email)
            #expect(try parseObject(taken.stdout)["reason"] as? String == "email-already-in-use", "\(taken)")
            let out = dir.path + "/report.html"
            let masked = try dir.run(["report", "--html", out])
            #expect(masked.status == 0, "\(masked)")
            let html = try readText(out)
            #expect(html.contains("c***@example.com is already in use"), "the message is there, masked")
            #expect(pageLacks(html, email), "no email in full without --show-emails")
            #expect(pageLacks(html, String(email.split(separator: "@")[0])), "not even its local part")
            let shown = try dir.run(["report", "--html", out, "--show-emails"])
            #expect(shown.status == 0, "\(shown)")
            #expect(try readText(out).contains("the email \(email) is already in use"))
        }
    }

    @Test func sinceAndAsOfNarrowTheReport() throws {
        try withTempDirectory { dir in
            let out = dir + "/report.html"
            let since = try ledger("report", "--log", Paths.demoLog, "--html", out, "--since", "2026-11-29T09:30:00Z")
            #expect(since.status == 0, "\(since)")
            var html = try readText(out)
            #expect(html.contains("<tr data-step=\"attempts\"><td>Attempts</td><td class=\"num\">2</td>"), "carol and the duplicate email")
            #expect(html.components(separatedBy: "data-registration=").count - 1 == 2)
            let asOf = try ledger("report", "--log", Paths.demoLog, "--html", out, "--as-of", "7")
            #expect(asOf.status == 0, "\(asOf)")
            html = try readText(out)
            #expect(html.contains("data-head-seq=\"7\""))
            #expect(html.contains("No failed registration."))
        }
    }

    @Test func usageAndIOErrors() throws {
        try withTempDirectory { dir in
            let noHTML = try ledger("report", "--log", Paths.demoLog)
            #expect(noHTML.status == 2, "\(noHTML)")
            #expect(noHTML.stderr.contains("--html FILE"))
            let badSince = try ledger("report", "--log", Paths.demoLog, "--html", dir + "/r.html", "--since", "yesterday")
            #expect(badSince.status == 2, "\(badSince)")
            #expect(badSince.stderr.contains("--since"))
            let noLog = try ledger("report", "--log", dir + "/missing.jsonl", "--html", dir + "/r.html")
            #expect(noLog.status == 3, "\(noLog)")
            let unwritable = try ledger("report", "--log", Paths.demoLog, "--html", dir + "/no/such/folder/r.html")
            #expect(unwritable.status == 3, "\(unwritable)")
            #expect(unwritable.stderr.hasPrefix("ledger: "))
            let damaged = try ledger("report", "--log", Paths.editedSample, "--html", dir + "/r.html")
            #expect(damaged.status == 1, "\(damaged)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/r.html"))
        }
    }

    @Test func aTornTailIsReportedAsAFailedVerify() throws {
        try withTempDirectory { dir in
            let out = dir + "/report.html"
            let result = try ledger("report", "--log", Paths.tornSample, "--html", out)
            #expect(result.status == 0, "\(result)")
            let html = try readText(out)
            #expect(html.contains("data-verify=\"failed\""))
            #expect(html.contains("torn-tail"))
            #expect(html.contains("data-head-seq=\"24\""))
        }
    }

    @Test func theTourRegisterFailOneAuditReport() throws {
        try withLedgerDir { dir in
            let image = Paths.repo("Events/samples/demo/profile_image/05c4796f-c6d0-5b0f-80c6-01aa5f708738")
            #expect(try dir.register(email: "alice@example.com", username: "Alice", image: image).status == 0)
            let bob = try dir.register(email: "bob@example.com", username: "Bob", env: ["LEDGER_FAILPOINTS": "ProfileWritten=error"])
            #expect(bob.status == 1, "\(bob)")
            #expect(try dir.run(["audit"]).status == 0)
            let out = dir.path + "/report.html"
            let result = try dir.run(["report", "--html", out])
            #expect(result.status == 0, "\(result)")
            let html = try readText(out)
            #expect(html.contains("<tr data-step=\"attempts\"><td>Attempts</td><td class=\"num\">2</td>"))
            #expect(html.contains("<tr data-step=\"signed-in\"><td>Signed in</td><td class=\"num\">1</td>"))
            #expect(html.contains("profile · io-error"))
            #expect(pageText(html).contains("b***@example.com"))
            #expect(html.contains("No anomalies."))
        }
    }
}
