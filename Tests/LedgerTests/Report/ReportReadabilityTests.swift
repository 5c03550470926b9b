import Foundation
@testable import LedgerDomain
import LedgerKit
import Testing

// The report reads as people expect: rounded percentages, no literal backticks, emails that break
// only between their parts, a short timeline drawn as rows; and through the built `ledger`: the
// log's full path in the header, and mode 0600 when emails are shown.

@Suite struct ReportReadabilityTests {
    /// A model of `views` with fixed times.
    private func model(_ views: LedgerViews, anomalies: [ReportModel.Anomaly] = []) -> ReportModel {
        ReportModel(views: views, asOf: Timestamp(rfc3339: "2026-11-29T12:00:00.000Z")!, anomalies: anomalies,
                    verifyOK: true, generatedAt: Timestamp(rfc3339: "2026-11-29T12:00:01.000Z")!)
    }

    @Test func percentagesAreRoundedNotTruncated() throws {
        let s = ViewScenario()
        for n in 1...12 {
            let r = RegistrationScript(n)
            try s.given(n <= 10 ? r.accountCreated(withImage: false) : r.failed(.validation, reason: "invalid-email", withUID: false), in: r.stream)
        }
        let m = model(s.views)
        #expect(m.step("account")?.lost == 2)
        #expect(m.step("account")?.lostPerMille == 167, "2 of 12 is 16.67%")
        #expect(HTMLReport.render(m).contains("<td class=\"num\">2 (16.7%)</td>"))
        #expect(HTMLReport.percent(167) == "16.7%")
    }

    @Test func backticksInMessagesBecomeCode() throws {
        let anomaly = ReportModel.Anomaly(kind: "orphan-image-file", key: "imageName", value: "x",
                                          message: "no event names it; `ledger recover` removes it, and `<b>` stays text")
        let html = HTMLReport.render(model(LedgerViews(), anomalies: [anomaly]))
        #expect(html.contains("no event names it; <code>ledger recover</code> removes it, and <code>&lt;b&gt;</code> stays text"))
        #expect(!html.contains("`"), "no literal backtick anywhere on the page")
        #expect(HTMLReport.withCodeSpans("a `b` c `d") == "a <code>b</code> c d", "an unpaired backtick is dropped")
    }

    @Test func emailsBreakOnlyBeforeTheirAtAndDots() throws {
        #expect(HTMLReport.emailHTML("first.last-name@mail.example.com") == [
            "first", ".last-name", "@mail", ".example", ".com",
        ].map { "<span class=\"nw\">\($0)</span>" }.joined(separator: "<wbr>"))
        #expect(HTMLReport.emailHTML("n***") == "<span class=\"nw\">n***</span>")
        #expect(!HTMLReport.css.contains("anywhere"), "no email cell may break anywhere")
        #expect(HTMLReport.css.contains(".nw{white-space:nowrap}"))
        let s = ViewScenario(), r = RegistrationScript(1, email: "a-long-local-part@example.com")
        try s.given(r.failed(.validation, reason: "invalid-email", withUID: false), in: r.stream)
        let html = HTMLReport.render(model(s.views), options: HTMLReport.Options(showEmails: true))
        #expect(html.contains("<td class=\"email\"><span class=\"nw\">a-long-local-part</span><wbr><span class=\"nw\">@example</span>"))
    }

    @Test func aSingleHourTimelineIsDrawnAsARow() throws {
        let views = try ViewLoader.load(path: Paths.demoLog, asOf: nil, now: FixedClock.start).views
        let m = model(views)
        #expect(m.timeline.count == 1)
        let html = HTMLReport.render(m)
        let timeline = try #require(html.components(separatedBy: "data-section=\"timeline\"").last?.components(separatedBy: "</section>").first)
        #expect(timeline.contains(">2026-11-29 09:00 UTC</text>"), "\(timeline)")
        #expect(timeline.contains(">2 completed, 3 not</text>"))
        #expect(timeline.contains("height=\"36\" viewBox=\"0 0 770 36\""), "one 28-pixel row, as the other bar charts")
        // The completed bar and the failed one stacked along the row: 2 and 3 of 5 of 380 pixels.
        #expect(timeline.contains("data-series=\"completed\" x=\"230\" y=\"8\" width=\"152\""))
        #expect(timeline.contains("data-series=\"failed\" x=\"382\" y=\"8\" width=\"228\""))
    }

    @Test func theHeaderNamesTheLogsFullPath() throws {
        try withTempDirectory { dir in
            try FileManager.default.createDirectory(atPath: dir + "/logs", withIntermediateDirectories: true)
            try writeBytes(try readBytes(Paths.demoLog), to: dir + "/logs/events.jsonl")
            let result = try ledger("report", "--log", "logs/events.jsonl", "--html", "report.html", cwd: dir)
            #expect(result.status == 0, "\(result)")
            let html = try readText(dir + "/report.html")
            let real = URL(fileURLWithPath: dir + "/logs/events.jsonl").resolvingSymlinksInPath().path
            #expect(html.contains(" · log <code>\(real)</code>"), "\(real)")
        }
    }

    @Test func aReportWithEmailsShownIsForItsOwnerOnly() throws {
        try withTempDirectory { dir in
            let out = dir + "/report.html"
            func mode() throws -> Int { (try FileManager.default.attributesOfItem(atPath: out)[.posixPermissions] as? Int) ?? -1 }
            #expect(try ledger("report", "--log", Paths.demoLog, "--html", out).status == 0)
            #expect(try mode() == 0o644)
            let shown = try ledger("report", "--log", Paths.demoLog, "--html", out, "--show-emails")
            #expect(shown.status == 0, "\(shown)")
            #expect(try mode() == 0o600, "emails in full: owner only")
            #expect(pageText(try readText(out)).contains("carol@example.com"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["report.html"], "no temporary file is left")
        }
    }
}
