// MARK: - Invocation

/// A parsed command line: which options were given and the positional arguments.
public struct Invocation: Sendable {
    /// The command.
    public let spec: CommandSpec
    /// Option values by name (flags map to an empty string).
    public let options: [String: String]
    /// Positional arguments in order.
    public let positionals: [String]
    /// Every value of each repeatable option, in order (`options` holds the last).
    public var repeated: [String: [String]] = [:]

    /// True when the flag was given.
    public func flag(_ name: String) -> Bool { options[name] != nil }
    /// The option's value, if given.
    public func value(_ name: String) -> String? { options[name] }
    /// The value of an option the command requires (the parser refuses a command line without it).
    public func required(_ name: String) -> String { options[name] ?? "" }
    /// Every value given for the repeatable option `name`, in order.
    public func values(_ name: String) -> [String] { repeated[name] ?? [] }

    /// The option's value as a positive integer, or a usage error naming it.
    public func positiveInt(_ name: String) throws(CLIError) -> Int? {
        guard let text = options[name] else { return nil }
        guard let value = Int(text), value >= 1 else { throw CLIError.usage("--\(name) needs a positive integer, not \"\(text)\"") }
        return value
    }
}

// MARK: - ArgumentParser

/// Tokenizes and parses one command's arguments against its `CommandSpec`.
public enum ArgumentParser {
    /// Parses `arguments` (after the command word). `--name value`, `--name=value`, `--` ends options.
    public static func parse(_ arguments: [String], for spec: CommandSpec) throws(CLIError) -> Invocation {
        var options: [String: String] = [:]
        var positionals: [String] = []
        var repeated: [String: [String]] = [:]
        var index = 0
        var optionsEnded = false
        let known = spec.allOptions
        while index < arguments.count {
            let token = arguments[index]
            index += 1
            if optionsEnded || !token.hasPrefix("-") || token == "-" {
                positionals.append(token)
                continue
            }
            if token == "--" { optionsEnded = true; continue }
            if token == "-h" { options["help"] = ""; continue }
            guard token.hasPrefix("--") else {
                throw CLIError.usage("unknown option \(token) for `ledger \(spec.name)`; see `ledger \(spec.name) --help`")
            }
            var name = String(token.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if let secret = SecretArgument(option: name) { throw secret.refusal(for: spec) }
            guard let option = known.first(where: { $0.name == name }) else {
                let hint = Suggestions.closest(to: name, among: known.map(\.name)).map { " (did you mean --\($0)?)" }
                    ?? "; see `ledger \(spec.name) --help`"
                throw CLIError.usage("unknown option --\(name) for `ledger \(spec.name)`\(hint)")
            }
            // A command's own option that takes one value, given twice, is ambiguous (which one counts?).
            if option.value != nil, !option.repeatable, options[name] != nil, spec.options.contains(where: { $0.name == name }) {
                throw CLIError.usage("--\(name) is given twice; give it once (usage: \(spec.usage))")
            }
            if option.value == nil {
                guard inlineValue == nil else { throw CLIError.usage("--\(name) takes no value; write --\(name) alone") }
                options[name] = ""
            } else if let inlineValue {
                options[name] = try checked(inlineValue, option.choices, "--\(name)")
            } else {
                guard index < arguments.count, !namesOption(arguments[index], of: known) else {
                    throw CLIError.usage("--\(name) needs a value: \(option.synopsis)")
                }
                options[name] = try checked(arguments[index], option.choices, "--\(name)")
                index += 1
            }
            if option.repeatable, let value = options[name] { repeated[name, default: []].append(value) }
        }
        if options["help"] == nil {
            let required = spec.positionals.filter { !$0.optional }.count
            if positionals.count < required {
                throw CLIError.usage("`ledger \(spec.name)` needs \(spec.positionals[positionals.count].name) (usage: \(spec.usage))")
            }
            if positionals.count > spec.positionals.count {
                throw CLIError.usage("unexpected argument \"\(positionals[spec.positionals.count])\" for `ledger \(spec.name)` (usage: \(spec.usage))")
            }
            for (value, positional) in zip(positionals, spec.positionals) { _ = try checked(value, positional.choices, positional.name) }
            if let missing = spec.options.first(where: { $0.required && $0.isMissing(from: options) }) {
                throw missingOption(missing, of: spec.name)
            }
        }
        var invocation = Invocation(spec: spec, options: options, positionals: positionals)
        invocation.repeated = repeated
        return invocation
    }

    /// The error for a required option left out: "`ledger report` needs --html FILE: the HTML file …".
    static func missingOption(_ option: OptionSpec, of command: String) -> CLIError {
        .usage("`ledger \(command)` needs \(option.synopsis): \(option.help)")
    }

    /// True when `token` is `--NAME` or `--NAME=…` for one of `options`: the next option, not a value.
    static func namesOption(_ token: String, of options: [OptionSpec]) -> Bool {
        guard token.hasPrefix("--") else { return false }
        let name = token.dropFirst(2).prefix { $0 != "=" }
        return options.contains { $0.name == name }
    }

    /// `value`, when `choices` is empty or holds it; else a usage error naming `what`, the nearest choice and the list.
    static func checked(_ value: String, _ choices: [String], _ what: String) throws(CLIError) -> String {
        guard !choices.isEmpty, !choices.contains(value) else { return value }
        let hint = Suggestions.closest(to: value, among: choices).map { " (did you mean \($0)?)" } ?? ""
        throw CLIError.usage("unknown value \"\(value)\" for \(what)\(hint); expected one of: \(choices.joined(separator: ", "))")
    }
}

// MARK: - Suggestions

/// Close-match suggestions for mistyped commands and options.
public enum Suggestions {
    /// The candidate within edit distance 2 of `word` (the nearest), or nil.
    public static func closest(to word: String, among candidates: [String]) -> String? {
        let scored = candidates.map { ($0, distance(word, $0)) }.filter { $0.1 <= 2 }
        return scored.min(by: { $0.1 < $1.1 })?.0
    }

    /// Levenshtein distance.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        var row = Array(0...b.count)
        for i in 1...a.count {
            var previous = row[0]
            row[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                let current = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = current
            }
        }
        return row[b.count]
    }
}
