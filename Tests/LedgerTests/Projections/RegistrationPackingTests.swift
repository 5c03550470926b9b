@testable import LedgerDomain
import Testing

// MARK: - RegistrationPackingTests

/// The registrations view keeps each row packed, its email and failure's texts in one arena, and
/// folds it in place through the one fold (`RegistrationFolding`). Over random histories, every row
/// it spells out is the one the plain fold gives (`RegistrationState`, strings and all, over the
/// row's stream, with the times of its first and last events), also after a checkpoint's round trip.
struct RegistrationPackingTests {
    private static let emails = ["a@b.co", "someone-with-a-long-address@example.com", "", "caf\u{E9}-long-enough-to-be-heap@example.com",
                                 "cafe\u{301}-long-enough-to-be-heap@example.com", "x\u{0}y@example.com"]
    private static let texts = ["", "interrupted", "a message long enough to live on the heap, with ünïcode"]

    /// A random registration-stream fact (and, now and then, another stream's).
    private func randomFact(_ random: SeededRandom) -> ViewEvent.Fact {
        let uid = UUIDBits(high: 1, low: UInt64(random.next(3)))
        let image = UUIDBits(high: 2, low: UInt64(random.next(3)))
        switch random.next(8) {
        case 0, 1:
            return .accountCreated(uid: uid, email: random.pick(Self.emails), withImage: random.pick([nil, true, false]))
        case 2:
            return .imageStored(uid: uid, image: image, contentType: .png, bytes: 10, sha256: .zero)
        case 3:
            return .profileWritten(uid: uid, userName: "n", profileImage: nil, createdAt: Timestamp(millis: 5))
        case 4, 5:
            return .failed(Failed(step: random.pick(RegistrationStep.allCases), reason: random.pick(Self.texts),
                                  message: random.pick(Self.texts), email: random.pick([nil] + Self.emails),
                                  uid: random.pick([nil, "", uid.uuidString])))
        case 6:
            return .imageDeleted(image: image)
        default:
            return .accountDeleted(uid: uid)
        }
    }

    @Test(arguments: 0..<60) func packedRowsAreWhatThePlainFoldGives(seed: UInt64) throws {
        let random = SeededRandom(seed: seed)
        var views = LedgerViews()
        var plain: [UUIDBits: (state: RegistrationState, first: Timestamp, last: Timestamp)] = [:]
        var order: [UUIDBits] = []
        for seq in 1...(20 + random.next(120)) {
            let stream = UUIDBits(high: 9, low: UInt64(random.next(6)))
            let fact = randomFact(random), at = Timestamp(millis: Int64(seq) * 1000 + Int64(random.next(999)))
            views.apply(ViewEvent(seq: seq, at: at, category: .registration, stream: stream, fact: fact), hash: .zero)
            var entry = plain[stream] ?? (RegistrationState(registration: stream.uuidString), at, at)
            if plain[stream] == nil { order.append(stream) }
            entry.state.apply(fact)
            entry.last = at
            plain[stream] = entry
        }
        let rows = views.registrations.rows
        #expect(rows.map(\.id) == order)
        for row in rows {
            let expected = try #require(plain[row.id])
            #expect(row.facts == expected.state.facts, "seed \(seed)")
            #expect(row.failure == expected.state.failure)
            #expect(row.version == expected.state.version && row.outcome == expected.state.outcome)
            #expect(row.startedAt == expected.first && row.lastAt == expected.last)
            // The row's strings keep the bytes the events spelled (not only an equal normal form).
            #expect(row.facts.email.map { Array($0.utf8) } == expected.state.facts.email.map { Array($0.utf8) })
            #expect(row.failure?.email.map { Array($0.utf8) } == expected.state.failure?.email.map { Array($0.utf8) })
            #expect(views.registrations.state(of: row.registration) == row)
        }
        #expect(views.registrations.outcomes == rows.map(\.outcome))

        // A checkpoint's round trip restores the same rows.
        final class Box: @unchecked Sendable { var bytes: [UInt8] = [] }
        let box = Box()
        let ids = IDFingerprints(seed: UUIDBits(high: 3, low: 4), ids: (0..<views.events).map { UUIDBits(high: 8, low: UInt64($0)) })!
        CheckpointWriter.write(views, ids: ids) { box.bytes.append(contentsOf: $0) }
        var position = 0
        let back = try CheckpointReader.read { buffer in
            let n = min(buffer.count, box.bytes.count - position)
            box.bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + position, byteCount: n) }
            position += n
            return n
        }
        #expect(back.views.registrations.rows == rows)
    }

    /// An email told again (a hand-written log's second `AccountCreated`) or given by a failure
    /// after the account's keeps one place in the arena: folding a row does not grow the arena.
    @Test func aRowTellingItsEmailAgainDoesNotGrowTheArena() {
        var view = RegistrationView()
        let stream = UUIDBits(high: 9, low: 1), email = "someone-with-a-long-address@example.com"
        func apply(_ seq: Int, _ fact: ViewEvent.Fact) {
            view.apply(ViewEvent(seq: seq, at: Timestamp(millis: Int64(seq)), category: .registration, stream: stream, fact: fact))
        }
        apply(1, .accountCreated(uid: UUIDBits(high: 1, low: 1), email: email, withImage: false))
        let once = view.textBytes
        #expect(once == email.utf8.count)
        apply(2, .accountCreated(uid: UUIDBits(high: 1, low: 1), email: email, withImage: false))
        apply(3, .profileWritten(uid: UUIDBits(high: 1, low: 1), userName: "n", profileImage: nil, createdAt: Timestamp(millis: 3)))
        #expect(view.textBytes == once)
        apply(4, .failed(Failed(step: .profile, reason: "r", message: "m", email: email, uid: nil)))
        #expect(view.textBytes == once + 2, "the failure's email shares the row's bytes")
    }

    /// A row keeps an absent time as one no line can spell (`EventTimes`), so a checkpoint holding
    /// such a time (forged, and sealed again) is refused rather than read as an absent one.
    @Test func aCheckpointTimeNoLineCanSpellIsRefused() throws {
        for millis in [Int64.min, Timestamp.spellable.lowerBound.millis - 1, Timestamp.spellable.upperBound.millis + 1] {
            var views = LedgerViews()
            let session = ViewEvent(seq: 1, at: Timestamp(millis: 0), category: .session, stream: UUIDBits(high: 5, low: 1),
                                    fact: .sessionStarted(session: UUIDBits(high: 5, low: 1), uid: UUIDBits(high: 1, low: 1),
                                                          expiresAt: Timestamp(millis: millis)))
            views.apply(session, hash: .zero)
            final class Box: @unchecked Sendable { var bytes: [UInt8] = [] }
            let box = Box()
            CheckpointWriter.write(views, ids: IDFingerprints(seed: UUIDBits(high: 3, low: 4), ids: [UUIDBits(high: 8, low: 1)])!) {
                box.bytes.append(contentsOf: $0)
            }
            var position = 0
            #expect(throws: CheckpointError.self) {
                _ = try CheckpointReader.read { buffer in
                    let n = min(buffer.count, box.bytes.count - position)
                    box.bytes.withUnsafeBytes { buffer.baseAddress!.copyMemory(from: $0.baseAddress! + position, byteCount: n) }
                    position += n
                    return n
                }
            }
        }
        #expect(Timestamp.spellable.contains(Timestamp(rfc3339: "0000-01-01T00:00:00+23:59")!))
        #expect(Timestamp.spellable.contains(Timestamp(rfc3339: "9999-12-31T23:59:59.999-23:59")!))
    }
}
