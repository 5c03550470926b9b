@testable import LedgerCLI
import Testing

// Tables measure cells in terminal columns, and keep id columns whole when fitting a width.

@Suite struct TableWidthTests {
    @Test func wideCharactersTakeTwoColumnsAndMarksNone() {
        #expect(DisplayWidth.of("abc") == 3)
        #expect(DisplayWidth.of("山田太郎") == 8)
        #expect(DisplayWidth.of("김민준") == 6)
        #expect(DisplayWidth.of("ＡＢ") == 4, "fullwidth forms")
        #expect(DisplayWidth.of("😀") == 2)
        #expect(DisplayWidth.of("👩‍💻") == 2, "one emoji sequence")
        #expect(DisplayWidth.of("🇫🇷") == 2, "a flag")
        #expect(DisplayWidth.of("❤️") == 2, "text symbol with emoji presentation")
        #expect(DisplayWidth.of("e\u{301}") == 1, "a combining accent takes no column")
        #expect(DisplayWidth.of("Zoë") == 3)
        #expect(DisplayWidth.of("a\u{200B}b") == 2, "zero-width space")
        #expect(DisplayWidth.prefix("山田太郎", fitting: 5) == "山田")
    }

    @Test func wideNamesStayAligned() {
        let table = Table(headers: ["NAME", "STATUS"], rows: [["山田太郎", "live"], ["Zoë 😀", "live"], ["Bob", "live"]])
        let lines = table.render()
        let statusColumns = lines.map { line in DisplayWidth.of(String(line[...line.lastIndex(of: " ")!])) }
        #expect(Set(statusColumns).count == 1, "\(lines)")
    }

    @Test func cuttingAWideNameStaysWithinItsColumns() {
        let cut = Layout.cut("山田太郎", to: 6)
        #expect(cut == "山田…")
        #expect(DisplayWidth.of(cut) <= 6)
    }

    @Test func idsAreNeverCutAtEightyColumns() {
        let uid = "711f81a0-b631-47a4-8f7e-2b1c0d9e3a55"
        let table = Table(headers: ["UID", "EMAIL", "USERNAME", "STATUS", "VERIFIED", "CREATED"],
                          rows: [[uid, "a-rather-long-address-for-a-table@example.com", "A Person With A Long Name",
                                  "disabled", "no", "2026-11-29T09:00:00.123Z"]])
        let lines = table.render(width: 80)
        for line in lines { #expect(DisplayWidth.of(line) <= 80, "\(line)") }
        #expect(lines[1].hasPrefix(uid + " "), "the uid whole: \(lines)")
        #expect(lines[1].contains("…"), "the email and name are cut instead")
        #expect(!table.isIDColumn(1))
    }

    @Test func streamsAreIDsToo() {
        let stream = "registration-711f81a0-b631-47a4-8f7e-2b1c0d9e3a55"
        let table = Table(headers: ["SEQ", "AT", "TYPE", "STREAM"], rows: [["1", "2026-11-29T09:00:00.123Z", "AccountCreated", stream]])
        let row = table.render(width: 70)[1]
        #expect(row.hasSuffix(" " + stream), "\(row)")
        #expect(DisplayWidth.of(row) == 70, "AT and TYPE give the room")
    }
}
