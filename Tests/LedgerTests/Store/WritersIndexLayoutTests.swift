import Glibc
import LedgerDomain
import LedgerKit
import Testing

// MARK: - WritersIndexLayoutTests

/// The bytes of `events.jsonl.index` (format `LDGRIX07`) at the offsets the format fixes, read
/// from the file rather than through `WritersIndex`, so a change of its declared layout that would
/// move a field fails here (an older or newer binary must find each field where it always was).
struct WritersIndexLayoutTests {
    /// The integer of type `T` at byte `offset` of `bytes`.
    private func value<T: FixedWidthInteger>(_: T.Type, _ bytes: [UInt8], at offset: Int) -> T {
        bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
    }

    /// The byte offsets of the slots tagged `tag`.
    private func slots(tagged tag: UInt8, in bytes: [UInt8]) -> [Int] {
        stride(from: 4096, to: bytes.count, by: 48).filter { bytes[$0] == tag }
    }

    @Test func theHeaderAndEachSlotKindHoldTheirFieldsAtTheFormatsOffsets() throws {
        try withTempDirectory { dir in
            let store = FileEventStore(directory: dir, clock: FixedClock(step: 1000), random: SeededRandom(seed: 3))
            let registration = Fixtures.stream(.registration, 1)
            let first = try store.append([Fixtures.registration(1)], to: registration, expected: .noStream, condition: .uniqueEmails)
            guard case .accountCreated(let created) = first[0].event else { Issue.record("not an AccountCreated"); return }
            let failure = LedgerEvent.signInFailed(SignInFailed(email: created.email, reason: .wrongPassword))
            let second = try store.append([failure], to: Fixtures.stream(.signin, 2), expected: .noStream)
            let third = try store.append([Fixtures.event(.profileWritten, 1)], to: registration, expected: .exactly(1))
            let log = try readBytes(store.logPath)
            let bytes = try readBytes(store.indexPath)

            // The header.
            #expect(Array(bytes[0..<8]) == Array("LDGRIX07".utf8))
            #expect(bytes.count == 4096 + 4096 * 48)
            let lastLine = try #require(log.dropLast().lastIndex(of: 0x0A)) + 1
            #expect(value(Int64.self, bytes, at: 48) == Int64(log.count))
            #expect(value(Int64.self, bytes, at: 56) == Int64(lastLine))
            #expect(value(Int64.self, bytes, at: 64) == 3)
            #expect(String(decoding: bytes[72..<136], as: UTF8.self) == third[0].envelope.hash)
            #expect(value(Int64.self, bytes, at: 136) == third[0].at.millis)
            #expect(value(Int64.self, bytes, at: 144) == 4096)
            var info = stat()
            #expect(stat(store.logPath, &info) == 0)
            #expect(value(UInt64.self, bytes, at: 160) == UInt64(info.st_dev))
            #expect(value(UInt64.self, bytes, at: 168) == UInt64(info.st_ino))
            #expect(value(Int64.self, bytes, at: 176) == 1)

            // A registration stream (tag 1), keyed by its id's bits: count, first and last line, seq.
            let streams = slots(tagged: 1, in: bytes)
            try #require(streams.count == 1)
            let stream = streams[0], id = try #require(UUIDBits(uuid: Fixtures.uuid(1)))
            #expect(value(UInt64.self, bytes, at: stream + 8) == id.high && value(UInt64.self, bytes, at: stream + 16) == id.low)
            #expect(value(UInt32.self, bytes, at: stream + 4) == 2)
            #expect(value(Int64.self, bytes, at: stream + 24) == 0)
            #expect(value(Int64.self, bytes, at: stream + 32) == Int64(lastLine))
            #expect(value(Int64.self, bytes, at: stream + 40) == 3)

            // The email (tag 5) names the account; the uid (tag 6) names the email's key.
            let uid = try #require(UUIDBits(uuid: created.uid))
            let email = slots(tagged: 5, in: bytes), account = slots(tagged: 6, in: bytes)
            try #require(email.count == 1 && account.count == 1)
            #expect(value(UInt64.self, bytes, at: email[0] + 24) == uid.high && value(UInt64.self, bytes, at: email[0] + 32) == uid.low)
            #expect(value(UInt64.self, bytes, at: email[0] + 40) == 1)
            #expect(Array(bytes[(account[0] + 24)..<(account[0] + 40)]) == Array(bytes[(email[0] + 8)..<(email[0] + 24)]))
            #expect(value(UInt64.self, bytes, at: account[0] + 40) == 1)

            // The account (tag 7): its status (active since line 3), its AccountCreated line and that line's hash's first 8 bytes.
            let accounts = slots(tagged: 7, in: bytes)
            try #require(accounts.count == 1)
            #expect(value(UInt32.self, bytes, at: accounts[0] + 4) == UInt32(AccountStatus.allCases.firstIndex(of: .active) ?? 99))
            #expect(value(Int64.self, bytes, at: accounts[0] + 24) == 0)
            #expect(value(UInt64.self, bytes, at: accounts[0] + 32) == Digest32(hex: first[0].envelope.hash)?.a)

            // The failures (tag 8): one wrong password, its time first; the older times (tag 9) beside it.
            let failures = slots(tagged: 8, in: bytes)
            try #require(failures.count == 1 && slots(tagged: 9, in: bytes).count == 1)
            #expect(value(UInt32.self, bytes, at: failures[0] + 4) == 1)
            #expect(value(Int64.self, bytes, at: failures[0] + 24) == second[0].at.millis)
            #expect(value(Int64.self, bytes, at: failures[0] + 40) == 2)
            #expect(value(Int64.self, bytes, at: 152) == Int64(slots(tagged: 1, in: bytes).count + slots(tagged: 3, in: bytes).count + 5))
        }
    }
}
