import LedgerDomain
import LedgerKit

// MARK: - HeadCommand

/// `ledger head [--json]`: the log's head and the root of its Merkle tree (RFC 9162), from the
/// tree's durable state, extended with the lines added since.
enum HeadCommand {
    /// The definition.
    static let spec = CommandSpec(
        name: "head", summary: "print the log's head (SEQ:HASH), its Merkle tree's size and root",
        options: [.flag("json", "print {\"head\",\"treeSize\",\"rootHash\"} as JSON (the root in Base64)")],
        details: """
        The tree is RFC 9162's over the log's lines in order (leaf: SHA-256 of 0x00 and the line's bytes without its newline);
        its root in Base64, as a signed note spells it. Read from the tree's state beside the log (events.jsonl.tree, or the
        ledger_tree table with --store URL), extended with the lines added since, each checked: about the same time at any size.
        An empty log has size 0 and the root of the empty tree. Exit 0; 1 history-rewritten (the tree's state recorded another
        hash for a line the log still holds: `ledger recover --accept-history` after a deliberate restore); 3 no log, I/O or server error.
        """)

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        let tree = try TreeCommands.open(invocation, context)
        TreeCommands.warnIfCut(tree, context)
        let root = try tree.root(size: tree.size)
        if invocation.flag("json") {
            context.printJSON(.object(JSONObject([
                ("head", .string(tree.head.anchor)), ("treeSize", .int(Int(tree.size))), ("rootHash", .string(root.base64)),
            ])))
        } else {
            context.print("head \(tree.head.anchor)")
            context.print("tree size \(tree.size)")
            context.print("root \(root.base64)")
        }
        return 0
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
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = UInt64(text), value < 1 << 62 else {
            throw CLIError.usage("\(what) must be a number of lines (decimal digits), not \"\(OneLine.escaped(text))\"")
        }
        return value
    }
}
