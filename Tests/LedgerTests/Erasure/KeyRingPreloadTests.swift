import Foundation
import LedgerDomain
@testable import LedgerKit
import Testing

// MARK: - KeyRingPreloadTests

/// A ring that reads the whole key store on a thread of its own (`KeyRing.preload`) while lines are
/// opened: every member opens to what a ring without it gives, whatever the order in which the
/// load and the lookups meet, and an erasure the ring learnt before the load ends stays.
@Suite struct KeyRingPreloadTests {
    @Test(arguments: [0, 3, 40, 200])
    func aPreloadedRingOpensWhatAPlainRingOpens(linesBeforeJoining: Int) throws {
        try withTempDirectory { dir in
            let store = FileEventStore(directory: dir, clock: FixedClock(step: 1), random: SeededRandom(seed: 5))
            let count = 120
            for n in 0..<count {
                _ = try store.append([Fixtures.event(.accountCreated, n)], to: Fixtures.stream(.registration, n), expected: .noStream)
            }
            let destroyed = SubjectID.account(UUIDBits(uuid: Fixtures.uuid(1000 + 7))!)
            try store.destroyKeys(of: [destroyed])
            let lines = splitLines(try readBytes(dir + "/events.jsonl")).map { Array($0.dropLast()) }
            func emails(_ ring: KeyRing, _ lines: ArraySlice<[UInt8]>) -> [String?] {
                lines.map { line in
                    line.withUnsafeBufferPointer { buffer -> String? in
                        guard case .accountCreated(_, let email, _)? = LineCodec.readInPlace(buffer, opener: ring)?.event.fact else { return nil }
                        return email
                    }
                }
            }
            let plain = emails(KeyRing(directory: dir), lines[...])
            #expect(plain.compactMap { $0 }.count == count)
            let ring = KeyRing(directory: dir)
            // Erased by the log before the load ends (or after: it must stay erased either way).
            let noted = SubjectID.account(UUIDBits(uuid: Fixtures.uuid(1000 + 11))!)
            let preload = try #require(ring.preload())
            #expect(ring.preload() == nil, "one load at a time")
            _ = ring.noteErased(noted)
            var read = emails(ring, lines[..<min(linesBeforeJoining, lines.count)])
            preload.join()
            read += emails(ring, lines[min(linesBeforeJoining, lines.count)...])
            #expect(ring.preload() == nil, "loaded already")
            for (n, email) in read.enumerated() {
                if n == 11 { #expect(email == "", "noted as erased") } else { #expect(email == plain[n], "line \(n)") }
            }
            #expect(read[7] == "", "its key destroyed")
        }
    }
}
