import Foundation
import LedgerDomain
@testable import LedgerKit
import Testing

// MARK: - ErasureMarkerHandOverTests

/// Two erasures one after the other from two writers: the second finishes the first's left behind
/// (its event there, its key not yet destroyed) and writes its own marker; when the first writer
/// then destroys its key, the marker it finds is the second's and stays, naming a subject whose key
/// is still live, until the second destroys it. Removing it made `verify` report the second's key as
/// restored from a backup (`VerifyBesideWritersTests`, about one run in twenty under load), and a
/// crash of the second writer then would have left its key with nothing to finish the erasure.
struct ErasureMarkerHandOverTests {
    @Test func aWriterRemovesOnlyItsOwnErasureMarker() throws {
        try withTempDirectory { dir in
            let first = FileEventStore(directory: dir, clock: FixedClock(step: 1), random: SeededRandom(seed: 1))
            let second = FileEventStore(directory: dir, clock: FixedClock(step: 1), random: SeededRandom(seed: 2))
            for n in 1...2 {
                _ = try first.append([Fixtures.event(.accountCreated, n)], to: Fixtures.stream(.registration, n), expected: .noStream)
            }
            let (a, c) = (Fixtures.uuid(1001), Fixtures.uuid(1002))
            let (subjectA, subjectC) = (SubjectID.account(UUIDBits(uuid: a)!), SubjectID.account(UUIDBits(uuid: c)!))
            func erasure(_ uid: String) -> [StreamAppend] {
                [StreamAppend([.personalDataErased(PersonalDataErased(uid: uid, reason: .accountDeleted))],
                              to: StreamCategory.account.stream(uid), expected: .any)]
            }
            func keyState(_ subject: SubjectID) throws -> KeyStore.KeyState { try KeyStore(directory: dir, writable: false).state(of: subject) }
            let marker = first.erasureMarkerPath
            // The first writer's event, its keys not yet destroyed (its next step).
            _ = try first.append(erasure(a), condition: nil)
            #expect(ErasedKeys.markedSubjects(logPath: first.logPath) == [subjectA])
            // The second writer finishes that erasure, then begins its own.
            _ = try second.append(erasure(c), condition: nil)
            #expect(try keyState(subjectA) == .erased)
            #expect(ErasedKeys.markedSubjects(logPath: first.logPath) == [subjectC])
            #expect(try keyState(subjectC) == .live)
            // The first writer's last step: its key (already gone) destroyed, the other's marker kept.
            try first.destroyKeys(of: [subjectA])
            #expect(ErasedKeys.markedSubjects(logPath: first.logPath) == [subjectC], "the second erasure's marker stays")
            #expect(ErasedKeys.problems(logPath: first.logPath, keyStore: first.keyStorePath, erasedOn: [subjectA: 3, subjectC: 4],
                                        pause: { _ in }).markerStays, "verify waits for it, as for any erasure under way")
            try second.destroyKeys(of: [subjectC])
            #expect(!FileSystem.exists(marker))
            #expect(try keyState(subjectC) == .erased)
        }
    }
}
