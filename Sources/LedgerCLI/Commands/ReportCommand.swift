import Glibc
import LedgerKit

// MARK: - ReportCommand

/// `ledger report --html FILE`: the audit report as one self-contained HTML page (funnel, failures,
/// compensations, timeline, failed registrations, anomalies, digest). Exit 0 when written, even
/// with anomalies (they are highlighted in it).
enum ReportCommand {
    /// The definition.
    static let spec = CommandSpec(
        name: "report", summary: "write the audit report: one self-contained HTML page with the funnel and charts",
        options: ReadOptions.specs.filter { $0.name != "json" } + [
            .option("since", "TIME", "only registrations started at or after this RFC 3339 time"),
            .option("html", "FILE", "the HTML file to write (replaced atomically)", required: true),
            .flag("show-emails", "show emails in full (default: masked, a***@example.com)"),
        ],
        details: "Funnel: attempts → account created → image stored or skipped → profile written → signed in.\n"
            + "Exit 0 when the report is written (anomalies and a failed verify are shown in it), 2 usage, 3 I/O.")

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        let output = invocation.required("html")
        try OutputFile.check(output)
        var since: Timestamp?
        if let text = invocation.value("since") {
            guard let parsed = Timestamp(rfc3339: text) else { throw CLIError.usage("--since needs an RFC 3339 time, not \"\(text)\"") }
            since = parsed
        }
        let blobs = FileBlobStore(directory: try ReadOptions.directory(invocation, context))
        let locks = try ReadOptions.locks(invocation, context)
        let snapshot = try Auditor.snapshot(blobs: blobs, locks: locks)
        let loaded = try ReadOptions.load(invocation, context)
        let source = try ReadOptions.source(invocation, context)
        let verified: VerifyReport
        do {
            verified = try LogVerifier.verify(source)
        } catch let error as SystemError where error.isNotFound {
            throw CLIError.noLog(at: source.name)
        }
        let problem = verified.problems.first.map { "line \($0.line): \($0.kind.rawValue): \($0.message)" }
        let anomalies = Auditor.anomalies(loaded.views, at: loaded.asOfTime, blobs: blobs, locks: locks, snapshot: snapshot).map {
            ReportModel.Anomaly(kind: $0.kind, key: $0.key, value: $0.value, message: $0.message)
        }
        let model = ReportModel(views: loaded.views, asOf: loaded.asOfTime, since: since, anomalies: anomalies,
                                verifyOK: verified.ok, verifyProblem: problem, generatedAt: context.clock.now())
        let showEmails = invocation.flag("show-emails")
        let html = HTMLReport.render(model, options: HTMLReport.Options(showEmails: showEmails,
                                                                        source: reportSource(source)))
        // Emails in full are personal data: then only the owner may read the page.
        try FileSystem.writeAtomically(Array(html.utf8), to: output, mode: showEmails ? 0o600 : 0o644)
        context.print("wrote \(output)")
        return 0
    }

    /// What the report names as its source: the log's full path, or the PostgreSQL store (password redacted).
    static func reportSource(_ source: LogSource) -> String {
        switch source {
        case .file(let path): fullPath(path)
        case .postgres(let store): store.url.redacted
        }
    }

    /// `path` from the root: resolved by `realpath`, else joined to the working directory.
    static func fullPath(_ path: String) -> String {
        if let resolved = realpath(path, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        guard !path.hasPrefix("/"), let cwd = getcwd(nil, 0) else { return path }
        defer { free(cwd) }
        return String(cString: cwd) + "/" + path
    }
}
