import LedgerKit

// MARK: - WitnessCommand

/// `ledger witness --log-vkey FILE --key FILE.skey --state FILE [--json]`: a C2SP tlog-witness
/// for one log, run by an auditor on a host of their own: reads an `add-checkpoint` request on
/// standard input and prints its cosignature line only if the signed head extends the last one it
/// cosigned.
enum WitnessCommand {
    /// The definition.
    static let spec = CommandSpec(
        name: "witness", summary: "cosign a signed head read on standard input if it extends the last one this witness cosigned",
        options: [
            .option("log-vkey", "FILE", "the log's verifier key: its name is the only origin accepted", required: true),
            .option("key", "FILE", "this witness's signer key (.skey made by `ledger keygen --cosigner`)", required: true),
            .option("state", "FILE", "the last checkpoint this witness cosigned (created by the first run)", required: true),
            .flag("json", "print {\"status\",\"origin\",\"size\",\"rootHash\",\"oldSize\",\"timestamp\",\"cosignature\"} as JSON"),
        ],
        details: """
        Standard input: the C2SP tlog-witness add-checkpoint body — `old N` (the size this witness last
        cosigned; 0 the first time), the consistency proof from N (one Base64 hash a line), a blank
        line, then the signed head. The head must be signed by the log's key, its origin be that key's
        name, and it must extend the checkpoint in FILE (a fork is refused). FILE is then replaced,
        under an exclusive lock, before the cosignature line is printed (`— NAME BASE64`).
        Exit 0 cosigned; 1 refused, with the code the spec's HTTP status stands for: unknown-origin
        (404), bad-signature (403), bad-request (400), size-conflict (409: the size it holds is printed
        alone on standard output, or as --json's "size"), bad-proof (422), state-damaged (FILE does not verify);
        2 usage or a bad key file; 3 I/O error.
        """,
        globals: [CommandSpec.helpOption])

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        let logKey = try NoteKeyFiles.readVerifier(invocation.value("log-vkey") ?? "")
        let signer = try NoteKeyFiles.readSigner(invocation.value("key") ?? "")
        let witness = try Witness(logKey: logKey, signer: signer, statePath: invocation.value("state") ?? "", clock: context.clock)
        do {
            guard let request = StandardInput.readAll(limit: AddCheckpointRequest.maxBytes) else {
                throw WitnessError(.badRequest, "the add-checkpoint request on standard input is larger than \(AddCheckpointRequest.maxBytes) bytes")
            }
            let cosigned = try witness.addCheckpoint(request)
            if invocation.flag("json") {
                context.printJSON(.object(JSONObject([
                    ("status", .string("cosigned")), ("origin", .string(cosigned.body.origin)), ("size", .int(Int(clamping: cosigned.body.size))),
                    ("rootHash", .string(cosigned.body.root.base64)), ("oldSize", .int(Int(clamping: cosigned.oldSize))),
                    ("timestamp", .int(Int(clamping: cosigned.timestamp))), ("cosignature", .string(cosigned.line)),
                ])))
            } else {
                context.print(cosigned.line)
            }
            return 0
        } catch let error as WitnessError {
            if invocation.flag("json") {
                var members: [(String, JSONValue)] = [("status", .string("refused")), ("code", .string(error.code.rawValue)),
                                                      ("httpStatus", .int(error.code.httpStatus)), ("message", .string(error.message))]
                if let size = error.heldSize { members.append(("size", .int(Int(clamping: size)))) }
                context.printJSON(.object(JSONObject(members)))
            } else if let size = error.heldSize {
                context.print(String(size))  // the spec's 409 body: the size held, so a log can resend from it
            }
            context.complain("\(error.code.rawValue): \(error.message)")
            return CLIError.Status.failure.rawValue
        }
    }
}
