import Glibc
import LedgerDomain
import LedgerKit
import Testing

// MARK: - StreamReadTests

/// `readIndexedStream` reads a stream where the writers' index says it is: it answers even when
/// another stream's line between them is damaged (which the whole-log read refuses), so these tests
/// can tell the indexed read from its fallback; and a slot it cannot trust falls back.
struct StreamReadTests {
    private func writer(_ dir: String) -> FileEventStore {
        FileEventStore(directory: dir, clock: FixedClock(step: 1), random: SecureRandom())
    }

    /// Builds: a(1) b(2) s(3) c(4) a(5) b(6) a(7) s(8) a(9) a(10); returns streams.
    private func build(_ dir: String) throws -> (a: String, b: String, s: String, c: String) {
        let store = writer(dir)
        let a = Fixtures.stream(.registration, 40), b = Fixtures.stream(.registration, 41), c = Fixtures.stream(.registration, 42)
        let s = Fixtures.stream(.session, 43)
        _ = try store.append([Fixtures.registration(1)], to: a, expected: .noStream)
        _ = try store.append([Fixtures.registration(2)], to: b, expected: .noStream)
        _ = try store.append([Fixtures.event(.sessionStarted, 3)], to: s, expected: .noStream)
        _ = try store.append([Fixtures.registration(4)], to: c, expected: .noStream)
        _ = try store.append([Fixtures.event(.imageStored, 1)], to: a, expected: .exactly(1))
        _ = try store.append([Fixtures.event(.failed, 2)], to: b, expected: .exactly(1))
        _ = try store.append([Fixtures.event(.profileWritten, 1)], to: a, expected: .exactly(2))
        _ = try store.append([Fixtures.event(.sessionEnded, 3)], to: s, expected: .exactly(1))
        _ = try store.append([Fixtures.event(.failed, 1), Fixtures.event(.imageDeleted, 1)], to: a, expected: .exactly(3))
        return (a, b, s, c)
    }

    @Test func aStreamOfMoreThanTwoLinesIsReadFromTheSpanBetweenThem() throws {
        try withTempDirectory { dir in
            let (a, _, _, _) = try build(dir)
            let expected = try writer(dir).readStream(a)
            try damageLine(writer(dir).logPath, line: 5)  // b's 2nd line, inside a's span
            #expect(throws: StoreError.self) { _ = try writer(dir).readStream(a) }
            let fast = try writer(dir).readIndexedStream(a)
            #expect(fast == expected)
        }
    }

    @Test func streamsOfOneAndTwoLinesAreReadAtTheirOffsets() throws {
        try withTempDirectory { dir in
            let (_, b, s, c) = try build(dir)
            let eb = try writer(dir).readStream(b), es = try writer(dir).readStream(s)
            try damageLine(writer(dir).logPath, line: 3)  // c
            #expect(try writer(dir).readIndexedStream(b) == eb)
            #expect(try writer(dir).readIndexedStream(s) == es)
            // The damaged stream itself: the whole-log read, which reports the damage.
            #expect(throws: StoreError.self) { _ = try writer(dir).readIndexedStream(c) }
        }
    }

    /// Slots applied beyond the header (a writer killed before it moved the header on): applied
    /// again, the offsets stay right.
    @Test func offsetsStayRightWhenLinesAreAppliedTwice() throws {
        try withTempDirectory { dir in
            let a = Fixtures.stream(.registration, 40), b = Fixtures.stream(.registration, 41)
            _ = try writer(dir).append([Fixtures.registration(1)], to: b, expected: .noStream)
            let path = writer(dir).indexPath
            let oldHeader = Array(try readBytes(path).prefix(4096))
            _ = try writer(dir).append([Fixtures.registration(2)], to: a, expected: .noStream)
            _ = try writer(dir).append([Fixtures.event(.failed, 1)], to: b, expected: .exactly(1))
            _ = try writer(dir).append([Fixtures.event(.imageStored, 2)], to: a, expected: .exactly(1))
            _ = try writer(dir).append([Fixtures.event(.profileWritten, 2)], to: a, expected: .exactly(2))
            var bytes = try readBytes(path)
            bytes.replaceSubrange(0..<4096, with: oldHeader)
            try writeBytes(bytes, to: path)
            let expected = try writer(dir).readStream(a)
            _ = try writer(dir).streamVersion(a)  // re-applies lines 2..5
            try damageLine(writer(dir).logPath, line: 2)  // b's 2nd, inside a's span
            #expect(try writer(dir).readIndexedStream(a) == expected)
        }
    }

    /// A corrupt slot (first offset = Int64.min) under a valid header: the whole-log read answers, no trap.
    @Test func aCorruptSlotFallsBackToTheWholeLog() throws {
        try withTempDirectory { dir in
            let (a, _, _, _) = try build(dir)
            let path = writer(dir).indexPath
            var bytes = try readBytes(path)
            let bits = Identifiers.uuidBits(StreamName.parse(a)!.id)!
            var patched = 0
            var slot = 4096
            while slot + 48 <= bytes.count {
                if bytes[slot] == 1 {
                    let high = bytes[(slot + 8)..<(slot + 16)].withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                    let low = bytes[(slot + 16)..<(slot + 24)].withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                    if high == bits.high && low == bits.low {
                        withUnsafeBytes(of: Int64.min) { bytes.replaceSubrange((slot + 24)..<(slot + 32), with: $0) }
                        patched += 1
                    }
                }
                slot += 48
            }
            #expect(patched == 1)
            try writeBytes(bytes, to: path)
            let expected = try writer(dir).readStream(a)
            #expect(try writer(dir).readIndexedStream(a) == expected)
        }
    }
}
