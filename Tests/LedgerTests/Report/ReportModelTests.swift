import Foundation
import LedgerDomain
import LedgerKit
import Testing

// Pure tests of the audit report: the model computed from views, and the HTML rendered from it.

/// The views of the shipped demo log.
private func demoViews() throws -> LedgerViews {
    try ViewLoader.load(path: Paths.demoLog, asOf: nil, now: FixedClock.start).views
}

/// A model with fixed times, verify passed.
private func model(_ views: LedgerViews, since: Timestamp? = nil, anomalies: [ReportModel.Anomaly] = []) -> ReportModel {
    ReportModel(views: views, asOf: Timestamp(rfc3339: "2026-11-29T12:00:00.000Z")!, since: since, anomalies: anomalies,
                verifyOK: true, generatedAt: Timestamp(rfc3339: "2026-11-29T12:00:01.000Z")!)
}

@Suite struct ReportModelTests {
    @Test func theDemoFunnel() throws {
        let m = model(try demoViews())
        #expect(m.funnel.map(\.key) == ["attempts", "account", "image", "profile", "signed-in"])
        // 5 registrations: alice and bob complete and sign in, carol fails at profile (compensated),
        // two are rejected before an account exists.
        #expect(m.funnel.map(\.count) == [5, 3, 3, 2, 2])
        #expect(m.funnel.map(\.lost) == [0, 2, 0, 1, 0])
        #expect(m.funnel.map(\.lostPerMille) == [0, 400, 0, 333, 0])
        #expect(m.imagesStored == 2 && m.imagesSkipped == 1)
        #expect(m.head == Head(seq: 25, hash: "90978856cb226b5f6aaf6147f7eae3a2a313288c4a3483ca237c5987c66b6ebf"))
        #expect(m.events == 25)
    }

    @Test func theDemoFailuresCompensationsAndTimeline() throws {
        let m = model(try demoViews())
        #expect(m.failures == [ReportModel.Bar(label: "validation · invalid-email", count: 1),
                               ReportModel.Bar(label: "account · email-already-in-use", count: 1),
                               ReportModel.Bar(label: "profile · io-error", count: 1)])
        #expect(m.compensations == [ReportModel.Bar(label: "ImageDeleted", count: 1), ReportModel.Bar(label: "AccountDeleted", count: 1)])
        #expect(m.bucketMillis == ReportModel.hour)
        #expect(m.timeline == [ReportModel.Bucket(start: Timestamp(rfc3339: "2026-11-29T09:00:00.000Z")!, completed: 2, failed: 3)])
        #expect(m.failedRows.map(\.outcome) == ["rejected", "rejected", "compensated"])
        #expect(m.failedRows.map(\.reason) == ["invalid-email", "email-already-in-use", "io-error"])
        #expect(m.failedRows[2].compensations == ["ImageDeleted", "AccountDeleted"])
        #expect(m.failedRows.allSatisfy { !$0.anomalous })
    }

    @Test func sinceKeepsOnlyLaterRegistrationsAndTheTimelineKeepsEmptyHours() throws {
        let s = ViewScenario()
        let early = RegistrationScript(1), late = RegistrationScript(2), failed = RegistrationScript(3)
        s.at("2026-11-29T09:10:00.000Z")
        try s.given(early.accountCreated(withImage: false), in: early.stream)
        try s.given(early.profileWritten(image: false), in: early.stream)
        s.at("2026-11-29T12:30:00.000Z")
        try s.given(late.accountCreated(withImage: true), in: late.stream)
        try s.given(late.imageStored, in: late.stream)
        try s.given(late.profileWritten(), in: late.stream)
        try s.given(late.sessionStarted(Fixtures.uuid(1)), in: StreamCategory.session.stream(Fixtures.uuid(1)))
        try s.given(failed.failed(.validation, reason: "invalid-email", withUID: false), in: failed.stream)

        let all = model(s.views)
        #expect(all.funnel.map(\.count) == [3, 2, 2, 2, 1])
        #expect(all.timeline.map(\.start.rfc3339) == ["2026-11-29T09:00:00.000Z", "2026-11-29T10:00:00.000Z",
                                                       "2026-11-29T11:00:00.000Z", "2026-11-29T12:00:00.000Z"])
        #expect(all.timeline.map(\.completed) == [1, 0, 0, 1])
        #expect(all.timeline.map(\.failed) == [0, 0, 0, 1])

        let since = model(s.views, since: Timestamp(rfc3339: "2026-11-29T12:00:00.000Z"))
        #expect(since.funnel.map(\.count) == [2, 1, 1, 1, 1])
        #expect(since.imagesStored == 1 && since.imagesSkipped == 0)
        #expect(since.timeline.count == 1)
        #expect(since.failedRows.map(\.registration) == [failed.registration])
        #expect(since.failures == [ReportModel.Bar(label: "validation · invalid-email", count: 1)])
        let html = HTMLReport.render(since)
        #expect(html.contains("registrations since 2026-11-29T12:00:00.000Z"))
        #expect(!html.contains(early.registration))
    }

    @Test func aLongSpanGetsWiderBuckets() throws {
        let s = ViewScenario()
        for n in 0..<3 {
            let r = RegistrationScript(n)
            s.at("2026-1\(n)-01T00:00:00.000Z")
            try s.given(r.failed(.validation, reason: "invalid-email", withUID: false), in: r.stream)
        }
        let m = model(s.views)
        #expect(m.timeline.count <= ReportModel.maxBuckets)
        #expect(m.bucketMillis > ReportModel.hour && m.bucketMillis % ReportModel.hour == 0)
        #expect(m.timeline.reduce(0) { $0 + $1.failed } == 3)
        #expect(HTMLReport.render(m).contains("Registrations per \(m.bucketMillis / ReportModel.hour) hours"))
    }

    @Test func anEmptyLogStillRendersEverySection() {
        let html = HTMLReport.render(model(LedgerViews()))
        for key in ["digest", "funnel", "failures", "compensations", "timeline", "failed-registrations", "sign-ins", "account-changes", "anomalies"] {
            #expect(html.contains("data-section=\"\(key)\""), "\(key)")
        }
        #expect(html.contains("No failed registration."))
    }
}

@Suite struct HTMLReportTests {
    @Test func emailsAreMaskedByDefault() throws {
        #expect(EmailMask.mask("alice@example.com") == "a***@example.com")
        #expect(EmailMask.mask("not-an-email") == "n***")
        #expect(EmailMask.mask("") == "***")
        #expect(EmailMask.mask("@example.com") == "***@example.com")
        let m = model(try demoViews())
        let masked = HTMLReport.render(m)
        #expect(pageText(masked).contains("c***@example.com"))
        #expect(pageLacks(masked, "carol@example.com"))
        #expect(pageLacks(masked, "alice@example.com") && pageLacks(masked, "bob@example.com"))
        #expect(masked.contains("emails masked"))
        let shown = HTMLReport.render(m, options: HTMLReport.Options(showEmails: true))
        #expect(pageText(shown).contains("carol@example.com"))
        #expect(shown.contains("emails shown"))
    }

    @Test func emailsInFreeTextAreMaskedWithTheSameMask() {
        #expect(EmailMask.maskEmails(in: "the email carol@example.com is already in use") == "the email c***@example.com is already in use")
        #expect(EmailMask.maskEmails(in: "(carol@example.com). And Bob.Smith+x@mail.example.org, too")
                == "(c***@example.com). And B***@mail.example.org, too")
        #expect(EmailMask.maskEmails(in: "a@b and @example.com and x@ and no email") == "a@b and @example.com and x@ and no email")
        #expect(EmailMask.maskEmails(in: "é carol@example.com é") == "é c***@example.com é")
    }

    @Test func everyValueIsEscaped() throws {
        let s = ViewScenario()
        let hostile = "<script>alert('x')</script>\"@example.com"
        let r = RegistrationScript(1, email: hostile)
        try s.given(.failed(Failed(step: .validation, reason: "invalid-email", message: "bad <img src=x onerror=alert(1)> & \"quoted\"",
                                   email: hostile)), in: r.stream)
        let anomaly = ReportModel.Anomaly(kind: "interrupted", key: "registration", value: "<b>x</b>", message: "<script>no</script>")
        for showEmails in [false, true] {
            let html = HTMLReport.render(model(s.views, anomalies: [anomaly]), options: HTMLReport.Options(showEmails: showEmails, source: "<log>"))
            #expect(!html.contains("<script"), "showEmails \(showEmails)")
            #expect(!html.contains("<img"))
            #expect(!html.contains("<b>x"))
            #expect(!html.contains("<log>"))
            #expect(html.contains("&lt;img src=x onerror=alert(1)&gt; &amp; &quot;quoted&quot;"))
            #expect(html.contains("&lt;script&gt;no&lt;/script&gt;"))
        }
        let shown = HTMLReport.render(model(s.views), options: HTMLReport.Options(showEmails: true))
        #expect(pageText(shown).contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&quot;@example.com"))
        let masked = HTMLReport.render(model(s.views))
        #expect(pageText(masked).contains("&lt;***@example.com"))
        #expect(HTMLReport.escape("a\u{1}b\u{7F}") == "a\u{FFFD}b\u{FFFD}")
    }

    @Test func anomaliesAreHighlighted() throws {
        let s = ViewScenario(), r = RegistrationScript(1)
        try s.given(r.accountCreated(withImage: false), in: r.stream)
        let anomaly = ReportModel.Anomaly(kind: "interrupted", key: "registration", value: r.registration,
                                          message: "registration \(r.registration) has no terminal event")
        let m = model(s.views, anomalies: [anomaly])
        #expect(m.failedRows.map(\.anomalous) == [true])
        let html = HTMLReport.render(m)
        #expect(html.contains("<tr class=\"anomaly\" data-registration=\"\(r.registration)\">"))
        #expect(html.contains("data-anomalies=\"1\""))
        #expect(!html.contains("No anomalies."))
    }

    @Test func theDigestAndVerifyStatusArePrinted() throws {
        let views = try demoViews()
        let html = HTMLReport.render(model(views))
        #expect(html.contains("data-head-seq=\"25\""))
        #expect(html.contains("90978856cb226b5f6aaf6147f7eae3a2a313288c4a3483ca237c5987c66b6ebf"))
        #expect(html.contains("data-verify=\"passed\""))
        let failed = ReportModel(views: views, asOf: FixedClock.start, verifyOK: false, verifyProblem: "line 9: bad-hash: <x>",
                                 generatedAt: FixedClock.start)
        let damaged = HTMLReport.render(failed)
        #expect(damaged.contains("data-verify=\"failed\""))
        #expect(damaged.contains("line 9: bad-hash: &lt;x&gt;"))
    }

    @Test func thePageIsSelfContained() throws {
        let html = HTMLReport.render(model(try demoViews()))
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        for forbidden in ["<script", "http://", "https://", "src=", "href=", "url(", "@import", "<link", "<img", "<iframe"] {
            #expect(!html.contains(forbidden), "\(forbidden)")
        }
        #expect(html.components(separatedBy: "<svg").count - 1 >= 4)
    }
}
