// MARK: - SecretArgument

/// A secret typed as an option (`--password secret`, `--token=…`): refused before its value is
/// read, pointing to the option that reads it from standard input. The value is never echoed.
enum SecretArgument {
    /// `--password`.
    case password
    /// `--token`.
    case token

    /// The secret `--NAME` asks for, or nil when it is not one.
    init?(option name: String) {
        switch name {
        case "password", "pass", "passwd": self = .password
        case "token": self = .token
        default: return nil
        }
    }

    /// The usage error for `spec`: where the secret goes instead.
    func refusal(for spec: CommandSpec) -> CLIError {
        let (what, stdinOption) = self == .password ? ("password", "password-stdin") : ("token", "token-stdin")
        let why = "a \(what) is never taken as an argument (other users can read a command line, and shells keep it in their history)"
        guard spec.options.contains(where: { $0.name == stdinOption }) else {
            return .usage("\(why); `ledger \(spec.name)` takes no \(what)")
        }
        return .usage("\(why); pass --\(stdinOption) and write it to standard input")
    }
}
