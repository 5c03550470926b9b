import Glibc
import LedgerKit

// MARK: - Context

/// Everything a command touches outside itself, injectable for in-process tests.
public struct Context {
    /// Writes to standard output.
    public var out: (String) -> Void
    /// Writes to standard error.
    public var err: (String) -> Void
    /// Writes out buffered standard output (before exiting or killing the process).
    public var flush: () -> Void = {}
    /// Writes bytes to standard output as they are, in order with `out` (nil: through `out`, as text).
    public var outRaw: ((UnsafeRawBufferPointer) -> Void)? = nil
    /// The environment variables.
    public var environment: [String: String]
    /// Reads one line of standard input (without its newline), nil at end of input.
    public var readLine: () -> String?
    /// Reads one line of standard input as its bytes (without the newline), nil at end of input;
    /// nil: `readLine`'s text as UTF-8. Secrets are read this way, so no byte is repaired away.
    public var readLineBytes: (() -> [UInt8]?)? = nil
    /// True when standard input is a terminal.
    public var stdinIsTerminal: Bool
    /// True when standard output is a terminal.
    public var stdoutIsTerminal: Bool
    /// True when standard error is a terminal (progress lines go there only then).
    public var stderrIsTerminal = false
    /// The width of the terminal on standard output (`ioctl(TIOCGWINSZ)`), nil when unknown.
    public var terminalColumns: Int? = nil
    /// The clock.
    public var clock: any Clock
    /// The randomness.
    public var random: any RandomSource
    /// Temporary files of this run (a PostgreSQL log copied for the read commands), removed when the run ends.
    public var scratch = ScratchSpace()
    /// Keeps a large value (loaded views) alive until the process exits, so it is not freed piece by
    /// piece just before the exit frees it all at once; in-process runs let it go (the default).
    public var keepUntilExit: (Any) -> Void = { _ in }
    /// Which standard descriptors were closed when the process started (`StandardDescriptors.ensureOpen`).
    public var standardDescriptors = StandardDescriptors()
    /// The `errno` of the first failed write to standard output, nil while all went out.
    public var outputFailure: () -> Int32? = { nil }
    /// What the command recorded so far, for the line a failed standard output leaves on standard error.
    public var recorded = RecordedNote()
    /// Called before a command whose output must be received runs: a closed pipe on standard output
    /// is then a failure it reports (exit 3), not the quiet end of a reader.
    public var outputMustBeReceived: () -> Void = {}
    /// The `LEDGER_*` variables whose value is not UTF-8 (refused before any command runs).
    public var environmentNotText: [String] = []

    /// The real process: stdio, `environ`, system clock and CSPRNG.
    public static func process(_ descriptors: StandardDescriptors = StandardDescriptors()) -> Context {
        var environment: [String: String] = [:]
        var pointer = environ
        var notText: [String] = []
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                let name = String(text[..<equals])
                environment[name] = String(text[text.index(after: equals)...])
                // A value that is not UTF-8 would be repaired into U+FFFD: another folder, command or URL.
                if name.hasPrefix("LEDGER_"), String(validatingCString: entry) == nil { notText.append(name) }
            }
            pointer += 1
        }
        let out = FDWriter(fd: 1), err = FDWriter(fd: 2)
        return Context(
            out: { text in out.write(text) },
            err: { text in out.flush(); err.write(text); err.flush() },
            flush: { out.flush() },
            outRaw: { bytes in out.write(bytes) },
            environment: environment,
            readLine: { Swift.readLine(strippingNewline: true) },
            readLineBytes: { StandardInput.readLineBytes() },
            stdinIsTerminal: isatty(0) == 1,
            stdoutIsTerminal: isatty(1) == 1,
            stderrIsTerminal: isatty(2) == 1,
            terminalColumns: TerminalWidth.query(fd: 1),
            clock: SystemClock(),
            random: SecureRandom(),
            keepUntilExit: { ExitRetained.keep($0) },
            standardDescriptors: descriptors,
            outputFailure: { out.failure },
            outputMustBeReceived: { out.quietOnClosedPipe = false },
            environmentNotText: notText.sorted()
        )
    }

    /// The colors of human output: on only when standard output is a terminal and `NO_COLOR` is unset or empty.
    var style: Style { Style.forOutput(isTerminal: stdoutIsTerminal, environment: environment) }

    /// The width table rows are fitted to: the terminal's (else `$COLUMNS`) when standard output is one, else nil.
    var outputWidth: Int? {
        TerminalWidth.resolve(isTerminal: stdoutIsTerminal, terminalColumns: terminalColumns, environment: environment)
    }

    /// Writes bytes to standard output as they are (a log's lines, exported).
    public func outBytes(_ bytes: UnsafeRawBufferPointer) {
        if let outRaw { outRaw(bytes) } else { out(String(decoding: bytes, as: UTF8.self)) }
    }

    /// One line of standard input as bytes, without its newline; nil at end of input.
    public func readBytesLine() -> [UInt8]? {
        if let readLineBytes { return readLineBytes() }
        return readLine().map { Array($0.utf8) }
    }

    /// Prints a line to standard output.
    public func print(_ line: String) { out(line + "\n") }

    /// Prints `ledger: <message>` to standard error, as one line: control characters in it (from an
    /// argument or a `LEDGER_*` value it quotes) are escaped.
    public func complain(_ message: String) { err("ledger: \(OneLine.escaped(message))\n") }

    /// The data directory: `--data`, else `$LEDGER_DATA`, else `./ledger-data`.
    public func dataDirectory(_ invocation: Invocation) -> String {
        invocation.value("data") ?? environment["LEDGER_DATA"].flatMap { $0.isEmpty ? nil : $0 } ?? "ledger-data"
    }

    /// Where the log is: `--store URL`, else `$LEDGER_STORE`, else the file under the data directory.
    public func storeLocation(_ invocation: Invocation) throws -> StoreLocation {
        guard let text = invocation.value("store") else {
            return try LedgerEnvironment.store(environment["LEDGER_STORE"]).map(StoreLocation.postgres) ?? .file(directory: dataDirectory(invocation))
        }
        guard let url = PostgresURL(text) else {
            throw CLIError.usage("--store takes a postgres://USER@HOST:PORT/DATABASE URL; leave it out to use the file log under --data DIR")
        }
        return .postgres(url)
    }

    /// The store of `invocation`: PostgreSQL when `--store`/`LEDGER_STORE` names one, else the data directory's file.
    public func store(_ invocation: Invocation) throws -> any LedgerStore {
        switch try storeLocation(invocation) {
        case .file: return fileStore(invocation)
        case .postgres(let url): return PostgresEventStore(url: url, clock: clock, random: random)
        }
    }

    /// The registration locks that go with the store: lock files, or PostgreSQL advisory locks.
    public func registrationLocks(_ invocation: Invocation) throws -> any RegistrationLocks {
        switch try storeLocation(invocation) {
        case .file: return FileRegistrationLocks(directory: dataDirectory(invocation))
        case .postgres(let url): return PostgresRegistrationLocks(url: url)
        }
    }

    /// The sign-in locks that go with the store: lock files, or PostgreSQL advisory locks.
    public func signInLocks(_ invocation: Invocation) throws -> any SignInLocks {
        switch try storeLocation(invocation) {
        case .file: return FileSignInLocks(directory: dataDirectory(invocation))
        case .postgres(let url): return PostgresSignInLocks(url: url)
        }
    }

    /// The file store of the data directory, with repair notices going to standard error.
    public func fileStore(_ invocation: Invocation) -> FileEventStore {
        let store = FileEventStore(directory: dataDirectory(invocation), clock: clock, random: random)
        store.notice = { [err] message in err("ledger: \(OneLine.escaped(message))\n") }
        return store
    }

    /// The library's configuration for `invocation`: its data directory and store, the password
    /// hash cost, the drills' failpoints, and repair notices written to standard error.
    public func ledgerConfiguration(_ invocation: Invocation) throws -> Ledger.Configuration {
        let store: Ledger.Store
        switch try storeLocation(invocation) {
        case .file: store = .file
        case .postgres(let url): store = .postgres(url)
        }
        var configuration = Ledger.Configuration(directory: dataDirectory(invocation), hashCost: try Services.hasher(self).cost, store: store)
        configuration.failpoints = try Services.failpoints(self)
        configuration.notice = { message in StandardError.write("ledger: \(OneLine.escaped(message))\n") }
        return configuration
    }

    /// Opens the ledger of `invocation`, runs `body` with it, closes it, and returns what `body` did:
    /// the one way a command reaches the library's async calls (`Blocking`).
    public func withLedger<T: Sendable>(_ invocation: Invocation, _ body: @escaping @Sendable (Ledger) async throws -> T) throws -> T {
        var ownThread = try ledgerConfiguration(invocation)
        ownThread.callsOnCallersThread = true  // the command's task runs on the main thread (`Blocking`)
        let configuration = ownThread
        return try Blocking.wait {
            let ledger = try await Ledger.open(configuration)
            do {
                let value = try await body(ledger)
                await ledger.close()
                return value
            } catch {
                await ledger.close()
                throw error
            }
        }
    }

    /// The names of standard input as a log FILE: `-`, and the system's names for it.
    static let standardInputNames: Set<String> = ["-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"]

    /// The file to read for the log FILE `given`: itself, or for standard input (`-`, `/dev/stdin`)
    /// a copy of it in the scratch space, read to its end as a stream.
    public func logFile(_ given: String) throws -> String {
        Self.standardInputNames.contains(given) ? try scratch.copyOfStandardInput() : given
    }

    /// The log read commands read by default: the data directory's file, or the PostgreSQL store's
    /// lines, streamed from the server.
    public func defaultLogSource(_ invocation: Invocation) throws -> LogSource {
        switch try storeLocation(invocation) {
        case .file: return .file(fileStore(invocation).logPath)
        case .postgres(let url): return .postgres(PostgresEventStore(url: url, clock: clock, random: random))
        }
    }

    /// The log a read command reads: FILE when given (standard input copied first), else the default.
    public func logSource(_ given: String?, _ invocation: Invocation) throws -> LogSource {
        try given.map { .file(try logFile($0)) } ?? defaultLogSource(invocation)
    }
}

// MARK: - StoreLocation

/// Where the log lives.
public enum StoreLocation: Equatable, Sendable {
    /// `DIR/events.jsonl`.
    case file(directory: String)
    /// A PostgreSQL database.
    case postgres(PostgresURL)
}

// MARK: - ExitRetained

/// Values the process keeps until `exit`: a million-event view is hundreds of thousands of
/// allocations, and freeing them one by one would spend a replay's time on memory `exit` returns anyway.
private enum ExitRetained {
    /// The values (only the process's main thread runs commands).
    nonisolated(unsafe) static var values: [Any] = []

    /// Keeps `value` until the process exits.
    static func keep(_ value: Any) { values.append(value) }
}
