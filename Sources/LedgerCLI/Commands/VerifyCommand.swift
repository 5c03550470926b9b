import LedgerKit

// MARK: - VerifyCommand

/// `ledger verify [FILE] [--expect SEQ:HASH]... [--signed-head FILE --vkey FILE [--witness-vkey FILE]...] [--json]`:
/// checks every line, hash and link of a log, the caches beside it, any head recorded earlier, and a signed head.
enum VerifyCommand {
    /// The definition.
    static let spec = CommandSpec(
        name: "verify",
        summary: "check that a log is intact: JSON, seq, every hash and prev link, types and data; and the caches beside it",
        positionals: [PositionalSpec(name: "FILE", optional: true, help: "the log (default: DIR/events.jsonl)")],
        options: [
            .repeatable("expect", "SEQ:HASH", "a head recorded earlier: line SEQ must have exactly this hash (repeatable)"),
            .option("keys", "FILE", "the log's key store, when it is not events.keys beside the log (`ledger export --keys`)"),
            .option("migrated-from", "LOG", "the log `ledger migrate` copied: check that this log holds its events, event for event"),
            .option("signed-head", "FILE", "a signed head (`ledger head --key`): check its signatures and that the log's first SIZE lines have its root"),
            .option("vkey", "FILE", "the log's verifier key (.vkey), with --signed-head"),
            .repeatable("witness-vkey", "FILE", "a witness's verifier key whose cosignature the signed head must carry (repeatable)"),
            .flag("json", "print {\"ok\",\"events\",\"head\",\"anchor\",\"problems\"[,\"migratedFrom\"][,\"signedHead\"]} as JSON"),
        ],
        details: """
        Exit 0 and print the head as SEQ:HASH (ready for --expect) when intact; exit 1 naming each problem
        and its kind (torn-tail, invalid-json, seq-gap, bad-hash, broken-chain, unknown-type, invalid-data, broken-batch;
        cache-mismatch when events.jsonl.index, events.jsonl.index.checkpoint or events.jsonl.checkpoint disagrees with the log,
        or with --store URL the account-state tables or the ledger_checkpoints row;
        head-mismatch when an --expect head is not a line of the intact log;
        missing-key when a personal member's key is gone and no erasure event names its subject;
        erased-key-present when the key store still holds a key an erasure event destroyed (restored from a backup);
        history-rewritten when one of those caches recorded another hash for a line the log still holds:
        writers refuse until `ledger recover --accept-history`; migration-mismatch when, with --migrated-from LOG,
        the log's first line does not name LOG's head or the lines after it do not hold LOG's events with the same
        id, type, stream, at, batch and decrypted data: personal data erased since counts as the same;
        with --signed-head FILE: bad-signature when the --vkey key did not sign it, a --witness-vkey witness did not
        cosign it, or it is no signed head, and signed-head-mismatch when its size is past the log's intact prefix or
        the log's first SIZE lines have another root: a history rewritten after it was signed).
        """
    )

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        let anchors = try invocation.values("expect").map { text throws(CLIError) -> Head in
            guard let head = Head(anchor: text) else {
                throw CLIError.usage("--expect needs SEQ:HASH (a seq of at least 1, a colon, a 64-digit lowercase hex hash), not \"\(text)\"")
            }
            return head
        }
        let source = try context.logSource(invocation.positionals.first, invocation)
        if let keys = invocation.value("keys") {
            guard case .file(let path) = source else { throw CLIError.usage("--keys goes with a log file (FILE or --data DIR), not --store") }
            guard FileSystem.exists(keys) else { throw CLIError.environment("no key store at \(keys); check the path") }
            KeyRing.use(keyStorePath: keys, forLog: path)
        }
        let oldLog = try invocation.value("migrated-from").map { given throws -> (given: String, path: String) in
            guard case .file = source else {
                throw CLIError.usage("--migrated-from checks the log of a data folder (--data DIR or FILE), which `ledger migrate` writes; not --store")
            }
            return (given, try context.logFile(given))
        }
        let signedHead = try signedHeadInputs(invocation)
        var report: VerifyReport
        do {
            report = try LogVerifier.verify(source, expecting: anchors, checkingCaches: true)
        } catch let error as SystemError where error.isNotFound {
            throw CLIError.noLog(at: source.name)
        }
        var checkedHead: SignedHeadCheck.Outcome?
        if let signedHead {
            checkedHead = try SignedHeadCheck.check(signedHead.note, logKey: signedHead.logKey, witnessKeys: signedHead.witnessKeys, source: source)
            report.problems += checkedHead?.problems ?? []
        }
        var migration: MigrationCheck.Outcome?
        if let oldLog, report.ok, case .file(let path) = source {
            do {
                migration = try MigrationCheck.compare(newLog: path, oldLog: oldLog.path)
            } catch let error as SystemError where error.isNotFound && error.path == oldLog.path {
                throw CLIError.noLog(at: oldLog.given)
            }
            if let problem = migration?.problem { report.problems.append(problem) }
        }
        if invocation.flag("json") {
            var members: [(String, JSONValue)] = [
                ("ok", .bool(report.ok)), ("events", .int(report.events)), ("head", report.head.json),
                ("anchor", .string(report.head.anchor)), ("problems", .array(report.problems.map(\.json))),
            ]
            if let oldLog, let migration {
                members.append(("migratedFrom", .object(JSONObject([
                    ("log", .string(oldLog.given)), ("events", .int(migration.events)), ("erased", .int(migration.erased)),
                    ("fromHead", .string(migration.fromHead.anchor)),
                ]))))
            }
            if let body = checkedHead?.body {
                members.append(("signedHead", .object(JSONObject([
                    ("origin", .string(body.origin)), ("treeSize", .int(Int(clamping: body.size))), ("rootHash", .string(body.root.base64)),
                    ("matches", .bool(checkedHead?.problems.isEmpty == true)),
                ]))))
            }
            context.printJSON(.object(JSONObject(members)))
        } else if report.ok {
            context.print(context.style.green("ok:") + " \(report.events) events, head \(report.head.anchor)")
            if let oldLog, let migration {
                let erased = migration.erased == 0 ? "" : " (\(migration.erased) with their personal data erased since the migration, on purpose)"
                context.print(context.style.green("ok:") + " migrated from \(oldLog.given): all \(migration.events) events of its head \(migration.fromHead.anchor) are here, the same once decrypted\(erased)")
            }
            if let signedHead, let body = checkedHead?.body {
                let witnesses = signedHead.witnessKeys.isEmpty ? "" : ", cosigned by " + signedHead.witnessKeys.map(\.name).joined(separator: ", ")
                context.print(context.style.green("ok:") + " signed head \(body.origin) size \(body.size) root \(body.root.base64): the log's first \(body.size) lines, signed by \(signedHead.logKey.name)\(witnesses)")
            }
        } else {
            for problem in report.problems { context.print("line \(problem.line): \(problem.kind.rawValue): \(OneLine.escaped(problem.message))") }
            if let first = report.problems.first(where: { !Self.isAboutTheIntactLog($0.kind) }) {
                context.print(context.style.red("NOT INTACT:") + " first problem on line \(first.line) (\(first.kind.rawValue)); intact through seq \(report.head.seq) hash \(report.head.hash)")
            } else {
                let kinds = Set(report.problems.map(\.kind.rawValue)).sorted().joined(separator: ", ")
                context.print(context.style.red("MISMATCH:") + " the log is intact (\(report.events) events, head \(report.head.anchor)), but found \(kinds)")
            }
        }
        return report.ok ? 0 : CLIError.Status.failure.rawValue
    }

    /// True for the kinds found about an intact log (its caches, recorded heads), not in its lines.
    private static func isAboutTheIntactLog(_ kind: ProblemKind) -> Bool {
        kind == .cacheMismatch || kind == .headMismatch || kind == .historyRewritten || kind == .migrationMismatch
            || kind == .signedHeadMismatch || kind == .badSignature || kind == .erasedKeyPresent
    }

    /// The signed head to check and its keys, read before the log (a bad key file is exit 2 at
    /// once); nil without --signed-head.
    private static func signedHeadInputs(_ invocation: Invocation) throws -> (note: [UInt8]?, logKey: NoteVerifierKey, witnessKeys: [NoteVerifierKey])? {
        guard let path = invocation.value("signed-head") else {
            if invocation.value("vkey") != nil || !invocation.values("witness-vkey").isEmpty {
                throw CLIError.usage("--vkey and --witness-vkey go with --signed-head FILE")
            }
            return nil
        }
        guard let vkey = invocation.value("vkey") else { throw CLIError.usage("--signed-head needs --vkey FILE, the log's verifier key") }
        let logKey = try NoteKeyFiles.readVerifier(vkey)
        let witnessKeys = try invocation.values("witness-vkey").map { try NoteKeyFiles.readVerifier($0) }
        return (try SignedHeadCheck.read(path), logKey, witnessKeys)
    }
}
