import Foundation
import Glibc

// MARK: - Paths

/// Where the repository and the built binaries are, found without relying on the working directory.
enum Paths {
    /// The repository root: four levels above this file (`Tests/LedgerTests/Support/Paths.swift`).
    static let repoRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// A path inside the repository, e.g. `repo("Events/samples/demo/events.jsonl")`.
    static func repo(_ relative: String) -> String { "\(repoRoot)/\(relative)" }

    /// The build products folder: the directory of the running test binary (`…PackageTests.xctest`),
    /// which also holds `ledger` and `ledger-drill`.
    static let binaries: String = {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        precondition(count > 0, "readlink /proc/self/exe failed")
        let exe = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return URL(fileURLWithPath: exe).deletingLastPathComponent().path
    }()

    /// The built `ledger` binary.
    static var ledger: String { "\(binaries)/ledger" }

    /// The built `ledger-drill` binary.
    static var drill: String { "\(binaries)/ledger-drill" }

    /// `python3` as found on `PATH`.
    static let python3: String = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") where access("\(folder)/python3", X_OK) == 0 {
            return "\(folder)/python3"
        }
        return "/usr/bin/python3"
    }()

    /// The demo sample log.
    static var demoLog: String { repo("Events/samples/demo/events.jsonl") }
    /// The lifecycle sample: one person's later life.
    static var lifecycleLog: String { repo("Events/samples/lifecycle/events.jsonl") }
    /// The sample log cut in the middle of line 25.
    static var tornSample: String { repo("Events/samples/torn-tail.jsonl") }
    /// The sample log with line 9 edited.
    static var editedSample: String { repo("Events/samples/edited-middle.jsonl") }
}
