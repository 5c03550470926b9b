import Foundation
import Testing

/// What the README promises a new user: the prerequisites named, two set-up commands, and a tour
/// that writes nothing into the repository.
@Suite struct ReadmeTests {
    private let readme: String

    init() throws { readme = try readText(Paths.repo("README.md")) }

    /// The fenced code blocks under the heading `title`.
    private func code(under title: String) -> [String] {
        guard let section = readme.components(separatedBy: "\n## ").first(where: { $0.hasPrefix(title) }) else { return [] }
        return section.components(separatedBy: "```").enumerated().filter { $0.offset % 2 == 1 }
            .flatMap { $0.element.split(separator: "\n").dropFirst().map(String.init) }
    }

    @Test func thePrerequisitesAreNamed() {
        let prerequisites = readme.components(separatedBy: "\n## ").first { $0.hasPrefix("Prerequisites") } ?? ""
        for needed in ["Swift 6", "libssl-dev", "libcrypt-dev", "libpq-dev", "postgresql", "chromium", "jsonschema", "two cores"] {
            #expect(prerequisites.contains(needed), "the prerequisites do not name \(needed)")
        }
    }

    @Test func exactlyTwoSetUpCommands() {
        #expect(code(under: "Set up") == ["swift run ledger replay Events/samples/demo/events.jsonl", "swift test"])
    }

    @Test func theTourWritesUnderItsDataFolder() {
        let tour = code(under: "A short tour")
        #expect(tour.first == "export LEDGER_DATA=/tmp/ledger-tour")
        // Every file a tour command writes (`--html FILE`, a redirection) is under $LEDGER_DATA.
        for line in tour {
            let words = line.split(separator: " ").map(String.init)
            for (i, word) in words.enumerated() where (word == "--html" || word == ">") && i + 1 < words.count {
                #expect(words[i + 1].hasPrefix("$LEDGER_DATA/"), "the tour writes \(words[i + 1]) outside its data folder")
            }
        }
        #expect(tour.contains { $0.contains("--html") })
    }
}
