import Foundation
import Glibc

// MARK: - BackgroundProcess

/// A child process that runs until told to stop (`ledger events --follow`): its output can be read
/// while it runs, it can be sent signals, and it is killed if a test ends without waiting for it.
final class BackgroundProcess {
    private let process = Process()
    private let folder: String
    private let outPath: String
    private let errPath: String

    /// Starts `binary` with `arguments`; `env` is added to (and overrides) the current environment.
    /// Standard input is empty; output goes to temporary files.
    init(_ binary: String, _ arguments: [String], env: [String: String] = [:]) throws {
        folder = NSTemporaryDirectory() + "ledger-background-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        outPath = folder + "/stdout"
        errPath = folder + "/stderr"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(env) { _, new in new }
        process.standardInput = FileHandle(forReadingAtPath: "/dev/null")
        process.standardOutput = FileHandle(forWritingAtPath: outPath)
        process.standardError = FileHandle(forWritingAtPath: errPath)
        try process.run()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The process id.
    var pid: Int32 { process.processIdentifier }
    /// True until it has exited.
    var isRunning: Bool { process.isRunning }

    /// Everything it has written to standard output so far.
    func stdout() throws -> String { try readText(outPath) }
    /// Everything it has written to standard error so far.
    func stderr() throws -> String { try readText(errPath) }

    /// Sends `signal` (e.g. `SIGINT`).
    func send(_ signal: Int32) { kill(pid, signal) }

    /// Polls `condition` every 50 ms until it holds (true) or `seconds` pass (false).
    func waitUntil(seconds: Double = 10, _ condition: (BackgroundProcess) throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition(self) { return true }
            usleep(50_000)
        }
        return try condition(self)
    }

    /// Waits up to `seconds` for it to exit (killing it after that) and returns its status and output.
    func wait(seconds: Double = 10) throws -> ProcessResult {
        if !waitUntil(seconds: seconds, { !$0.isRunning }) { kill(pid, SIGKILL) }
        process.waitUntilExit()
        let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        return ProcessResult(status: status, stdout: try stdout(), stderr: try stderr())
    }
}
