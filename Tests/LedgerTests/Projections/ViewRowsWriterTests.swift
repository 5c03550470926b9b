import Foundation
import LedgerDomain
import LedgerKit
import Testing

// MARK: - ViewRowsWriterTests

/// `ViewRowsWriter` (what `replay --json` digests) writes exactly the bytes `JSONWriter` writes for the
/// read commands' `--json` rows, on a generated log with every event type, escapes and non-ASCII names,
/// at times where sessions are active, ended and expired.
struct ViewRowsWriterTests {
    /// The bytes a writer hands its sink.
    private func collect(_ write: (@escaping (UnsafeRawBufferPointer) -> Void) -> Void) -> [UInt8] {
        final class Box: @unchecked Sendable { var bytes: [UInt8] = [] }
        let box = Box()
        write { box.bytes.append(contentsOf: $0) }
        return box.bytes
    }

    private func expectSameRows(_ views: LedgerViews, at asOf: Timestamp) {
        same(collect { ViewRowsWriter.users(views.users, sink: $0) }, JSONWriter.bytes(.array(views.users.rows.map(\.json))), "users")
        same(collect { ViewRowsWriter.sessions(views.sessions, at: asOf, sink: $0) },
             JSONWriter.bytes(.array(views.sessions.rows.map { $0.json(at: asOf) })), "sessions")
        let active = views.sessions.rows.filter { $0.status(at: asOf) == .active }
        same(collect { ViewRowsWriter.sessions(views.sessions, at: asOf, activeOnly: true, sink: $0) },
             JSONWriter.bytes(.array(active.map { $0.json(at: asOf) })), "active sessions")
        same(collect { ViewRowsWriter.images(views.images, sink: $0) }, JSONWriter.bytes(.array(views.images.rows.map(\.json))), "images")
        same(collect { ViewRowsWriter.registrations(views.registrations, sink: $0) },
             JSONWriter.bytes(.array(views.registrations.rows.map(\.json))), "registrations")
        // `audit --json`'s lists: the failed registrations, and each email's sign-in failures.
        same(collect { ViewRowsWriter.registrations(views.registrations, failedOnly: true, sink: $0) },
             JSONWriter.bytes(.array(views.registrations.rows.filter { $0.outcome != .completed }.map(\.json))), "failed registrations")
        same(collect { ViewRowsWriter.signInFailures(views.signIns, at: asOf, sink: $0) },
             JSONWriter.bytes(.array(views.signIns.rows.map { row in
                 .object(JSONObject([("email", .string(row.email)), ("failures", .int(row.failures)),
                                     ("locked", .bool(views.signIns.lockedUntil(row.email, at: asOf) != nil))]))
             })), "sign-in failures")
    }

    /// Expects equal bytes; on a difference, names the first differing offset with a short excerpt of each.
    private func same(_ written: [UInt8], _ expected: [UInt8], _ view: String, sourceLocation: SourceLocation = #_sourceLocation) {
        guard written != expected else { return }
        let at = zip(written, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(written.count, expected.count)
        func excerpt(_ bytes: [UInt8]) -> String { String(decoding: bytes[max(0, at - 40)..<min(bytes.count, at + 40)], as: UTF8.self) }
        Issue.record("\(view): rows differ at byte \(at): wrote …\(excerpt(written))… expected …\(excerpt(expected))…", sourceLocation: sourceLocation)
    }

    @Test func generatedLogRowsAreByteIdentical() throws {
        try withTempDirectory("rows-writer") { folder in
            let log = try GeneratedLog.make(in: folder, events: 3000, seed: 11)
            let loaded = try ViewLoader.load(path: log, asOf: nil, now: Timestamp(millis: 0))
            let views = loaded.views
            #expect(views.users.count > 100 && views.sessions.count > 100 && views.images.count > 10)
            #expect(views.registrations.rows.contains { $0.outcome == .compensated })
            #expect(views.users.rows.contains { $0.userName?.contains("\"") == true }, "a name that JSON escapes")
            let starts = views.sessions.rows.map(\.startedAt.millis).sorted()
            // Before any session expires, in the middle of the log, and long after every expiry.
            for asOf in [starts[0], starts[starts.count / 2], starts[starts.count - 1] + 90 * 86_400_000] {
                expectSameRows(views, at: Timestamp(millis: asOf))
            }
            let statuses = Set(views.sessions.statuses(at: Timestamp(millis: starts[starts.count - 1] + 90 * 86_400_000)))
            #expect(statuses == [.ended, .expired])
        }
    }

    @Test func demoLogAndEmptyViewsAreByteIdentical() throws {
        expectSameRows(LedgerViews(), at: Timestamp(millis: 0))
        let loaded = try ViewLoader.load(path: Paths.demoLog, asOf: nil, now: Timestamp(millis: 1_800_000_000_000))
        expectSameRows(loaded.views, at: loaded.asOfTime)
    }

    @Test func rowsLongerThanTheWritersBufferAreByteIdentical() {
        // Names of 200,000 and 300,000 characters, one plain and one with escapes: longer than the
        // writer's 128 KiB buffer, so they go to the sink on their own, between buffered bytes.
        var views = LedgerViews()
        let plain = String(repeating: "é", count: 100_000)
        let escaped = String(repeating: "a\"b\\c\n", count: 50_000)
        for (n, name) in [plain, escaped, "short"].enumerated() {
            let uid = "00000000-0000-4000-8000-00000000000\(n)"
            let registration = "10000000-0000-4000-8000-00000000000\(n)"
            let at = Timestamp(millis: 1_800_000_000_000 + Int64(n))
            views.apply(ViewEvent(seq: 2 * n + 1, at: at, category: .registration, stream: UUIDBits(uuid: registration)!,
                                  fact: .accountCreated(uid: UUIDBits(uuid: uid)!, email: "u\(n)@example.com", withImage: false)),
                        hash: .zero)
            views.apply(ViewEvent(seq: 2 * n + 2, at: at, category: .registration, stream: UUIDBits(uuid: registration)!,
                                  fact: .profileWritten(uid: UUIDBits(uuid: uid)!, userName: name, profileImage: nil, createdAt: at)),
                        hash: .zero)
        }
        #expect(views.users.count == 3)
        expectSameRows(views, at: Timestamp(millis: 1_800_000_000_000))
    }

    /// The writer keeps the last day's `YYYY-MM-DD`: times that go back and forth across midnight,
    /// the epoch, and years outside 0…9999 (spelled the long way) still come out as `JSONWriter` has them.
    @Test func timesAcrossDaysAndYearsAreByteIdentical() {
        let millis: [Int64] = [0, 86_399_999, 86_400_000, 86_399_998, -1, -86_400_001, 1_800_000_000_000, 1_800_000_000_001,
                               253_402_300_799_999, 253_402_300_800_000, 253_402_300_799_000, -62_167_219_200_001,
                               -62_167_219_200_000, 0, 951_782_400_000, 951_868_799_999]  // … 2000-02-29
        var views = LedgerViews()
        for (n, at) in millis.enumerated() {
            let session = UUIDBits(high: 0x1000 + UInt64(n), low: 1), uid = UUIDBits(high: 0x2000 + UInt64(n), low: 2)
            views.apply(ViewEvent(seq: n + 1, at: Timestamp(millis: at), category: .session, stream: session,
                                  fact: .sessionStarted(session: session, uid: uid, expiresAt: Timestamp(millis: at &+ 86_400_000))),
                        hash: .zero)
        }
        #expect(views.sessions.count == millis.count)
        expectSameRows(views, at: Timestamp(millis: 0))
        let written = String(decoding: collect { ViewRowsWriter.sessions(views.sessions, at: Timestamp(millis: 0), sink: $0) }, as: UTF8.self)
        #expect(written.contains(#""startedAt":"1970-01-01T23:59:59.999Z","#))
        #expect(written.contains(#""startedAt":"2000-02-29T00:00:00.000Z","#))
        #expect(written.contains(#""startedAt":"9999-12-31T23:59:59.999Z","#))
    }

    /// A row's times fall on up to three days (start, end, expiry 30 days on) and the writer keeps
    /// two: every order of them must still spell each date right.
    @Test func threeDaysPerRowAreByteIdentical() {
        var views = LedgerViews()
        let day: Int64 = 86_400_000
        var seq = 0
        for n in 0..<60 {
            let session = UUIDBits(high: 0x3000 + UInt64(n), low: 3), uid = UUIDBits(high: 0x4000 + UInt64(n % 7), low: 4)
            let start = Timestamp(millis: 1_800_000_000_000 + Int64(n) * day / 3)
            seq += 1
            views.apply(ViewEvent(seq: seq, at: start, category: .session, stream: session,
                                  fact: .sessionStarted(session: session, uid: uid, expiresAt: Timestamp(millis: start.millis + 30 * day))),
                        hash: .zero)
            guard n % 2 == 0 else { continue }
            seq += 1
            views.apply(ViewEvent(seq: seq, at: Timestamp(millis: start.millis + Int64(n % 5) * day), category: .session, stream: session,
                                  fact: .sessionEnded(session: session)), hash: .zero)
        }
        expectSameRows(views, at: Timestamp(millis: 1_800_000_000_000 + 10 * day))
    }
}
