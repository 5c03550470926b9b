import LedgerDomain
import LedgerKit

// MARK: - Following

extension EventsCommand {
    /// How long to sleep between looks at the log.
    static let pollMilliseconds = 200

    /// `--follow`: prints the matching events so far, then every 200 ms those appended since, until
    /// SIGINT or SIGTERM (exit 0), `--limit` events (exit 0) or a damaged line (exit 1).
    static func follow(_ tail: LogTail, _ selection: Selection, _ listing: inout EventListing, _ context: Context) throws -> Int32 {
        let signals = InterruptSignals.block()
        defer { signals.restore() }
        var waitingNoted = false
        var seen = 0
        while true {
            let outcome: LogTail.Outcome
            do {
                outcome = try tail.read { event, line in
                    seen += 1
                    // A long first read still answers Ctrl-C promptly.
                    if seen % 1024 == 0 && signals.wait(milliseconds: 0) { return false }
                    guard selection.matches(event) else { return true }
                    listing.add(event, line: line)
                    return listing.count < selection.limit
                }
            } catch {
                listing.finish()
                throw error
            }
            listing.flushBatch()
            switch outcome {
            case .damaged(let problem):
                listing.finish()
                context.complain("\(problem) — stopped there; run `ledger verify` for the full report")
                return CLIError.Status.failure.rawValue
            case .stopped:
                // `--limit` reached, or interrupted during a long read.
                listing.finish()
                return 0
            case .missing where !waitingNoted:
                context.complain("no log at \(tail.path) yet; waiting for the first event (Ctrl-C to stop)")
                waitingNoted = true
            case .missing, .caughtUp:
                break
            }
            if signals.wait(milliseconds: pollMilliseconds) {
                listing.finish()
                return 0
            }
        }
    }

    /// `--follow` on a PostgreSQL store: the same output and exits, but woken by the `NOTIFY` each
    /// append transaction sends (LISTEN), looking for SIGINT/SIGTERM every 100 ms while idle.
    static func followPostgres(_ tail: PostgresLogTail, _ selection: Selection, _ listing: inout EventListing, _ context: Context) throws -> Int32 {
        let signals = InterruptSignals.block()
        defer { signals.restore() }
        try tail.listen()
        var seen = 0
        while true {
            let outcome: LogTail.Outcome
            do {
                outcome = try tail.read { event, line in
                    seen += 1
                    if seen % 1024 == 0 && signals.wait(milliseconds: 0) { return false }
                    guard selection.matches(event) else { return true }
                    listing.add(event, line: line)
                    return listing.count < selection.limit
                }
            } catch {
                listing.finish()
                throw error
            }
            listing.flushBatch()
            switch outcome {
            case .damaged(let problem):
                listing.finish()
                context.complain("\(problem) — stopped there; export the store and run `ledger verify` for the full report")
                return CLIError.Status.failure.rawValue
            case .stopped:
                listing.finish()
                return 0
            case .missing, .caughtUp:
                break
            }
            while true {
                if signals.wait(milliseconds: 0) {
                    listing.finish()
                    return 0
                }
                do {
                    if try tail.waitForAppends(milliseconds: 100) { break }
                } catch {
                    listing.finish()
                    throw error
                }
            }
        }
    }
}
