import LedgerKit

// MARK: - ProveCommand

/// `ledger prove SEQ [--size N] [--json]` and `ledger prove --consistency M [--size N] [--json]`:
/// RFC 9162 inclusion and consistency proofs from the tree's durable state (O(log n) hashes read).
enum ProveCommand {
    /// The definition.
    static let spec = CommandSpec(
        name: "prove", summary: "print a Merkle inclusion proof of line SEQ, or a consistency proof between two tree sizes",
        positionals: [PositionalSpec(name: "SEQ", optional: true, help: "the line to prove (its leaf index is SEQ-1)")],
        options: [
            .option("size", "N", "the tree of the first N lines (default: the whole log)"),
            .option("consistency", "M", "instead of SEQ: prove that the tree of size N extends the tree of size M"),
            .flag("json", "print {\"leafIndex\",\"treeSize\",\"leafHash\",\"rootHash\",\"proof\"} or {\"oldSize\",\"treeSize\",\"oldRootHash\",\"rootHash\",\"proof\"} as JSON"),
        ],
        details: """
        Proofs are RFC 9162's (§2.1.3 PATH, §2.1.4 PROOF), hashes in Base64, leaf side first; check them with
        Events/tools/verify_proof.py, which trusts nothing but hashlib. A consistency proof from size 0 or to the same
        size is empty. Read from the tree's state (events.jsonl.tree, or the ledger_tree table with --store URL),
        extended with the lines added since, never the whole log. Exit 0; 1 history-rewritten; 2 SEQ or a size
        that is 0, not a number, or past the log (SEQ past N, M past N); 3 no log, I/O or server error.
        """)

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        let seq = try invocation.positionals.first.map { try TreeCommands.number($0, "SEQ") }
        let old = try invocation.value("consistency").map { try TreeCommands.number($0, "--consistency") }
        let size = try invocation.value("size").map { try TreeCommands.number($0, "--size") }
        guard (seq == nil) != (old == nil) else {
            throw CLIError.usage("`ledger prove` takes a line SEQ or --consistency M, exactly one (usage: \(spec.usage))")
        }
        if seq == 0 { throw CLIError.usage("SEQ starts at 1 (the first line)") }
        if size == 0 && seq != nil { throw CLIError.usage("--size must be at least 1 to hold a line") }
        let tree = try TreeCommands.open(invocation, context)
        TreeCommands.warnIfCut(tree, context)
        let n = size ?? tree.size
        guard n <= tree.size else { throw CLIError.usage("--size \(n) is past the log, which has \(tree.size) lines") }
        if let seq {
            guard seq <= n else { throw CLIError.usage("line \(seq) is past the tree of size \(n)") }
            let (leaf, root, proof) = try tree.inclusionProof(index: seq - 1, size: n)
            if invocation.flag("json") {
                context.printJSON(.object(JSONObject([
                    ("leafIndex", .int(Int(seq - 1))), ("treeSize", .int(Int(n))), ("leafHash", .string(leaf.base64)),
                    ("rootHash", .string(root.base64)), ("proof", .array(proof.map { .string($0.base64) })),
                ])))
            } else {
                context.print("leaf index \(seq - 1) (line \(seq))")
                context.print("tree size \(n)")
                context.print("leaf hash \(leaf.base64)")
                context.print("root \(root.base64)")
                for hash in proof { context.print("proof \(hash.base64)") }
            }
        } else if let old {
            guard old <= n else { throw CLIError.usage("--consistency \(old) is past the tree of size \(n)") }
            let (oldRoot, root, proof) = try tree.consistencyProof(oldSize: old, newSize: n)
            if invocation.flag("json") {
                context.printJSON(.object(JSONObject([
                    ("oldSize", .int(Int(old))), ("treeSize", .int(Int(n))), ("oldRootHash", .string(oldRoot.base64)),
                    ("rootHash", .string(root.base64)), ("proof", .array(proof.map { .string($0.base64) })),
                ])))
            } else {
                context.print("old size \(old)")
                context.print("tree size \(n)")
                context.print("old root \(oldRoot.base64)")
                context.print("root \(root.base64)")
                for hash in proof { context.print("proof \(hash.base64)") }
            }
        }
        return 0
    }
}
