import Glibc
import LedgerKit

// MARK: - LedgerCLI

/// The `ledger` command line: the table of commands and the dispatcher.
public enum LedgerCLI {
    /// The version `ledger --version` prints.
    public static let version = "0.1.0"

    /// A command: its definition and what runs it.
    struct Command: Sendable {
        let spec: CommandSpec
        let run: @Sendable (Invocation, Context) throws -> Int32
    }

    /// Every command, in the order `ledger --help` lists them.
    static let commands: [Command] = [
        Command(spec: RegisterCommand.spec, run: RegisterCommand.run),
        Command(spec: LoginCommand.spec, run: LoginCommand.run),
        Command(spec: LogoutCommand.spec, run: LogoutCommand.run),
        Command(spec: AccountCommand.spec, run: AccountCommand.run),
        Command(spec: EraseCommand.spec, run: EraseCommand.run),
        Command(spec: RecoverCommand.spec, run: RecoverCommand.run),
        Command(spec: ReplayCommand.spec, run: ReplayCommand.run),
        Command(spec: UsersCommand.listSpec, run: UsersCommand.list),
        Command(spec: UsersCommand.showSpec, run: UsersCommand.show),
        Command(spec: SessionsCommand.spec, run: SessionsCommand.run),
        Command(spec: ImagesCommand.spec, run: ImagesCommand.run),
        Command(spec: AuditCommand.spec, run: AuditCommand.run),
        Command(spec: ReportCommand.spec, run: ReportCommand.run),
        Command(spec: VerifyCommand.spec, run: VerifyCommand.run),
        Command(spec: HeadCommand.spec, run: HeadCommand.run),
        Command(spec: ProveCommand.spec, run: ProveCommand.run),
        Command(spec: EventsCommand.spec, run: EventsCommand.run),
        Command(spec: InitCommand.spec, run: InitCommand.run),
        Command(spec: ExportCommand.spec, run: ExportCommand.run),
        Command(spec: ImportCommand.spec, run: ImportCommand.run),
        Command(spec: MigrateCommand.spec, run: MigrateCommand.run),
        Command(spec: KeygenCommand.spec, run: KeygenCommand.run),
        Command(spec: WitnessCommand.spec, run: WitnessCommand.run),
        Command(spec: CompletionsCommand.spec, run: CompletionsCommand.run),
    ]

    /// The command definitions.
    public static var specs: [CommandSpec] { commands.map(\.spec) }

    /// Runs the process's command line and returns the exit status. `descriptors` says which
    /// standard descriptors were closed at start (`StandardDescriptors.ensureOpen()`, called first).
    public static func main(_ arguments: [String], descriptors: StandardDescriptors) -> Int32 {
        let context = Context.process(descriptors)
        // An argument is text: bytes that are not UTF-8 would be repaired into U+FFFD, and two keys
        // or names that differ only there would become one.
        if let bad = (1..<Int(max(CommandLine.argc, 1))).first(where: { n in
            CommandLine.unsafeArgv[n].map { String(validatingCString: $0) == nil } ?? false
        }) {
            let error = CLIError.usage("argument \(bad) is not valid UTF-8 text; every argument must be UTF-8 text")
            let words = Array(arguments.dropFirst())  // repaired text, enough to see whether --json was asked for
            let status = fail(error, context, json: asksForJSON(words, commands.first { $0.spec.name == words.first }?.spec))
            context.flush()
            return status
        }
        let status = run(Array(arguments.dropFirst()), context: context)
        context.flush()
        return outputChecked(status, context)
    }

    /// `status`, unless standard output failed: then exit 3 (`io-error`) with one line on standard
    /// error saying why and what the command had already recorded.
    static func outputChecked(_ status: Int32, _ context: Context) -> Int32 {
        guard let failure = context.outputFailure() else { return status }
        let done = context.recorded.lines.isEmpty ? "" : "; already recorded: " + context.recorded.lines.joined(separator: ", ")
        context.complain("could not write standard output (\(String(cString: strerror(failure))))\(done)")
        return CLIError.Status.environment.rawValue
    }

    /// Runs `arguments` (without the program name) in `context`; never traps on bad input.
    public static func run(_ arguments: [String], context: Context) -> Int32 {
        guard let word = arguments.first else {
            context.err(overview + "\n")
            return CLIError.Status.usage.rawValue
        }
        switch word {
        case "--help", "-h":
            context.print(overview)
            return 0
        case "--version":
            context.print("ledger \(version)")
            return 0
        case "help":
            guard arguments.count > 1 else { context.print(overview); return 0 }
            guard let command = commands.first(where: { $0.spec.name == arguments[1] }) else {
                return fail(unknownCommand(arguments[1]), context)
            }
            context.print(command.spec.help)
            return 0
        default:
            break
        }
        let command = commands.first(where: { $0.spec.name == word })
        let json = asksForJSON(arguments, command?.spec)
        guard let command else { return fail(unknownCommand(word), context, json: json) }
        do {
            let invocation = try ArgumentParser.parse(Array(arguments.dropFirst()), for: command.spec)
            if invocation.flag("help") {
                context.print(command.spec.help)
                return 0
            }
            if let name = context.environmentNotText.first {
                throw CLIError.usage("\(name) is not valid UTF-8 text; fix or unset \(name)", code: "bad-environment")
            }
            try LedgerEnvironment.check(context.environment)
            StoreTuning.install(try StoreTuning.fromEnvironment(context.environment))
            if command.spec.outputMustBeReceived, context.standardDescriptors.stdoutWasClosed {
                throw CLIError.environment("standard output is closed, and `ledger \(command.spec.name)` prints what must be received (a token, an id); nothing was done: run it with standard output open",
                                          code: "stdout-closed")
            }
            if command.spec.outputMustBeReceived { context.outputMustBeReceived() }
            return try command.run(invocation, context)
        } catch {
            return fail(CLIError.from(error), context, json: json)
        }
    }

    /// True when `arguments` hold `--json` before any `--` and the command (when it is one) takes it:
    /// then a failure is also one JSON object on standard output, even when the line did not parse.
    static func asksForJSON(_ arguments: [String], _ spec: CommandSpec?) -> Bool {
        guard spec?.options.contains(where: { $0.name == "json" }) ?? true else { return false }
        return arguments.prefix { $0 != "--" }.contains { $0 == "--json" || $0.hasPrefix("--json=") }
    }

    // MARK: - Help

    /// The top-level help.
    static var overview: String {
        var lines = ["ledger — an event-sourced account ledger with a hash-chained log", "",
                     "Usage: ledger COMMAND [ARGS] [--data DIR] [--store URL] [--help]", "       ledger --help | --version | help COMMAND", "", "Commands:"]
        lines += specs.map { "  " + pad($0.name, 12) + $0.summary }
        lines += ["", "Run `ledger help COMMAND` or `ledger COMMAND --help` for a command's options.",
                  "Exit status: 0 ok, 1 refused/failed/damaged, 2 usage error, 3 environment or I/O error."]
        return lines.joined(separator: "\n")
    }

    private static func unknownCommand(_ word: String) -> CLIError {
        if word.hasPrefix("-") {
            let hint = Suggestions.closest(to: word, among: ["--help", "--version"]).map { " (did you mean \($0)?)" } ?? ""
            return .usage("unknown option \(word)\(hint); options go after the command: run `ledger --help` for the list")
        }
        let hint = Suggestions.closest(to: word, among: specs.map(\.name) + ["help"]).map { " (did you mean `\($0)`?)" } ?? ""
        return .usage("unknown command \"\(word)\"\(hint); run `ledger --help` for the list")
    }

    /// Reports `error`: its `ledger: …` line on standard error and, with `json`, the one object
    /// `{"status":"error","code":…,"message":…}` on standard output.
    private static func fail(_ error: CLIError, _ context: Context, json: Bool = false) -> Int32 {
        if json {
            context.printJSON(.object(JSONObject([("status", .string("error")), ("code", .string(error.code)),
                                                  ("message", .string(error.message))])))
        }
        context.complain(error.message)
        return error.status.rawValue
    }
}
