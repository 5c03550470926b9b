import LedgerKit

// MARK: - HeadCommand

/// `ledger head [--key FILE.skey [--origin ORIGIN]] [--json]`: the log's head and the root of its
/// Merkle tree (RFC 9162), from the tree's durable state, extended with the lines added since; with
/// `--key`, that tree's size and root as a signed head, cosigned by `LEDGER_WITNESS` when it is set.
enum HeadCommand {
    /// The definition.
    static let spec = CommandSpec(
        name: "head", summary: "print the log's head (SEQ:HASH), its Merkle tree's size and root; with --key, a signed head",
        options: [
            .option("key", "FILE", "sign the head with this log key (.skey made by `ledger keygen`): print the signed note"),
            .option("origin", "ORIGIN", "the signed head's origin line (default: the key's name); with --key"),
            .repeatable("witness-vkey", "FILE", "a witness's verifier key: LEDGER_WITNESS's answer must carry its valid cosignature (repeatable)"),
            .flag("json", "print {\"head\",\"treeSize\",\"rootHash\"[,\"signedHead\"]} as JSON (the root in Base64)"),
        ],
        details: """
        The tree is RFC 9162's over the log's lines in order (leaf: SHA-256 of 0x00 and the line's bytes without its newline);
        its root in Base64, as a signed note spells it. Read from the tree's state beside the log (events.jsonl.tree, or the
        ledger_tree table with --store URL), extended with the lines added since, each checked: about the same time at any size.
        An empty log has size 0 and the root of the empty tree.
        With --key FILE.skey: prints the signed head (C2SP tlog-checkpoint in a signed note: ORIGIN, the tree size, the
        Base64 root, a blank line, the log key's signature line), its root computed from the lines: the head the key
        signed last under ORIGIN, remembered beside the key (PREFIX.heads for PREFIX.skey, never in the data folder), is
        verified with the key; the log must still hold its last line where the signer found it, and the state is checked
        against it and against the lines added since (every line, the first time under ORIGIN). With LEDGER_WITNESS set, that command gets the C2SP
        add-checkpoint request on standard input and its cosignature line is added (an answer that adds no cosignature of
        its own is refused; with --witness-vkey, each named witness's cosignature must verify); the size it last cosigned is
        kept in events.jsonl.witnesses beside the log (with --store URL: in the data folder, when it exists).
        ORIGIN is one line of 1 to 256 bytes.
        Exit 0; 1 history-rewritten (the tree's state recorded another hash for a line the log still holds:
        `ledger recover --accept-history` after a deliberate restore), cache-mismatch (with --key: the tree's state
        disagrees with the lines; remove it), signed-head-mismatch (with --key: the log no longer holds the head the key
        signed last under ORIGIN: rewritten, re-chained or cut since), signer-memory-damaged (PREFIX.heads does not
        verify with the key), or witness-refused (the witness failed, refused or
        did not answer within LEDGER_WITNESS_TIMEOUT seconds, or answered no valid cosignature; nothing is printed); 2 usage,
        a bad key file or a witness key;
        3 no log, I/O or server error.
        """)

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        if invocation.value("origin") != nil && invocation.value("key") == nil {
            throw CLIError.usage("--origin names a signed head's origin: it goes with --key FILE.skey")
        }
        if let origin = invocation.value("origin") { try checkOrigin(origin) }
        let signer = try invocation.value("key").map { path throws -> NoteSigner in
            let signer = try NoteKeyFiles.readSigner(path)
            guard signer.type == .ed25519 else {
                throw NoteError(.malformedKey, "\(path) is a witness key (type 4): a log signs its heads with a key made by `ledger keygen` without --cosigner")
            }
            return signer
        }
        let witness = signer == nil ? nil : try WitnessClient.fromEnvironment(context.environment)
        let witnessKeys = try invocation.values("witness-vkey").map { path throws -> NoteVerifierKey in
            guard witness != nil else { throw CLIError.usage("--witness-vkey checks the answer of the witness LEDGER_WITNESS names: it goes with --key and LEDGER_WITNESS") }
            let key = try NoteKeyFiles.readVerifier(path)
            guard key.type == .cosignatureV1 else {
                throw NoteError(.malformedKey, "\(path) is not a witness key (type 4, made by `ledger keygen --cosigner`)")
            }
            return key
        }
        let tree = try TreeCommands.open(invocation, context)
        TreeCommands.warnIfCut(tree, context)
        let size = tree.size
        var root = try tree.root(size: size)
        var signedHead: String?
        if let signer, let keyPath = invocation.value("key") {
            let origin = invocation.value("origin") ?? signer.name
            // What the key signed last is kept beside the key, under its lock, never in the data folder.
            let memoryPath = SignerMemory.path(forKey: keyPath)
            let held = try SignerMemory.lock(path: memoryPath)
            defer { withExtendedLifetime(held) {} }
            var memory = try SignerMemory.load(path: memoryPath, signer: signer)
            // The root signed comes from the lines, checked against the state from the head signed last.
            let checked = try tree.signingRoot(last: memory.entry(origin: origin), source: try context.defaultLogSource(invocation))
            root = checked.root
            var note = try SignedHead.sign(signer: signer, origin: origin, size: size, root: root)
            // Remembered before it leaves this process (to the witness, or printed): whatever fails
            // after, the next signing starts from this head, so the key never signs another root for it.
            try memory.record(note: note, origin: origin, size: size, checked: checked)
            try memory.save(signer: signer)
            if let witness {
                note = try witness.cosign(note: note, size: size, logKey: signer.verifierKey, witnessKeys: witnessKeys, sizes: try witnessSizes(invocation, context)) { old in
                    try tree.consistencyProof(oldSize: old, newSize: size).proof
                }
                try memory.record(note: note, origin: origin, size: size, checked: checked)
                try memory.save(signer: signer)
            }
            signedHead = note
        }
        if invocation.flag("json") {
            var members: [(String, JSONValue)] = [("head", .string(tree.head.anchor)), ("treeSize", .int(Int(size))), ("rootHash", .string(root.base64))]
            if let signedHead { members.append(("signedHead", .string(signedHead))) }
            context.printJSON(.object(JSONObject(members)))
        } else if let signedHead {
            context.out(signedHead)
        } else {
            context.print("head \(tree.head.anchor)")
            context.print("tree size \(size)")
            context.print("root \(root.base64)")
        }
        return 0
    }

    /// The longest `--origin`, in bytes: a key name's limit (`NoteKeyName.maxBytes`), so the default
    /// origin, the key's name, always fits.
    static let maxOriginBytes = NoteKeyName.maxBytes

    /// Refuses (usage) an origin that is empty, longer than `maxOriginBytes` or not one line of
    /// printable text (C2SP tlog-checkpoint: the origin line is a log's short, unique identity).
    private static func checkOrigin(_ origin: String) throws {
        let control = origin.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0 == "\u{2028}" || $0 == "\u{2029}" }
        let problem = origin.isEmpty ? "it is empty" : origin.utf8.count > maxOriginBytes ? "it has \(origin.utf8.count) bytes"
            : control ? "it holds a control character or a line break" : nil
        if let problem {
            throw CLIError.usage("--origin is one line of printable text of 1 to \(maxOriginBytes) bytes (a log's identity, such as example.com/ledger): \(problem)")
        }
    }

    /// Where the sizes the witness cosigned are kept: beside the log file; with a PostgreSQL store,
    /// in the data folder when it exists (else nowhere: the witness's size-conflict answer says it).
    private static func witnessSizes(_ invocation: Invocation, _ context: Context) throws -> WitnessSizes? {
        switch try context.storeLocation(invocation) {
        case .file: return WitnessSizes(path: WitnessSizes.path(forLog: context.fileStore(invocation).logPath))
        case .postgres:
            let folder = context.dataDirectory(invocation)
            guard FileSystem.isDirectory(folder) else { return nil }
            return WitnessSizes(path: FileSystem.join(folder, "events.jsonl.witnesses"))
        }
    }
}

// MARK: - TreeCommands

/// What `head` and `prove` share: the tree of the store `invocation` names, and their numbers.
enum TreeCommands {
    /// The Merkle tree of the store of `invocation`, extended to the log's end.
    static func open(_ invocation: Invocation, _ context: Context) throws -> LogTree {
        switch try context.defaultLogSource(invocation) {
        case .file(let path):
            do {
                return try LogTree.open(logPath: path)
            } catch let error as SystemError where error.isNotFound && error.path == path {
                throw CLIError.noLog(at: path)
            }
        case .postgres(let store): return try LogTree.open(store: store)
        }
    }

    /// Says on standard error where the log's intact prefix ends, when it ends before the log does.
    static func warnIfCut(_ tree: LogTree, _ context: Context) {
        guard let problem = tree.stoppedAt else { return }
        context.complain("warning: the tree covers the \(tree.size) lines before line \(problem.line) (\(problem.kind.rawValue)): run `ledger verify`")
    }

    /// A count or seq given on the command line: decimal digits only, no sign, within UInt64.
    static func number(_ text: String, _ what: String) throws -> UInt64 {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw CLIError.usage("\(what) must be a number of lines (decimal digits), not \"\(OneLine.escaped(text))\"")
        }
        guard let value = UInt64(text), value < 1 << 62 else {
            throw CLIError.usage("\(what) \(OneLine.escaped(text)) is too large: a number of lines is below 2^62 (4611686018427387904)")
        }
        return value
    }
}
