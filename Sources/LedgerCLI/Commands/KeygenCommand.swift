import Glibc
import LedgerKit

// MARK: - KeygenCommand

/// `ledger keygen --name NAME --out PREFIX [--cosigner] [--json]`: makes an Ed25519 key pair in the
/// C2SP signed-note format, a log's key (signs heads) or with `--cosigner` a witness's.
enum KeygenCommand {
    /// The definition.
    static let spec = CommandSpec(
        name: "keygen", summary: "make an Ed25519 key pair in the signed-note format: a log's key, or a witness's (--cosigner)",
        options: [
            .option("name", "NAME", "the key's name, e.g. example.com/ledger (a log key's name is its heads' default origin)", required: true),
            .option("out", "PREFIX", "write PREFIX.skey (secret, mode 0600) and PREFIX.vkey (public, 0644); neither may exist", required: true),
            .flag("cosigner", "make a witness key (signature type 4, C2SP tlog-cosignature) instead of a log key (type 1)"),
            .flag("json", "print {\"status\",\"name\",\"type\",\"keyID\",\"vkey\",\"skeyFile\",\"vkeyFile\"} as JSON"),
        ],
        details: """
        NAME: non-empty, no `+`, no spaces or control characters. The .skey is the secret signer key
        (PRIVATE+KEY+NAME+KEYID+BASE64): it is never printed; keep it where only the signer reads it.
        The .vkey is the verifier key to publish (NAME+KEYID+BASE64), also printed. Each file is one
        line; each is written to a temporary file, synced, then linked into place, so neither is ever
        half-written nor replaces a file already there.
        Exit 0 written; 1 PREFIX.skey or PREFIX.vkey exists (key-exists); 2 usage (bad-key-name); 3 I/O error.
        """,
        globals: [CommandSpec.helpOption])

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        let name = invocation.value("name") ?? "", prefix = invocation.value("out") ?? ""
        if let problem = NoteKeyName.problem(name) {
            throw CLIError.usage("--name \(name) is not a key name: \(problem) (a key name is non-empty, without `+`, spaces or control characters)",
                                 code: "bad-key-name")
        }
        guard !prefix.isEmpty, !prefix.hasSuffix("/") else {
            throw CLIError.usage("--out PREFIX names the two key files, PREFIX.skey and PREFIX.vkey: \"\(OneLine.escaped(prefix))\" has no file name; add one (e.g. --out \(OneLine.escaped(prefix))log)")
        }
        let folder = FileSystem.directoryName(prefix)
        guard FileSystem.isDirectory(folder) else {
            throw CLIError.environment("--out \(OneLine.escaped(prefix)): the folder \(OneLine.escaped(folder)) does not exist (or is not a folder); create it first", code: "not-found")
        }
        let type: NoteKeyType = invocation.flag("cosigner") ? .cosignatureV1 : .ed25519
        let signer = try NoteSigner.generate(name: name, type: type, random: context.random)
        let files: (skey: String, vkey: String)
        do {
            files = try NoteKeyFiles.writePair(signer, prefix: prefix)
        } catch let error as SystemError where error.code == EEXIST {
            throw CLIError.failure("\(error.path) exists; ledger keygen never replaces a key file: choose another --out PREFIX, or move the old pair away first",
                                   code: "key-exists")
        }
        let key = signer.verifierKey
        let id = String(key.keyID, radix: 16), keyID = String(repeating: "0", count: 8 - id.count) + id
        if invocation.flag("json") {
            context.printJSON(.object(JSONObject([
                ("status", .string("created")), ("name", .string(name)), ("type", .string(type == .ed25519 ? "log" : "witness")),
                ("keyID", .string(keyID)), ("vkey", .string(key.text)), ("skeyFile", .string(files.skey)), ("vkeyFile", .string(files.vkey)),
            ])))
        } else {
            context.print("created \(type.label) \(name) (key id \(keyID)): secret \(files.skey), public \(files.vkey)")
            context.print(key.text)
        }
        return 0
    }
}
