import Foundation
import LedgerKit
import Testing

// The Swift blocks of Docs/Library.md build as a package of their own that depends on this one by
// path: the first is a complete program, run against a fresh folder (it leaves a log `ledger verify`
// accepts); the PostgreSQL block, wrapped in a program that prints the head and closes, runs
// against a database made by `ledger init`.

@Suite(.serialized) struct LibraryExampleTests {
    /// The ```swift blocks of `Docs/Library.md`, in order.
    static func blocks() throws -> [String] {
        let text = try String(contentsOfFile: Paths.repo("Docs/Library.md"), encoding: .utf8)
        var blocks: [String] = [], rest = text.startIndex..<text.endIndex
        while let start = text.range(of: "```swift\n", range: rest), let end = text.range(of: "\n```", range: start.upperBound..<text.endIndex) {
            blocks.append(String(text[start.upperBound..<end.lowerBound]) + "\n")
            rest = end.upperBound..<text.endIndex
        }
        guard !blocks.isEmpty else { throw SystemTestError("Docs/Library.md has no ```swift block") }
        return blocks
    }

    /// The block that opens a ledger on PostgreSQL (the one naming `.postgres`).
    static func postgresBlock() throws -> String {
        guard let block = try blocks().first(where: { $0.contains("Ledger.Store.postgres") }) else {
            throw SystemTestError("Docs/Library.md has no ```swift block opening a ledger on PostgreSQL")
        }
        return block
    }

    /// Builds `product` of the example package (one executable per documented program), always at
    /// the same path beside this package's products, so a second build compiles only what changed;
    /// returns the executable's path.
    static func build(_ product: String) throws -> String {
        let root = Paths.repo(".build/library-example")
        let package = "\(root)/App", scratch = "\(root)/scratch"
        // SwiftPM names a path dependency by its folder's name.
        let identity = URL(fileURLWithPath: Paths.repoRoot).lastPathComponent
        let manifest = """
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(
                name: "App",
                dependencies: [.package(path: "\(Paths.repoRoot)")],
                targets: [
                    .executableTarget(name: "App", dependencies: [.product(name: "LedgerKit", package: "\(identity)")]),
                    .executableTarget(name: "PostgresApp", dependencies: [.product(name: "LedgerKit", package: "\(identity)")]),
                ]
            )
            """
        let postgresMain = "import Foundation\nimport LedgerKit\n\n" + (try postgresBlock())
            + "print(\"head \\(try await ledger.head())\")\nawait ledger.close()\n"
        for (path, text) in [("Package.swift", manifest), ("Sources/App/main.swift", try blocks()[0]),
                             ("Sources/PostgresApp/main.swift", postgresMain)] {
            let file = "\(package)/\(path)"
            try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            // Unchanged files are left alone: their dates would make SwiftPM build them again.
            if (try? String(contentsOfFile: file, encoding: .utf8)) != text { try text.write(toFile: file, atomically: true, encoding: .utf8) }
        }
        var build = try run("/usr/bin/env", ["swift", "build", "--package-path", package, "--scratch-path", scratch, "--product", product])
        if build.status != 0 {
            // A kept scratch folder can miss a source file added to LedgerKit since (SwiftPM keeps the
            // path dependency's file list): built once more from nothing before it counts as a failure.
            try? FileManager.default.removeItem(atPath: scratch)
            build = try run("/usr/bin/env", ["swift", "build", "--package-path", package, "--scratch-path", scratch, "--product", product])
        }
        guard build.status == 0 else { throw SystemTestError("the example \(product) does not build: \(build)") }
        return "\(scratch)/debug/\(product)"
    }

    @Test func theDocumentedMainBuildsAsItsOwnPackageAndRuns() throws {
        try withTempDirectory("library-example") { dir in
            let data = "\(dir)/data"
            let app = try run(try Self.build("App"), [], env: ["LEDGER_DATA": data])
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

    /// The PostgreSQL block opens the database `LEDGER_STORE` names: the head it reads is the one
    /// the command line's registration left there.
    @Test func thePostgresBlockOpensTheStoreLedgerStoreNames() throws {
        let app = try Self.build("PostgresApp")
        try withPostgresLedger { pg in
            let registered = try pg.run(LedgerDir.registerArguments(email: uniqueEmail(), username: "PG"), stdin: "correct horse 1\n")
            #expect(registered.status == 0, "\(registered)")
            let verify = try pg.run(["verify", "--json"])
            #expect(verify.status == 0, "\(verify)")
            let head = (try parseJSON(verify.stdout) as? [String: Any])?["head"] as? [String: Any]
            let seq = try #require(head?["seq"] as? Int, "\(verify)")
            let hash = try #require(head?["hash"] as? String, "\(verify)")
            let opened = try run(app, [], env: ["LEDGER_STORE": pg.url.text])
            #expect(opened.status == 0, "\(opened)")
            #expect(opened.stdoutLines == ["head \(seq):\(hash)"], "\(opened)")
        }
    }
}
