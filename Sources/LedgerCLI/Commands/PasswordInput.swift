import Glibc
import LedgerKit

// MARK: - PasswordInput

/// Reads a password: the first line of standard input with `--password-stdin`, else a no-echo
/// prompt when standard input is a terminal, else a usage error. Never argv, never the environment.
enum PasswordInput {
    /// The password for `invocation`: the next line of standard input with `--password-stdin`
    /// (`missing` says what to write when there is none), else `prompt` on a terminal. When another
    /// line is read after it (`moreLines`), a line over 4 KiB is refused at once (its rest would be
    /// read as the next line); a last line that long is the password rules' to refuse (a sign-up
    /// records it as `invalid-password`).
    static func read(_ invocation: Invocation, _ context: Context, prompt: String = "Password: ",
                     missing: String = "standard input is empty; write the password as its first line", moreLines: Bool = false) throws -> String {
        if invocation.flag("password-stdin") {
            guard var line = context.readBytesLine() else { throw CLIError.usage("--password-stdin: \(missing)") }
            if moreLines { try refuseLongLine(line) }
            if line.last == 0x0D { line.removeLast() }
            return Ledger.Input.password(fromLine: line)  // not UTF-8: a text every check and rule refuses
        }
        guard context.stdinIsTerminal else {
            throw CLIError.usage("no password: pass --password-stdin and write it to standard input, or run in a terminal to be prompted")
        }
        return promptWithoutEcho(prompt, context)
    }

    /// Refuses a line of standard input cut at `StandardInput.maxLine` bytes, at once: the rest of
    /// it is never taken for the next line (a current password, then a new one).
    static func refuseLongLine(_ line: [UInt8]) throws {
        if line.count > StandardInput.maxLine {
            throw CLIError.usage("a line of standard input is longer than \(StandardInput.maxLine) bytes; nothing was read after it")
        }
    }

    /// Prompts on standard error with terminal echo turned off.
    private static func promptWithoutEcho(_ prompt: String, _ context: Context) -> String {
        context.err(prompt)
        var saved = termios()
        let hasTerminal = tcgetattr(0, &saved) == 0
        if hasTerminal {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(0, TCSAFLUSH, &quiet)
        }
        let line = Ledger.Input.password(fromLine: context.readBytesLine() ?? [])
        if hasTerminal { tcsetattr(0, TCSAFLUSH, &saved) }
        context.err("\n")
        return line
    }
}
