@testable import LedgerDomain
import Testing

// MARK: - TextArenaTests

/// The users view keeps its emails and names as bytes in a `TextArena`: every text comes back byte
/// for byte, wherever it landed, and comparisons are of bytes.
struct TextArenaTests {
    @Test func everyTextComesBackByteForByte() {
        var arena = TextArena()
        let rng = SeededRandom(seed: 31)
        var texts = ["", "a", "ann@example.com", "Zoë Çelik", "名前", String(repeating: "x", count: 300_000), "e\u{301}"]
        // Enough texts to fill several chunks, so some land at a chunk's start and some near its end.
        for i in 0..<40_000 { texts.append("person\(i)-\(rng.next() % 1_000_000)@example.com") }
        let refs = texts.map { arena.add($0) }
        for (text, ref) in zip(texts, refs) {
            #expect(arena.string(ref) == text)
            #expect(arena.withBytes(ref) { Array($0) } == Array(text.utf8))
            #expect(arena.holds(ref, text))
        }
        #expect(arena.byteCount == texts.reduce(0) { $0 + $1.utf8.count })
    }

    /// Texts that fill a chunk to its last byte, then an empty text (an erased email and name),
    /// then more: each comes back (the empty one named a chunk not made yet).
    @Test func anEmptyTextAfterAnExactlyFullChunkComesBack() {
        var arena = TextArena()
        let piece = String(repeating: "n", count: 128)
        var refs = (0..<2048).map { _ in arena.add(piece) }  // 2048 × 128 bytes: one chunk, full
        #expect(arena.byteCount == 1 << 18)
        let empty = arena.add("")
        refs.append(arena.add(piece))
        #expect(arena.string(empty) == "")
        #expect(arena.holds(empty, "") && !arena.holds(empty, piece))
        #expect(refs.allSatisfy { arena.string($0) == piece })
        // And a view whose last user is erased right after such a chunk prints its rows.
        var view = UserView()
        for n in 0..<2049 {
            let uid = UUIDBits(high: 5, low: UInt64(n))
            view.restore(uid: uid, registration: uid, email: n == 2048 ? "" : String(repeating: "e", count: 100),
                         userName: n == 2048 ? "" : String(repeating: "u", count: 28), profileImage: nil, createdAt: nil,
                         status: n == 2048 ? .deleted : .active, emailSeq: n + 1)
        }
        #expect(view.rows.count == 2049 && view.rows.last?.email == "")
    }

    @Test func noneIsNoText() {
        var arena = TextArena()
        #expect(arena.add(nil as String?) == .none)
        #expect(arena.string(.none) == nil)
        #expect(!arena.holds(.none, ""))
        let empty = arena.add("")
        #expect(!empty.isNone && arena.string(empty) == "")
        #expect(!arena.same(.none, as: empty, in: arena) && arena.same(.none, as: .none, in: arena))
    }

    /// Bytes, not canonical equivalence: "é" precomposed and decomposed are two emails, as the views'
    /// byte hash already keys them.
    @Test func comparisonsAreOfBytes() {
        var arena = TextArena()
        let composed = arena.add("\u{e9}@example.com")
        #expect("\u{e9}@example.com" == "e\u{301}@example.com", "Swift's String calls them equal")
        #expect(arena.holds(composed, "\u{e9}@example.com"))
        #expect(!arena.holds(composed, "e\u{301}@example.com"))
    }

    /// Two arenas holding the same texts at other places compare them as equal.
    @Test func theSameTextInAnotherArenaIsTheSame() {
        var a = TextArena(), b = TextArena()
        _ = b.add(String(repeating: "filler", count: 50_000))
        let x = a.add("ann@example.com"), y = b.add("ann@example.com"), z = b.add("ben@example.com")
        #expect(a.same(x, as: y, in: b))
        #expect(!a.same(x, as: z, in: b))
    }

    /// A view that reached its rows through changes (old texts left behind in its arena) equals a
    /// view restored with the same rows, and differs when one text differs.
    @Test func viewsCompareTheirTextsNotWhereTheyLie() {
        let uid = UUIDBits(high: 7, low: 1), stream = UUIDBits(high: 8, low: 1)
        var folded = UserView()
        folded.apply(ViewEvent(seq: 1, at: Timestamp(millis: 1), category: .registration, stream: stream,
                               fact: .accountCreated(uid: uid, email: "old@example.com", withImage: false)))
        folded.apply(ViewEvent(seq: 2, at: Timestamp(millis: 2), category: .registration, stream: stream,
                               fact: .profileWritten(uid: uid, userName: "First", profileImage: nil, createdAt: Timestamp(millis: 2))))
        folded.apply(ViewEvent(seq: 3, at: Timestamp(millis: 3), category: .registration, stream: stream,
                               fact: .profileWritten(uid: uid, userName: "Second", profileImage: nil, createdAt: Timestamp(millis: 3))))
        folded.apply(ViewEvent(seq: 4, at: Timestamp(millis: 4), category: .account, stream: uid,
                               fact: .emailChanged(uid: uid, email: "new@example.com", previousEmail: "old@example.com")))
        let record = folded.records[0]
        func restored(name: String) -> UserView {
            var view = UserView()
            view.restore(uid: uid, registration: record.registration, email: "new@example.com", userName: name, profileImage: nil,
                         createdAt: record.createdAt, status: record.status, emailSeq: record.emailSeq, emailVerified: record.emailVerified)
            view.restoreMovedAway(folded.movedAway)
            return view
        }
        #expect(folded.texts.byteCount > restored(name: "Second").texts.byteCount, "the folded arena keeps the old texts")
        #expect(folded == restored(name: "Second"))
        #expect(folded != restored(name: "Secund"))
        #expect(folded.rows == restored(name: "Second").rows)
    }
}
