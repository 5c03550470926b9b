import LedgerKit

// MARK: - Read options

/// The options every read command shares, and the loader they use.
enum ReadOptions {
    /// `--json`, `--log FILE`, `--as-of SEQ|TIMESTAMP`.
    static let specs: [OptionSpec] = [
        .flag("json", "print JSON"),
        .option("log", "FILE", "the log to read (default: DIR/events.jsonl)"),
        .option("as-of", "SEQ|TIME", "the views as they stood after event SEQ or at an RFC 3339 time"),
    ]

    /// The log of `invocation`: `--log FILE`, else the store's.
    static func source(_ invocation: Invocation, _ context: Context) throws -> LogSource {
        try context.logSource(invocation.value("log"), invocation)
    }

    /// The data directory that goes with the log: the log's folder (the data directory with PostgreSQL).
    static func directory(_ invocation: Invocation, _ context: Context) throws -> String {
        switch try source(invocation, context) {
        case .file(let path): FileSystem.directoryName(path)
        case .postgres: context.dataDirectory(invocation)
        }
    }

    /// The registration locks that go with the log (lock files beside it, or the PostgreSQL store's).
    static func locks(_ invocation: Invocation, _ context: Context) throws -> any RegistrationLocks {
        if invocation.value("log") == nil, case .postgres = try context.storeLocation(invocation) { return try context.registrationLocks(invocation) }
        return FileRegistrationLocks(directory: try directory(invocation, context))
    }

    /// Loads the views for `invocation` (folding at least `views`) from `given` (else its log), warning
    /// about a skipped torn tail.
    static func load(_ invocation: Invocation, _ context: Context, views: LedgerViews.Selection = .all,
                     source given: LogSource? = nil) throws -> LoadedViews {
        var asOf: AsOf?
        if let text = invocation.value("as-of") {
            guard let parsed = AsOf(text) else { throw CLIError.usage("--as-of needs a seq or an RFC 3339 time, not \"\(text)\"") }
            asOf = parsed
        }
        let source = try given ?? source(invocation, context)
        do {
            // A progress line on a terminal only: never in pipes, never with --json.
            let showProgress = context.stderrIsTerminal && !invocation.flag("json")
            let loaded = try ViewLoader.load(source, asOf: asOf, now: context.clock.now(), views: views, progress: showProgress ? { bytes, total, events in
                context.err(total > 0 ? "\rreplaying \(source.name): \(bytes * 100 / total)% (\(events) events)" : "\rreplaying \(source.name): \(events) events")
            } : nil)
            if showProgress && loaded.views.events >= 0x10000 { context.err("\r\u{1B}[K") }
            if let torn = loaded.tornTail {
                // On PostgreSQL a cut batch lost committed rows: no writer repairs it (the message says so).
                if case .postgres = source { context.complain("warning: \(torn) — skipped") }
                else { context.complain("warning: \(torn) — skipped; `ledger recover` repairs it") }
            }
            if source.lacksItsKeyStore {
                context.complain("warning: \(source.name) is data version 2 and has no key store (events.keys) beside it: "
                                 + "its personal data shows as erased; restore events.keys from a backup (`ledger verify` reports what is lost as missing-key)")
            } else if case let count = source.subjectsNotOpened, count > 0 {
                context.complain("warning: the personal data of \(count == 1 ? "1 subject" : "\(count) subjects") in \(source.name) did not open "
                                 + "(a key missing from events.keys, or changed bytes) and shows as erased; `ledger verify` names the lines (missing-key)")
            }
            finishErasures(source, after: loaded, context)
            context.keepUntilExit(loaded)
            return loaded
        } catch let error as SystemError where error.isNotFound {
            throw CLIError.noLog(at: source.name)
        }
    }

    /// What a start does after a read that met erasures whose keys or caches a restored backup
    /// brought back (`LogSource.finishErasures`): each key destroyed is said on stderr, as `recover`
    /// says it; a folder this process cannot write is warned about, the read's output unchanged.
    private static func finishErasures(_ source: LogSource, after loaded: LoadedViews, _ context: Context) {
        do {
            for subject in try source.finishErasures(lastErasureSeq: loaded.lastErasureSeq, recorded: loaded.recordedErasures) {
                context.complain("destroyed the key of erased \(subject), which the log erases: restored from a backup taken before the erasure")
            }
        } catch {
            context.complain("warning: the key store or caches of \(source.name) hold data of erased subjects (restored from a backup?) "
                             + "and could not be cleaned (\(CLIError.from(error).message)); run `ledger recover`")
        }
    }
}
