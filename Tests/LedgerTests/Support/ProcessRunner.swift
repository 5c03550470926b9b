import Foundation

// MARK: - Running binaries

/// What a finished child process left behind.
struct ProcessResult: CustomStringConvertible {
    /// The exit status (or 128 + signal when it was killed).
    let status: Int32
    /// Everything written to standard output.
    let stdout: String
    /// Everything written to standard error.
    let stderr: String

    /// Standard output split into lines (without the final empty piece).
    var stdoutLines: [String] { Self.lines(stdout) }
    /// Standard error split into lines (without the final empty piece).
    var stderrLines: [String] { Self.lines(stderr) }

    var description: String { "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }

    /// True when standard output holds only what a failure may print there: nothing, or (with
    /// `--json`) the one `{"status":"error","code":…,"message":…}` object of the standard error line.
    var stdoutIsAFailuresOnly: Bool {
        guard !stdout.isEmpty else { return true }
        guard stdoutLines.count == 1,
              let object = try? JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any],
              object["status"] as? String == "error", object["code"] is String, let message = object["message"] as? String
        else { return false }
        return stderrLines.last == "ledger: " + message
    }

    private static func lines(_ text: String) -> [String] {
        var parts = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if parts.last == "" { parts.removeLast() }
        return parts
    }
}

/// A child process started by `start`; `wait()` collects its result.
final class RunningProcess {
    private let process: Process
    private let outPath: String
    private let errPath: String
    private let folder: String

    fileprivate init(process: Process, outPath: String, errPath: String, folder: String) {
        self.process = process; self.outPath = outPath; self.errPath = errPath; self.folder = folder
    }

    /// Removes the output files even when nobody waited (the process keeps writing to unlinked files).
    deinit { try? FileManager.default.removeItem(atPath: folder) }

    /// True until it has exited.
    var isRunning: Bool { process.isRunning }

    /// Polls every 10 ms until it has exited (true) or `seconds` pass (false): a guard against a
    /// hang, not a measure of time.
    func exits(within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        return !process.isRunning
    }

    /// Waits for the process to end and returns its status and output.
    func wait() throws -> ProcessResult {
        process.waitUntilExit()
        let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        return ProcessResult(status: status, stdout: try readText(outPath), stderr: try readText(errPath))
    }
}

/// Starts `binary` with `arguments`. Output goes to temporary files (no pipe can fill up and block).
/// `env` is added to (and overrides) the current environment; `cwd` is the working directory.
func start(_ binary: String, _ arguments: [String], stdin: String? = nil, env: [String: String] = [:],
           cwd: String? = nil) throws -> RunningProcess {
    let folder = NSTemporaryDirectory() + "ledger-run-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let outPath = folder + "/stdout", errPath = folder + "/stderr", inPath = folder + "/stdin"
    _ = FileManager.default.createFile(atPath: outPath, contents: nil)
    _ = FileManager.default.createFile(atPath: errPath, contents: nil)
    _ = FileManager.default.createFile(atPath: inPath, contents: Data((stdin ?? "").utf8))
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binary)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(env) { _, new in new }
    if let cwd { process.currentDirectoryURL = URL(fileURLWithPath: cwd) }
    process.standardInput = FileHandle(forReadingAtPath: inPath)
    process.standardOutput = FileHandle(forWritingAtPath: outPath)
    process.standardError = FileHandle(forWritingAtPath: errPath)
    try process.run()
    return RunningProcess(process: process, outPath: outPath, errPath: errPath, folder: folder)
}

/// Runs `binary` with `arguments` to completion and returns (status, stdout, stderr).
func run(_ binary: String, _ arguments: [String], stdin: String? = nil, env: [String: String] = [:],
         cwd: String? = nil) throws -> ProcessResult {
    try start(binary, arguments, stdin: stdin, env: env, cwd: cwd).wait()
}

/// Runs the built `ledger` binary.
func ledger(_ arguments: String..., stdin: String? = nil, env: [String: String] = [:], cwd: String? = nil) throws -> ProcessResult {
    try run(Paths.ledger, arguments, stdin: stdin, env: env, cwd: cwd)
}

/// Runs a Python tool of `Events/tools` from the repository root.
func pythonTool(_ name: String, _ arguments: [String] = []) throws -> ProcessResult {
    try run(Paths.python3, [Paths.repo("Events/tools/\(name)")] + arguments, cwd: Paths.repoRoot)
}
