// MARK: - BenchError

/// A failure that ends the command with a message and an exit status (2 for usage).
struct BenchError: Error, CustomStringConvertible {
    /// What went wrong.
    let description: String
    /// The exit status.
    let status: Int32

    /// A usage error (exit 2).
    static func usage(_ message: String) -> BenchError { BenchError(description: message, status: 2) }
    /// A failed run (exit 1).
    static func failed(_ message: String) -> BenchError { BenchError(description: message, status: 1) }
    /// `--help` after a subcommand: the usage on standard output, exit 0.
    static let help = BenchError(description: "help", status: 0)
}

// MARK: - Options

/// `--name VALUE` options of a subcommand, checked against the names it accepts; `--json` alone.
struct Options {
    private var values: [String: String] = [:]
    /// The options that take no value.
    private static let flags: Set<String> = ["json"]

    /// Parses `arguments`; every option takes a value and must be in `allowed`.
    init(_ arguments: ArraySlice<String>, allowed: Set<String>) throws(BenchError) {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            if argument == "--help" || argument == "-h" { throw .help }
            guard argument.hasPrefix("--") else { throw .usage("unexpected argument \(argument)") }
            let name = String(argument.dropFirst(2))
            guard allowed.contains(name) else { throw .usage("unknown option --\(name)") }
            if Self.flags.contains(name) { values[name] = ""; continue }
            guard let value = rest.popFirst() else { throw .usage("--\(name) needs a value") }
            values[name] = value
        }
    }

    /// True when the flag `--name` was given.
    func flag(_ name: String) -> Bool { values[name] != nil }

    /// The value of `--name`, if given.
    func string(_ name: String) -> String? { values[name] }

    /// The value of `--name` as a positive integer (or `fallback` when absent).
    func positiveInt(_ name: String, default fallback: Int) throws(BenchError) -> Int {
        guard let text = values[name] else { return fallback }
        guard let value = Int(text.filter { $0 != "_" && $0 != "," }), value > 0 else {
            throw .usage("--\(name) needs a positive integer, not \(text)")
        }
        return value
    }

    /// The value of `--name` as an unsigned integer (or `fallback` when absent).
    func seed(_ name: String, default fallback: UInt64) throws(BenchError) -> UInt64 {
        guard let text = values[name] else { return fallback }
        guard let value = UInt64(text) else { throw .usage("--\(name) needs an unsigned integer, not \(text)") }
        return value
    }
}
