import Foundation
import Testing

// The first Swift block of Docs/Library.md is a complete program: built as a package of its own
// that depends on this one by path, it runs against a fresh folder and leaves a log `ledger verify`
// accepts.

@Suite struct LibraryExampleTests {
    /// The first ```swift block of `Docs/Library.md`.
    static func example() throws -> String {
        let text = try String(contentsOfFile: Paths.repo("Docs/Library.md"), encoding: .utf8)
        guard let start = text.range(of: "```swift\n"), let end = text.range(of: "\n```", range: start.upperBound..<text.endIndex) else {
            throw SystemTestError("Docs/Library.md has no ```swift block")
        }
        return String(text[start.upperBound..<end.lowerBound]) + "\n"
    }

    @Test func theDocumentedMainBuildsAsItsOwnPackageAndRuns() throws {
        try withTempDirectory("library-example") { dir in
            let package = "\(dir)/App", data = "\(dir)/data"
            try FileManager.default.createDirectory(atPath: "\(package)/Sources/App", withIntermediateDirectories: true)
            // SwiftPM names a path dependency by its folder's name.
            let identity = URL(fileURLWithPath: Paths.repoRoot).lastPathComponent
            let manifest = """
                // swift-tools-version:6.0
                import PackageDescription

                let package = Package(
                    name: "App",
                    dependencies: [.package(path: "\(Paths.repoRoot)")],
                    targets: [.executableTarget(name: "App", dependencies: [.product(name: "LedgerKit", package: "\(identity)")])]
                )
                """
            try manifest.write(toFile: "\(package)/Package.swift", atomically: true, encoding: .utf8)
            try Self.example().write(toFile: "\(package)/Sources/App/main.swift", atomically: true, encoding: .utf8)
            // Built beside this package's own products, so a second run builds only what changed.
            let scratch = Paths.repo(".build/library-example")
            let build = try run("/usr/bin/env", ["swift", "build", "--package-path", package, "--scratch-path", scratch, "--product", "App"])
            #expect(build.status == 0, "\(build)")
            let app = try run("\(scratch)/debug/App", [], env: ["LEDGER_DATA": data])
            #expect(app.status == 0, "\(app)")
            let lines = app.stdoutLines
            #expect(lines.first?.hasPrefix("registered ") == true, "\(app)")
            #expect(lines.contains { $0.hasPrefix("signed in: session ") } && lines.contains("signed out"), "\(app)")
            #expect(lines.contains { $0.hasPrefix("user ") && $0.hasSuffix(" active") }, "\(app)")
            #expect(lines.last?.hasPrefix("head ") == true, "\(app)")
            let verify = try ledger("verify", "--data", data, "--json")
            #expect(verify.status == 0, "\(verify)")
            // The head the program printed is the log's.
            #expect(verify.stdout.contains((lines.last ?? "").dropFirst(5).split(separator: ":").last.map(String.init) ?? "-"), "\(verify)")
        }
    }
}
