import LedgerDomain
import Testing

// MARK: - AsOfTests

/// How `--as-of` is resolved: which checkpoints may start a read, which events it includes, and
/// the instant the views then stand at.
struct AsOfTests {
    let t5 = Timestamp(millis: 5_000), t9 = Timestamp(millis: 9_000)

    @Test func parsesASeqOrATimeAndNothingElse() {
        #expect(AsOf("12") == .seq(12))
        #expect(AsOf("0") == .seq(0))
        #expect(AsOf("2026-01-02T03:04:05.000Z") == .time(Timestamp(rfc3339: "2026-01-02T03:04:05.000Z")!))
        #expect(AsOf("-1") == nil)
        #expect(AsOf("yesterday") == nil)
    }

    @Test func aSeqStartsFromACheckpointAtOrBeforeItAndATimeNever() {
        #expect(AsOf.seq(10).mayUseCheckpoints)
        #expect(AsOf.seq(10).mayStart(fromCheckpointAt: 10))
        #expect(AsOf.seq(10).mayStart(fromCheckpointAt: 3))
        #expect(!AsOf.seq(10).mayStart(fromCheckpointAt: 11))
        #expect(!AsOf.time(t9).mayUseCheckpoints)
        #expect(!AsOf.time(t9).mayStart(fromCheckpointAt: 1))
    }

    @Test func aSeqIncludesEventsUpToItAndATimeEventsNotAfterIt() {
        #expect(AsOf.seq(4).includes(seq: 4, at: t9))
        #expect(!AsOf.seq(4).includes(seq: 5, at: t5))
        #expect(AsOf.time(t5).includes(seq: 99, at: t5))
        #expect(!AsOf.time(t5).includes(seq: 1, at: t9))
    }

    @Test func theViewsStandAtTheTimeGivenOrTheLastEventIncluded() {
        #expect(AsOf.time(t5).instant(lastIncludedAt: t9) == t5)
        #expect(AsOf.seq(3).instant(lastIncludedAt: t9) == t9)
        #expect(AsOf.seq(0).instant(lastIncludedAt: nil) == Timestamp(millis: 0))
    }
}
