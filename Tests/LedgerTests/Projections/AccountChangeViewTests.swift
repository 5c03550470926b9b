import Foundation
import LedgerDomain
import LedgerKit
import Testing

/// The account-change view of the demo log: disables, enables and revoked sessions, on both decode
/// paths, through a checkpoint, and in the report.
@Suite struct AccountChangeViewTests {
    private static func demoViews() throws -> LedgerViews {
        try ViewLoader.load(path: Paths.demoLog, asOf: nil, now: FixedClock.start).views
    }

    @Test func theDemoChangesAndRevocationsInLogOrder() throws {
        let view = try Self.demoViews().accountChanges
        #expect(view.changes.map(\.seq) == [19, 22])
        #expect(view.changes.map(\.change) == [.disabled, .enabled])
        #expect(view.changes.map(\.reason) == ["reported for spam", nil])
        #expect(view.changes.allSatisfy { $0.email == "bob@example.com" })
        #expect(view.revoked.map(\.seq) == [20, 24])
        #expect(view.revoked.map(\.reason) == ["account-disabled", "revoked"])
        let json = view.changes.map { JSONWriter.string($0.json) }
        #expect(json.first?.hasPrefix(#"{"seq":19,"at":"#) == true)
        #expect(json.last?.hasSuffix(#""email":"bob@example.com","change":"enabled"}"#) == true)
    }

    @Test func theDecodedPathFoldsTheSame() throws {
        // Folding decoded events (not the in-place fast path) gives the same view.
        var views = LedgerViews()
        for line in try readText(Paths.demoLog).split(separator: "\n") {
            var bytes = Array(line.utf8)
            let envelope = try bytes.withUnsafeMutableBufferPointer { try LineCodec.decodeGeneric(UnsafeBufferPointer($0), lineNumber: 1).0 }
            guard case .event(let event) = ChainChecker.prepare(envelope) else { Issue.record("not an event: \(line)"); continue }
            views.apply(RecordedEvent(envelope: envelope, event: event))
        }
        #expect(views.accountChanges == (try Self.demoViews()).accountChanges)
        #expect(!views.accountChanges.revoked.isEmpty)
    }

    @Test func aLogoutIsNoRevocation() {
        #expect(SessionEnded(sessionId: UUIDBits.zero.uuidString, uid: UUIDBits.zero.uuidString, reason: "logout").viewFact
                == .sessionEnded(session: .zero, revocation: nil))
        #expect(SessionEndReason.isRevocation("revoked") && SessionEndReason.isRevocation("account-disabled"))
        #expect(!SessionEndReason.isRevocation("logout"))
    }

    @Test func theCheckpointCarriesTheChanges() throws {
        let views = try Self.demoViews()
        let (bytes, read) = try Fixtures.checkpointRoundTrip(views)
        #expect(Array(bytes.prefix(8)) == Array("LEDGERV8".utf8))
        #expect(read.accountChanges == views.accountChanges)
        #expect(read.accountChanges.changes.count == 2)
    }

    @Test func theReportShowsSignInsAndChanges() throws {
        let model = ReportModel(views: try Self.demoViews(), asOf: Timestamp(rfc3339: "2026-11-29T12:00:00.000Z")!,
                                verifyOK: true, generatedAt: Timestamp(rfc3339: "2026-11-29T12:00:01.000Z")!)
        #expect(model.signIns.map(\.email) == ["bob@example.com", "dave@example.com"])
        #expect(model.signIns.map(\.failures) == [2, 1])
        #expect(model.signIns.allSatisfy { !$0.locked })
        #expect(model.accountChanges.count == 2 && model.revokedSessions.count == 2)
        let html = HTMLReport.render(model)
        #expect(html.contains("data-section=\"sign-ins\"") && html.contains("data-section=\"account-changes\""))
        #expect(pageText(html).contains("b***@example.com") && pageLacks(html, "bob@example.com"))
        #expect(html.contains("data-change=\"disabled\"") && html.contains("reported for spam"))
        #expect(html.components(separatedBy: "<tr class=\"revoked\"").count - 1 == 2)
        #expect(pageText(HTMLReport.render(model, options: HTMLReport.Options(showEmails: true))).contains("bob@example.com"))
    }
}
