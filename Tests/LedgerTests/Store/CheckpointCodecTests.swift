import Foundation
@testable import LedgerDomain
import LedgerKit
import Testing

// MARK: - CheckpointCodecTests

/// The binary checkpoint: views read back equal to the views written; any truncation or damage is
/// refused with `CheckpointError` or by the trailing digest, never a trap; on disk, a damaged or
/// foreign checkpoint is ignored.
struct CheckpointCodecTests {
    /// The views of a generated log with every event type, and the log's path.
    private func generated(_ folder: String) throws -> (LedgerViews, String) {
        let log = try GeneratedLog.make(in: folder, events: 3000, seed: 21)
        return (try ViewLoader.load(path: log, asOf: nil, now: Timestamp(millis: 0)).views, log)
    }

    /// Fingerprints for `views.events` made-up ids (the codec only needs one per event).
    private func ids(for views: LedgerViews) -> IDFingerprints {
        IDFingerprints(seed: UUIDBits(high: 3, low: 4), ids: (0..<views.events).map { UUIDBits(high: 9, low: UInt64($0)) })!
    }

    private func encode(_ views: LedgerViews, ids: IDFingerprints? = nil) -> [UInt8] {
        final class Box: @unchecked Sendable { var bytes: [UInt8] = [] }
        let box = Box()
        CheckpointWriter.write(views, ids: ids ?? self.ids(for: views)) { box.bytes.append(contentsOf: $0) }
        return box.bytes
    }

    private func decodeWhole(_ bytes: [UInt8]) throws -> (views: LedgerViews, ids: IDFingerprints) {
        var position = 0
        let read = try CheckpointReader.read { buffer in
            let n = min(buffer.count, bytes.count - position)
            bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + position, byteCount: n) }
            position += n
            return n
        }
        return (read.views, read.ids)
    }

    private func decode(_ bytes: [UInt8]) throws -> LedgerViews { try decodeWhole(bytes).views }

    @Test func idFingerprintsRoundTripAndMustMatchTheEvents() throws {
        try withTempDirectory("checkpoint-ids") { folder in
            let (views, log) = try generated(folder)
            let ids = try LogRewriting.fingerprints(ofLog: log)
            #expect(ids.count == views.events)
            #expect(try decodeWhole(encode(views, ids: ids)).ids == ids)
            // One fingerprint fewer than events: refused.
            let short = IDFingerprints(seed: ids.seed, sorted: Array(ids.sorted.dropLast()))!
            #expect(throws: CheckpointError.self) { try decode(encode(views, ids: short)) }
        }
    }

    @Test func viewsRoundTrip() throws {
        try withTempDirectory("checkpoint-codec") { folder in
            let (views, _) = try generated(folder)
            #expect(views.users.count > 100 && views.registrations.rows.contains { $0.failure != nil })
            let bytes = encode(views)
            let back = try decode(bytes)
            #expect(back == views)
            #expect(back.users.rows == views.users.rows && back.sessions.rows == views.sessions.rows)
            #expect(back.registrations.rows == views.registrations.rows && back.signIns.rows == views.signIns.rows)
            #expect(back.head == views.head && back.events == views.events)
            #expect(back.invariantViolations().isEmpty)
            #expect(encode(back) == bytes, "re-encoding gives the same bytes")
            #expect(try decode(encode(LedgerViews())) == LedgerViews())
        }
    }

    /// Where a string's bytes live (nil for one stored inline: 15 bytes or fewer).
    private func storage(_ text: String) -> UnsafeRawPointer? {
        guard text.utf8.count > 15 else { return nil }
        return text.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
    }

    /// A restore costs the memory a fold from scratch does: the users view keeps its emails as
    /// bytes (no string to share), and a failed registration's row and its failure share one email
    /// string, as the fold's do; a registration whose email was written in another normal form
    /// than its account's keeps its own bytes.
    @Test func aRestoredRegistrationSharesItsFailuresEmail() throws {
        try withTempDirectory("checkpoint-shared") { folder in
            let (views, _) = try generated(folder)
            let back = try decode(encode(views))
            #expect(back == views)
            #expect(back.users.texts.byteCount == views.users.rows.reduce(0) { $0 + $1.email.utf8.count + ($1.userName?.utf8.count ?? 0) },
                    "a restore keeps each user's texts once")
            // A failed registration's row and its failure: one email string.
            func failuresSharing(_ views: LedgerViews) -> (shared: Int, apart: Int) {
                var counts = (shared: 0, apart: 0)
                for row in views.registrations.rows {
                    guard let email = row.facts.email, let failed = row.failure?.email, email == failed, let mine = storage(email) else { continue }
                    if mine == storage(failed) { counts.shared += 1 } else { counts.apart += 1 }
                }
                return counts
            }
            // (A fold shares it where the row took its email from the failure, a restore wherever they are equal.)
            let failures = failuresSharing(views)
            #expect(failures.shared > 10)
            #expect(failuresSharing(back).shared == failures.shared + failures.apart && failuresSharing(back).apart == 0)

            // A hand-written log creates one uid twice, in another normal form of one email: the
            // first registration keeps the bytes it was written with, though they compare equal.
            let composed = "caf\u{E9}-user-of-a-long-address@example.com", decomposed = "cafe\u{301}-user-of-a-long-address@example.com"
            #expect(composed == decomposed && !composed.utf8.elementsEqual(decomposed.utf8))
            let uid = UUIDBits(high: 7, low: 7)
            func created(_ seq: Int, _ email: String, registration: UInt64) -> ViewEvent {
                ViewEvent(seq: seq, at: Timestamp(millis: Int64(seq)), category: .registration, stream: UUIDBits(high: 9, low: registration),
                          fact: .accountCreated(uid: uid, email: email, withImage: false))
            }
            var twice = LedgerViews()
            twice.apply(created(1, composed, registration: 1), hash: .zero)
            twice.apply(created(2, decomposed, registration: 2), hash: .zero)
            let restored = try decode(encode(twice))
            let first = try #require(restored.registrations.rows.first { $0.id == UUIDBits(high: 9, low: 1) })
            #expect(first.facts.email.map { Array($0.utf8) } == Array(composed.utf8))
            #expect(restored.users.rows.map { Array($0.email.utf8) } == [Array(decomposed.utf8)])
        }
    }

    @Test func truncationsAndDamageAreRefusedWithoutATrap() throws {
        try withTempDirectory("checkpoint-damage") { folder in
            let (views, _) = try generated(folder)
            let bytes = encode(views)
            for cut in Array(0..<200) + Array(stride(from: 200, to: bytes.count, by: 97)) {
                #expect(throws: CheckpointError.self) { try decode(Array(bytes.prefix(cut))) }
            }
            #expect(throws: CheckpointError.self) { try decode(bytes + [0]) }
            let random = SeededRandom(seed: 8)
            var refused = 0
            for _ in 0..<400 {
                var damaged = bytes
                damaged[random.next(damaged.count)] ^= UInt8(1 << random.next(8))
                do { _ = try decode(damaged) } catch is CheckpointError { refused += 1 }
            }
            #expect(refused > 0, "some flips hit a tag, count, enum or length")
        }
    }

    /// A text whose bytes are not UTF-8 is refused as such (decoding would repair it into another text).
    @Test func aTextThatIsNotUTF8IsRefused() throws {
        var views = LedgerViews()
        let email = "caf\u{E9}-someone@example.com"
        views.apply(ViewEvent(seq: 1, at: Timestamp(millis: 1), category: .registration, stream: UUIDBits(high: 9, low: 1),
                              fact: .accountCreated(uid: UUIDBits(high: 1, low: 1), email: email, withImage: false)), hash: .zero)
        let bytes = encode(views), needle = Array(email.utf8)
        var damaged = 0
        for bad: [UInt8] in [[0xFF], [0xC3, 0x28], [0xE0, 0x80], [0xED, 0xA0]] {  // a stray byte, a cut pair, an overlong form, a surrogate
            var copy = bytes
            // Every copy of the email (the users view's and the registration's) spelled with `bad` where the é was.
            var at = 0
            while let found = (at..<(copy.count - needle.count)).first(where: { Array(copy[$0..<($0 + needle.count)]) == needle }) {
                copy.replaceSubrange((found + 3)..<(found + 3 + bad.count), with: bad)
                at = found + needle.count
                damaged += 1
            }
            #expect(throws: CheckpointError(message: "invalid UTF-8")) { try decode(copy) }
        }
        #expect(damaged >= 8)
    }

    /// A checkpoint holds what the log may hold: an email of 100 KB (a valid member, if odd) reads
    /// back, where a reader that refused it made every checkpoint of that log unusable.
    @Test func aLongTextReadsBack() throws {
        var views = LedgerViews()
        let email = String(repeating: "a", count: 100_000) + "@example.com"
        views.apply(ViewEvent(seq: 1, at: Timestamp(millis: 1), category: .signin, stream: UUIDBits(high: 9, low: 1),
                              fact: .signInFailed(email: email, reason: .unknownEmail)), hash: .zero)
        #expect(views.signIns.row(email: email)?.failures == 1)
        let back = try decode(encode(views))
        #expect(back == views && back.signIns.row(email: email)?.failures == 1)
    }

    /// A refusal count no log could reach (more than its events) is refused: one more refusal of
    /// that email would overflow it.
    @Test func aRefusalCountBeyondTheEventsIsRefused() throws {
        for failures in [2, Int.max] {
            var views = LedgerViews()
            views.apply(ViewEvent(seq: 1, at: Timestamp(millis: 1), category: .signin, stream: UUIDBits(high: 9, low: 1),
                                  fact: .signInFailed(email: "someone@example.com", reason: .unknownEmail)), hash: .zero)
            views.signIns.restore(SignInView.Row(email: "someone@example.com", failures: failures))
            #expect(throws: CheckpointError(message: "more refused sign-ins than events")) { try decode(encode(views)) }
        }
    }

    /// A registration stream of many compensations (a hand-written log that `verify` calls intact)
    /// reads back: the writer saves what the fold holds, and a read takes it (with a limit of 16,
    /// every checkpoint of such a log was refused, so `verify` reported it sealed but refused).
    /// A count beyond the events is still refused.
    @Test func aRowOfManyCompensationsReadsBackAndOneBeyondTheEventsDoesNot() throws {
        var views = LedgerViews()
        let registration = UUIDBits(high: 8, low: 1), uid = UUIDBits(high: 8, low: 2)
        views.apply(ViewEvent(seq: 1, at: Timestamp(millis: 1), category: .registration, stream: registration,
                              fact: .accountCreated(uid: uid, email: "many@example.com", withImage: nil)), hash: .zero)
        for seq in 2...40 {
            views.apply(ViewEvent(seq: seq, at: Timestamp(millis: Int64(seq)), category: .registration, stream: registration,
                                  fact: .accountDeleted(uid: uid)), hash: .zero)
        }
        let compensations = try #require(views.registrations.state(of: registration.uuidString)).facts.compensations.count
        #expect(compensations > 16)
        let back = try decode(encode(views))
        #expect(back == views)
        var forged = views
        var row = try #require(forged.registrations.state(of: registration.uuidString))
        row.facts.compensations += Array(repeating: .accountDeleted, count: forged.events)
        forged.registrations.restore(row)
        #expect(throws: CheckpointError(message: "more compensations than events")) { try decode(encode(forged)) }
    }

    @Test func onDiskADamagedOrTruncatedCheckpointIsIgnored() throws {
        try withTempDirectory("checkpoint-file") { folder in
            let (views, log) = try generated(folder)
            let file = try FileDescriptor(path: log, flags: O_RDONLY)
            let size = try file.size()
            let text = try String(contentsOfFile: log, encoding: .utf8)
            let lastLine = text.dropLast().split(separator: "\n").last!
            let lineStart = size - lastLine.utf8.count - 1
            let ids = try LogRewriting.fingerprints(ofLog: log)
            Checkpoint(views: views, ids: ids, lineStart: lineStart, offset: size).save(forLog: log)
            let loaded = try #require(Checkpoint.load(forLog: log, file: file))
            #expect(loaded.views == views && loaded.ids == ids && loaded.offset == size)
            let path = Checkpoint.path(forLog: log)
            let saved = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            for at in [9, 30, saved.count / 2, saved.count - 70, saved.count - 1] {
                var damaged = saved
                damaged[at] ^= 0x04
                try Data(damaged).write(to: URL(fileURLWithPath: path))
                #expect(Checkpoint.load(forLog: log, file: file) == nil, "a flip at \(at) is caught")
            }
            try Data(saved.prefix(saved.count - 1)).write(to: URL(fileURLWithPath: path))
            #expect(Checkpoint.load(forLog: log, file: file) == nil)
            // A checkpoint naming a line the log does not hold there is ignored too.
            try Data(saved).write(to: URL(fileURLWithPath: path))
            #expect(Checkpoint.load(forLog: log, file: file) != nil)
            Checkpoint(views: views, ids: ids, lineStart: lineStart - 1, offset: size).save(forLog: log)
            #expect(Checkpoint.load(forLog: log, file: file) == nil)
        }
    }

    @Test func anEmailReusedByARecreatedAccountRestoresAsFolded() throws {
        // A(e) created, A deleted, B(e) created, B deleted, A(e) created again: A keeps its first
        // place, so B is later in row order though A was created last. Restored, the email must
        // still name A, live, as the fold does.
        let a = UUIDBits(uuid: "00000000-0000-4000-8000-00000000000a")!, b = UUIDBits(uuid: "00000000-0000-4000-8000-00000000000b")!
        let registration = UUIDBits(uuid: "10000000-0000-4000-8000-000000000001")!
        var views = LedgerViews()
        let facts: [ViewEvent.Fact] = [
            .accountCreated(uid: a, email: "e@example.com", withImage: false), .accountDeleted(uid: a),
            .accountCreated(uid: b, email: "e@example.com", withImage: false), .accountDeleted(uid: b),
            .accountCreated(uid: a, email: "e@example.com", withImage: false),
        ]
        for (n, fact) in facts.enumerated() {
            views.apply(ViewEvent(seq: n + 1, at: Timestamp(millis: Int64(n)), category: .registration, stream: registration, fact: fact),
                        hash: .zero)
            #expect(views.invariantViolations().isEmpty)
        }
        #expect(views.users.live(email: "e@example.com")?.uid == a.uuidString)
        let back = try decode(encode(views))
        #expect(back.users.live(email: "e@example.com")?.uid == a.uuidString)
        #expect(back.invariantViolations().isEmpty)
    }
}
