// MARK: - CompletionsCommand

/// `ledger completions bash|zsh|fish`: prints a completion script generated from the command definitions.
enum CompletionsCommand {
    /// The shells it writes scripts for.
    static let shells = ["bash", "zsh", "fish"]

    /// The definition.
    static let spec = CommandSpec(
        name: "completions", summary: "print a shell completion script (bash, zsh or fish)",
        positionals: [PositionalSpec(name: "SHELL", optional: false, help: "bash, zsh or fish", choices: shells)],
        details: """
        bash: `source <(ledger completions bash)` in ~/.bashrc
        zsh:  `ledger completions zsh > "${fpath[1]}/_ledger"`, then start a new shell
        fish: `ledger completions fish > ~/.config/fish/completions/ledger.fish`
        """,
        globals: [CommandSpec.helpOption])

    /// Runs it.
    static func run(_ invocation: Invocation, _ context: Context) throws -> Int32 {
        let model = CompletionModel(LedgerCLI.specs)
        switch invocation.positionals[0] {
        case "bash": context.print(BashCompletion.script(model))
        case "zsh": context.print(ZshCompletion.script(model))
        default: context.print(FishCompletion.script(model))
        }
        return 0
    }
}
