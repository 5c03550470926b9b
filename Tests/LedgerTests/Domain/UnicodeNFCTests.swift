import Glibc
@testable import LedgerDomain
import Testing

// MARK: - UnicodeNFCTests

/// `UnicodeNFC`: hand-picked cases of each rule of Normalization Form C, then every vector of
/// `Tests/LedgerTests/Fixtures/nfc_vectors.txt` (Python's unicodedata NFC, written by `Events/tools/gen_nfc_tables.py`).
///
/// Results are compared scalar for scalar: `String ==` compares by canonical equivalence, so it would pass
/// even if nothing were normalized.
struct UnicodeNFCTests {
    /// The scalar values of `text`.
    private func scalars(_ text: String) -> [UInt32] { text.unicodeScalars.map(\.value) }

    /// The scalar values of `text` in NFC.
    private func nfc(_ text: String) -> [UInt32] { scalars(UnicodeNFC.normalize(text)) }

    // MARK: - Hand-picked

    @Test func composesACombiningAcuteOntoE() {
        #expect(nfc("e\u{301}") == [0xE9])
        #expect(nfc("E\u{301}cole") == [0xC9, 0x63, 0x6F, 0x6C, 0x65])
        #expect(!UnicodeNFC.isNormalized("e\u{301}"))
        #expect(UnicodeNFC.isNormalized("\u{E9}"))
    }

    @Test func composesHangulJamoIntoSyllables() {
        #expect(nfc("\u{1100}\u{1161}\u{11A8}") == [0xAC01])  // L V T
        #expect(nfc("\u{1100}\u{1161}") == [0xAC00])  // L V
        #expect(nfc("\u{AC00}\u{11A8}") == [0xAC01])  // LV syllable + T
        #expect(nfc("\u{AC01}") == [0xAC01])  // decomposed and composed back
        #expect(nfc("\u{D7A3}") == [0xD7A3])  // the last syllable
        #expect(nfc("\u{AC00}\u{11A7}") == [0xAC00, 0x11A7])  // U+11A7 is not a trailing consonant
        #expect(nfc("\u{AC01}\u{11A8}") == [0xAC01, 0x11A8])  // an LVT syllable takes no second T
        #expect(nfc("\u{1100}\u{11A8}") == [0x1100, 0x11A8])  // L + T is no syllable
    }

    @Test func replacesSingletonsByTheirCanonicalEquivalent() {
        #expect(nfc("\u{212B}") == [0xC5])  // ANGSTROM SIGN -> LATIN CAPITAL LETTER A WITH RING ABOVE
        #expect(nfc("\u{2126}") == [0x3A9])  // OHM SIGN -> GREEK CAPITAL LETTER OMEGA
        #expect(nfc("A\u{30A}") == [0xC5])
        #expect(!UnicodeNFC.isNormalized("\u{212B}"))
    }

    @Test func ordersCombiningMarksByClass() {
        // U+0323 (class 220) goes before U+0302 (class 230), whichever order they are typed in.
        #expect(nfc("q\u{302}\u{323}") == [0x71, 0x323, 0x302])
        #expect(nfc("q\u{323}\u{302}") == [0x71, 0x323, 0x302])
        #expect(nfc("a\u{302}\u{323}") == [0x1EAD])
        #expect(nfc("a\u{323}\u{302}") == [0x1EAD])
        // Marks of one class keep their order, and the second is blocked from the base by the first.
        #expect(nfc("a\u{301}\u{300}") == [0xE1, 0x300])
        #expect(nfc("a\u{300}\u{301}") == [0xE0, 0x301])
        // A precomposed letter is decomposed so a lower-class mark can go before its mark.
        #expect(nfc("\u{1E0B}\u{323}") == [0x1E0D, 0x307])
    }

    @Test func leavesCompositionExclusionsDecomposed() {
        #expect(nfc("\u{958}") == [0x915, 0x93C])  // script-specific exclusion
        #expect(nfc("\u{915}\u{93C}") == [0x915, 0x93C])
        #expect(nfc("\u{FB2C}") == [0x5E9, 0x5BC, 0x5C1])  // exclusion with a three-scalar decomposition
        #expect(nfc("\u{344}") == [0x308, 0x301])  // non-starter decomposition
        #expect(nfc("\u{F73}") == [0xF71, 0xF72])
        #expect(nfc("\u{2ADC}") == [0x2ADD, 0x338])  // post-composition-version exclusion
        #expect(!UnicodeNFC.isNormalized("\u{958}"))
    }

    @Test func leavesNFCTextUnchanged() {
        let texts = ["Grüße aus Åmål", "café ☕", "日本語のテキスト", "한국어 텍스트", "Ελληνικά", "Ру́сский", "\u{E9}\u{301}", ""]
        for text in texts {
            #expect(nfc(text) == scalars(text), "\(text)")
            #expect(UnicodeNFC.isNormalized(text), "\(text)")
        }
    }

    @Test func leavesASCIIUnchanged() {
        let ascii = String(decoding: (0..<128).map { UInt8($0) }, as: UTF8.self)
        #expect(nfc(ascii) == scalars(ascii))
        #expect(UnicodeNFC.isNormalized(ascii))
    }

    @Test func givesEquivalentPasswordsTheSameBytes() {
        let typed = ["Åmål-naïve", "A\u{30A}ma\u{30A}l-nai\u{308}ve", "\u{212B}ma\u{30A}l-na\u{EF}ve"]
        let bytes = typed.map { Array(UnicodeNFC.normalize($0).utf8) }
        #expect(bytes.allSatisfy { $0 == bytes[0] })
        #expect(bytes[0] == Array("\u{C5}m\u{E5}l-na\u{EF}ve".utf8))
    }

    /// Assignment is Unicode 14.0.0's, whatever the toolchain's own tables know.
    @Test func knowsWhatUnicode14Assigned() {
        for assigned: Unicode.Scalar in ["A", "\u{FC}", "\u{1F600}", "\u{E000}", "\u{10FFFD}", "\u{0}"] { #expect(UnicodeNFC.isAssigned(assigned)) }
        for unassigned: Unicode.Scalar in ["\u{378}", "\u{1FAE8}", "\u{16D67}", "\u{10FFFF}", "\u{E0080}"] { #expect(!UnicodeNFC.isAssigned(unassigned)) }
    }

    @Test func isPinnedToUnicode14() {
        #expect(UnicodeNFC.unicodeVersion == "14.0.0")
        #expect(UnicodeNFCTables.unicodeVersion == UnicodeNFC.unicodeVersion)
    }

    // MARK: - Vectors

    @Test func matchesPythonOnEveryVector() throws {
        let path = Self.repositoryRoot + "/Tests/LedgerTests/Fixtures/nfc_vectors.txt"
        let text = try #require(Self.readFile(path), "cannot read \(path)")
        #expect(text.hasPrefix("# NFC test vectors, Unicode \(UnicodeNFC.unicodeVersion),"))

        var checked = 0
        var failures: [String] = []
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let halves = line.split(separator: ";", omittingEmptySubsequences: false)
            guard halves.count == 2, let input = Self.scalarText(halves[0]), let expected = Self.scalarText(halves[1]) else {
                failures.append("unreadable line: \(line)")
                continue
            }
            let output = UnicodeNFC.normalize(input)
            let isNFC = scalars(input) == scalars(expected)
            if scalars(output) != scalars(expected) {
                failures.append("\(line) -> \(scalars(output).map { String($0, radix: 16, uppercase: true) })")
            } else if !UnicodeNFC.isNormalized(expected) || UnicodeNFC.isNormalized(input) != isNFC {
                failures.append("isNormalized wrong: \(line)")
            }
            checked += 1
        }
        #expect(failures.isEmpty, "\(failures.count) of \(checked) vectors fail, first: \(failures.prefix(10))")
        #expect(checked > 4000, "only \(checked) vectors in \(path)")
    }

    // MARK: - Helpers

    /// The repository root: `#filePath` up to its last `/Tests/`.
    private static let repositoryRoot: String = {
        let path = Array(String(#filePath).utf8)
        let marker = Array("/Tests/".utf8)
        var start = path.count - marker.count
        while start >= 0, !path[start..<(start + marker.count)].elementsEqual(marker) { start -= 1 }
        return start >= 0 ? String(decoding: path[..<start], as: UTF8.self) : "."
    }()

    /// The whole file at `path` as UTF-8 text, or nil when it cannot be opened.
    private static func readFile(_ path: String) -> String? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes.append(contentsOf: buffer[..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The text of space-separated hex scalar values, e.g. `0065 0301`; nil when one is not a scalar.
    private static func scalarText(_ field: Substring) -> String? {
        var view = String.UnicodeScalarView()
        for hex in field.split(separator: " ") {
            guard let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value) else { return nil }
            view.append(scalar)
        }
        return String(view)
    }
}
