import Glibc
import LedgerDomain

// MARK: - WritersIndex: the last erasures

/// The header's record of the last erasure events the table folded (`Header.erasures`): where a
/// writer looks for a key store restored on its own from a backup taken before an erasure, beside
/// caches written after it (no line it folds meets the erasure again). It only says where to look:
/// a key it finds live, of an erasure whose line the log holds where the record says
/// (`ErasureLine`), sends the writer to the sweep over the whole verified log
/// (`FileEventStore.finishErasuresTheIndexRecords`), which destroys what the log's own events name.
extension WritersIndex {
    /// How many erasure events the table folded; 0 for a count no log reaches (a damaged or
    /// forged header: the record then starts again, and `verify` names the difference).
    var erasureCount: Int {
        let count = Int(self[header: Header.erasureCount])
        return count >= 0 && count <= Self.mostErasures ? count : 0
    }

    /// More erasures than any log holds.
    private static let mostErasures = 1 << 40

    /// Notes `event` (its line starting at `offset`) when it is an erasure
    /// (`ViewEvent.Fact.erasedSubject`), once: an event already noted (its seq not after the last
    /// one's, a writer folding it again) changes nothing.
    func noteErasure(_ event: ViewEvent, offset: Int) {
        guard let subject = event.fact.erasedSubject else { return }
        let count = erasureCount
        if count > 0, Int(load(Int64.self, at: Self.erasureEntry(count - 1))) >= event.seq { return }
        let text = Array(subject.text.utf8)
        guard text.count <= Header.subjectLength else { return }  // an account's id is 44 bytes, a day's fewer
        let entry = Self.erasureEntry(count)
        store(Int64(event.seq), at: entry)
        store(Int64(offset), at: entry + 8)
        memset(base + entry + 16, 0, Header.subjectLength)
        for (i, byte) in text.enumerated() { store(byte, at: entry + 16 + i) }
        self[header: Header.erasureCount] = Int64(count + 1)
    }

    /// The last erasures the table folded (at most `Header.recentErasures`), oldest first, each
    /// with where its line starts; an entry whose bytes do not spell a subject (a damaged file) is
    /// left out.
    var recentErasures: [(erasure: RecordedErasure, offset: Int)] {
        let count = erasureCount
        guard count > 0 else { return [] }
        return (max(0, count - Header.recentErasures)..<count).compactMap { n in
            let entry = Self.erasureEntry(n)
            let bytes = UnsafeRawBufferPointer(start: base + entry + 16, count: Header.subjectLength)
            let text = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            return SubjectID(text).map { (RecordedErasure(seq: Int(load(Int64.self, at: entry)), subject: $0), Int(load(Int64.self, at: entry + 8))) }
        }
    }

    /// True when this table's record of the erasures is `expected`'s, byte for byte (`verify`).
    func sameErasures(as expected: WritersIndex) -> Bool {
        let size = Header.erasures + Header.recentErasures * Header.erasureSize - Header.erasureCount.offset
        return memcmp(base + Header.erasureCount.offset, expected.base + Header.erasureCount.offset, size) == 0
    }

    /// Where the `n`-th erasure's entry lies (the ring's).
    private static func erasureEntry(_ n: Int) -> Int {
        Header.erasures + (n % Header.recentErasures) * Header.erasureSize
    }
}
