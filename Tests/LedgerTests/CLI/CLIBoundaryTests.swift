import Foundation
import Testing

/// The command line is a client of `LedgerKit` alone: it cannot name a rule of `LedgerDomain`, so it
/// cannot decide one. Read from the sources and the manifest, as a reviewer would check it.
struct CLIBoundaryTests {
    /// The rooms of `LedgerDomain` that decide (accounts, registration, the saga, the fast paths'
    /// states); a type declared there is a rule, bar the values named in `valuesInRuleRooms`.
    static let ruleRooms = ["Accounts", "Registration", "Saga", "FastPath"]
    /// Values declared beside the rules that a client receives: refusals, a sign-up as typed, a token's kind.
    static let valuesInRuleRooms: Set = ["AccountRefusal", "RefusedRegistration", "RegistrationInput", "AccountTokens.Kind"]

    @Test func noFileOfTheCommandLineImportsTheCore() throws {
        let folder = Paths.repo("Sources/LedgerCLI")
        let files = try swiftFiles(under: folder)
        #expect(files.count > 30)
        let importsCore = try Regex(#"(?m)^\s*(@\w+\s+)?import\s+(\w+\s+)?LedgerDomain\b"#)
        for file in files {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            #expect(!text.contains(importsCore), "\(file) imports LedgerDomain")
        }
    }

    @Test func theManifestGivesTheCommandLineLedgerKitAlone() throws {
        let manifest = try String(contentsOfFile: Paths.repo("Package.swift"), encoding: .utf8)
        let line = try #require(manifest.split(separator: "\n").first { $0.contains(#".target(name: "LedgerCLI""#) })
        #expect(line.contains(#"dependencies: ["LedgerKit"]"#), "LedgerCLI's dependencies: \(line)")
    }

    @Test func theLibraryReExportsNoRule() throws {
        let kit = try swiftFiles(under: Paths.repo("Sources/LedgerKit"))
        let reExport = try Regex(#"@_exported\s+import"#)
        for file in kit {
            #expect(!(try String(contentsOfFile: file, encoding: .utf8)).contains(reExport), "\(file) re-exports a module")
        }
        // Every type LedgerKit gives its clients by another name: none declared in a rule room.
        let alias = try Regex(#"(?m)^public typealias \w+ = LedgerDomain\.([\w.]+)$"#)
        var aliased: [String] = []
        for file in kit {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            aliased += text.matches(of: alias).map { String($0.output[1].substring ?? "") }
        }
        #expect(aliased.count > 10)
        let rules = try ruleTypes()
        #expect(rules.contains("AccountFold") && rules.contains("EmailRule") && rules.contains("PasswordRule"))
        for name in aliased where !Self.valuesInRuleRooms.contains(name) {
            let top = String(name.split(separator: ".").first ?? "")
            #expect(!rules.contains(top), "LedgerKit gives its clients \(name), a rule")
        }
    }

    /// The types declared at the top level of the rule rooms.
    private func ruleTypes() throws -> Set<String> {
        let declaration = try Regex(#"(?m)^public (?:final )?(?:struct|enum|class|protocol|actor) (\w+)"#)
        var names: Set<String> = []
        for room in Self.ruleRooms {
            for file in try swiftFiles(under: Paths.repo("Sources/LedgerDomain/\(room)")) {
                let text = try String(contentsOfFile: file, encoding: .utf8)
                names.formUnion(text.matches(of: declaration).map { String($0.output[1].substring ?? "") })
            }
        }
        return names
    }

    /// The Swift files under `folder`, recursively.
    private func swiftFiles(under folder: String) throws -> [String] {
        let enumerator = try #require(FileManager.default.enumerator(atPath: folder))
        return enumerator.compactMap { ($0 as? String).flatMap { $0.hasSuffix(".swift") ? "\(folder)/\($0)" : nil } }
    }
}
