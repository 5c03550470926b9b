import Foundation
import Glibc

// MARK: - Pseudo-terminal

/// Runs commands with standard output on a pseudo-terminal, through util-linux `script`.
enum PseudoTerminal {
    /// `script`, when installed.
    static let script: String? = ["/usr/bin/script", "/bin/script"].first { access($0, X_OK) == 0 }

    /// True when `script` is installed.
    static var isAvailable: Bool { script != nil }

    /// Runs `binary arguments` on a fresh pseudo-terminal (which reports no size, so `$COLUMNS` applies).
    /// Standard output and error both arrive in `stdout`, with the terminal's `\r\n` turned into `\n`.
    static func run(_ binary: String, _ arguments: [String], env: [String: String] = [:]) throws -> ProcessResult {
        guard let script else { throw SystemTestError("util-linux `script` is not installed") }
        let command = ([binary] + arguments).map(quote).joined(separator: " ")
        let result = try LedgerTests.run(script, ["-qec", command, "/dev/null"], env: env)
        return ProcessResult(status: result.status, stdout: result.stdout.replacingOccurrences(of: "\r\n", with: "\n"),
                             stderr: result.stderr)
    }

    /// `text` in single quotes for `sh`.
    private static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
