import Foundation
import LedgerDomain
import LedgerKit
import Testing

// MARK: - ReplayLanesTests

/// The read commands' views (lines read in place, `LogScanner.scanFacts`) equal the views folded
/// from every line built whole (`LogScanner.scan`, then `LedgerViews.apply(_: RecordedEvent)`) on a
/// generated log with every event type.
struct ReplayLanesTests {
    @Test func inPlaceAndWholeLinesFoldTheSameViews() throws {
        try withTempDirectory("replay-lanes") { folder in
            let log = try GeneratedLog.make(in: folder, events: 4000, seed: 31)
            // 4,000 events: under the checkpoint interval, so nothing is saved beside the log.
            let inPlace = try ViewLoader.load(path: log, asOf: nil, now: Timestamp(millis: 0)).views

            var whole = LedgerViews()
            var checker = ChainChecker()
            var problems: [LogProblem] = []
            try LogScanner.scan(try FileDescriptor(path: log, flags: O_RDONLY), checker: &checker) { item in
                switch item {
                case .event(let event, _, _): whole.apply(event)
                case .problem(let problem, _, _), .tornTail(let problem, _, _): problems.append(problem)
                }
                return true
            }
            #expect(problems.isEmpty)
            #expect(whole.events == 4_000)
            #expect(inPlace == whole)
            #expect(inPlace.users.rows == whole.users.rows && inPlace.sessions.rows == whole.sessions.rows)
            #expect(inPlace.images.rows == whole.images.rows && inPlace.registrations.rows == whole.registrations.rows)
            #expect(inPlace.signIns.rows == whole.signIns.rows && inPlace.head == whole.head)
            #expect(inPlace.invariantViolations().isEmpty)
        }
    }
}
