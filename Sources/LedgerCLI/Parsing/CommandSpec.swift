// MARK: - OptionSpec

/// One `--option` a command accepts: a flag, or an option taking a value.
public struct OptionSpec: Sendable {
    /// The name without dashes (`json`, `log`).
    public let name: String
    /// The value's placeholder (`FILE`), or nil for a flag.
    public let value: String?
    /// `--name VALUE` (`--name` for a flag).
    public var synopsis: String { "--\(name)" + (value.map { " \($0)" } ?? "") }
    /// One line of help.
    public let help: String
    /// The values it accepts, when they are a fixed list (the parser checks them; completions offer them).
    public var choices: [String] = []
    /// True when it may be given more than once (`Invocation.values`).
    public var repeatable = false
    /// True when the command needs it (with a non-empty value): `usage` shows it without brackets and
    /// the parser refuses a command line without it.
    public var required = false

    /// True when `options` (parsed values by name) lack it: not given, or given an empty value.
    public func isMissing(from options: [String: String]) -> Bool {
        guard let given = options[name] else { return true }
        return value != nil && given.isEmpty
    }

    /// A flag.
    public static func flag(_ name: String, _ help: String) -> OptionSpec { OptionSpec(name: name, value: nil, help: help) }
    /// An option with a value, optionally one of `choices`.
    public static func option(_ name: String, _ value: String, _ help: String, choices: [String] = [],
                              required: Bool = false) -> OptionSpec {
        OptionSpec(name: name, value: value, help: help, choices: choices, required: required)
    }
    /// An option with a value that may be given more than once.
    public static func repeatable(_ name: String, _ value: String, _ help: String) -> OptionSpec {
        OptionSpec(name: name, value: value, help: help, repeatable: true)
    }
}

// MARK: - PositionalSpec

/// A positional argument.
public struct PositionalSpec: Sendable {
    /// The placeholder (`FILE`).
    public let name: String
    /// False when it must be given.
    public let optional: Bool
    /// One line of help.
    public let help: String
    /// The values it accepts, when they are a fixed list (the parser checks them; completions offer them).
    public var choices: [String] = []
}

// MARK: - CommandSpec

/// A command's definition: the parser, `--help` and completions are all generated from it.
public struct CommandSpec: Sendable {
    /// The command word (`verify`).
    public let name: String
    /// One-line summary.
    public let summary: String
    /// Positional arguments in order.
    public let positionals: [PositionalSpec]
    /// Options besides the global ones.
    public let options: [OptionSpec]
    /// A paragraph shown under the usage line.
    public let details: String
    /// The global options that apply to it (`storeOptions`, or only `--help`).
    public let globals: [OptionSpec]
    /// True when its output carries what the user must receive (a token, a new account's id): it
    /// refuses to act when standard output was closed at start.
    public var outputMustBeReceived = false

    /// A command definition; `globals` are the global options that mean something to it.
    public init(name: String, summary: String, positionals: [PositionalSpec] = [], options: [OptionSpec] = [], details: String = "",
                globals: [OptionSpec] = CommandSpec.globalOptions, outputMustBeReceived: Bool = false) {
        self.name = name; self.summary = summary; self.positionals = positionals; self.options = options; self.details = details
        self.globals = globals; self.outputMustBeReceived = outputMustBeReceived
    }

    /// `--help`, which every command takes.
    public static let helpOption = OptionSpec.flag("help", "show this help")

    /// The global options of a command that reads or writes a store: `--data`, `--store`, `--help`.
    public static let globalOptions: [OptionSpec] = [
        .option("data", "DIR", "data directory (default: $LEDGER_DATA, else ./ledger-data)"),
        .option("store", "URL", "a PostgreSQL store, postgres://USER@HOST:PORT/DB (default: $LEDGER_STORE, else the file under DIR)"),
        helpOption,
    ]

    /// Own options, then the global ones that apply.
    public var allOptions: [OptionSpec] { options + globals }

    /// `ledger report --html FILE [--log FILE] [--json]`: required options first, without brackets.
    public var usage: String {
        var parts = ["ledger", name]
        parts += positionals.map { $0.optional ? "[\($0.name)]" : $0.name }
        parts += options.filter(\.required).map(\.synopsis)
        parts += options.filter { !$0.required }.map { "[\($0.synopsis)]" }
        return parts.joined(separator: " ")
    }

    /// The full `--help` text.
    public var help: String {
        var lines = ["\(summary)", "", "Usage: \(usage)"]
        if !details.isEmpty { lines += ["", details] }
        if !positionals.isEmpty {
            lines += ["", "Arguments:"]
            lines += positionals.map { "  " + pad($0.name, 22) + $0.help }
        }
        lines += ["", "Options:"]
        lines += allOptions.map { "  " + pad($0.synopsis, 22) + $0.help }
        return lines.joined(separator: "\n")
    }
}

/// `text` padded with spaces to `width` (at least one space after it).
func pad(_ text: String, _ width: Int) -> String {
    text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
}
