// MARK: - CompletionModel

/// What the completion scripts are generated from: the command definitions the parser uses,
/// reduced to words and value kinds every shell understands.
struct CompletionModel {
    /// How the value of an option or positional argument completes.
    enum Values: Equatable {
        /// Free text (an email, a number): nothing to offer.
        case text
        /// Paths of files (placeholder `FILE`).
        case files
        /// Paths of directories (placeholder `DIR`).
        case directories
        /// One of a fixed list.
        case words([String])

        /// The kind for a placeholder and its fixed choices.
        init(placeholder: String, choices: [String]) {
            switch placeholder {
            case _ where !choices.isEmpty: self = .words(choices)
            case "FILE": self = .files
            case "DIR": self = .directories
            default: self = .text
            }
        }
    }

    /// One `--option`.
    struct Option {
        /// The name without dashes.
        let name: String
        /// The placeholder (`FILE`), nil for a flag.
        let placeholder: String?
        /// Its value's completion (`.text` for a flag).
        let values: Values
        /// One line of help.
        let help: String
    }

    /// One command.
    struct Command {
        /// The command word.
        let name: String
        /// One-line summary.
        let summary: String
        /// Its options, the global ones included.
        let options: [Option]
        /// Its positional arguments: placeholder, whether optional, and how they complete.
        let positionals: [(name: String, optional: Bool, values: Values)]
    }

    /// The commands, then `help COMMAND`.
    let commands: [Command]
    /// Options of `ledger` itself (`--help`, `--version`).
    let topLevelOptions: [(name: String, help: String)] = [("help", "show the list of commands"), ("version", "print the version")]

    /// The model of `specs`, with `help` added (it completes a command name).
    init(_ specs: [CommandSpec]) {
        var commands = specs.map { spec in
            Command(name: spec.name, summary: spec.summary,
                    options: spec.allOptions.map { option in
                        Option(name: option.name, placeholder: option.value,
                               values: option.value.map { Values(placeholder: $0, choices: option.choices) } ?? .text, help: option.help)
                    },
                    positionals: spec.positionals.map { ($0.name, $0.optional, Values(placeholder: $0.name, choices: $0.choices)) })
        }
        commands.append(Command(name: "help", summary: "show a command's help", options: [],
                                positionals: [("COMMAND", true, .words(specs.map(\.name)))]))
        self.commands = commands
    }

    /// Every command word, `help` included.
    var commandNames: [String] { commands.map(\.name) }
}
