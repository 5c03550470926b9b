import LedgerKit

// MARK: - Following

extension EventsCommand {
    /// How long to sleep between looks at the log.
    static let pollMilliseconds = 200

    /// A log file, looked at every 200 ms.
    static func fileSource(_ tail: LogFollower) -> FollowSource {
        FollowSource(read: { body in try tail.read(body) },
                     missingNote: "no log at \(tail.path) yet; waiting for the first event (Ctrl-C to stop)",
                     damageAdvice: "run `ledger verify` for the full report",
                     waitForMore: { signals in signals.wait(milliseconds: pollMilliseconds) })
    }

    /// A PostgreSQL store, woken by the `NOTIFY` each append transaction sends (LISTEN), looking
    /// for SIGINT/SIGTERM every 100 ms while idle.
    static func postgresSource(_ tail: PostgresLogFollower) throws -> FollowSource {
        try tail.listen()
        return FollowSource(read: { body in try tail.read(body) },
                            missingNote: nil,
                            damageAdvice: "export the store and run `ledger verify` for the full report",
                            waitForMore: { signals in
                                while true {
                                    if signals.wait(milliseconds: 0) { return true }
                                    if try tail.waitForAppends(milliseconds: 100) { return false }
                                }
                            })
    }

    /// `--follow`: prints the matching events so far, then those appended since as `source` learns
    /// of them, until SIGINT or SIGTERM (exit 0), `--limit` events (exit 0) or a damaged line (exit 1).
    static func follow(_ source: FollowSource, _ selection: Selection, _ listing: inout EventListing, _ context: Context) throws -> Int32 {
        let signals = InterruptSignals.block()
        defer { signals.restore() }
        var waitingNoted = false
        var seen = 0
        while true {
            let outcome: LogFollower.Outcome
            do {
                outcome = try source.read { event, line in
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
                context.complain("\(problem) — stopped there; \(source.damageAdvice)")
                return CLIError.Status.failure.rawValue
            case .stopped:
                // `--limit` reached, or interrupted during a long read.
                listing.finish()
                return 0
            case .missing where !waitingNoted:
                if let note = source.missingNote { context.complain(note) }
                waitingNoted = true
            case .missing, .caughtUp:
                break
            }
            let interrupted: Bool
            do {
                interrupted = try source.waitForMore(signals)
            } catch {
                listing.finish()
                throw error
            }
            if interrupted {
                listing.finish()
                return 0
            }
        }
    }
}
