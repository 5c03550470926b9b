// MARK: - DisplayWidth

/// How many terminal columns text takes: East Asian Wide and Fullwidth characters and emoji take
/// two, combining marks and other zero-width characters none, every other character one.
enum DisplayWidth {
    /// The columns `text` takes.
    static func of(_ text: String) -> Int {
        text.reduce(0) { $0 + of($1) }
    }

    /// The columns one user-perceived character takes: its emoji presentation (2), else its first
    /// scalar that takes room (a base with its combining marks takes the base's width).
    static func of(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        if scalars.contains(where: { $0.properties.isEmojiPresentation })
            || (scalars.contains("\u{FE0F}") && scalars.contains(where: { $0.properties.isEmoji })) {
            return 2
        }
        for scalar in scalars {
            let width = of(scalar)
            if width > 0 { return width }
        }
        return 0
    }

    /// The longest start of `text` that fits in `width` columns.
    static func prefix(_ text: String, fitting width: Int) -> String {
        var used = 0
        var end = text.startIndex
        for index in text.indices {
            used += of(text[index])
            if used > width { break }
            end = text.index(after: index)
        }
        return String(text[..<end])
    }

    /// The columns one scalar takes on its own.
    private static func of(_ scalar: Unicode.Scalar) -> Int {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: return isWide(scalar.value) ? 2 : 1
        }
    }

    /// True in the ranges of East Asian Wide (W) and Fullwidth (F) characters: Hangul Jamo and
    /// syllables, CJK radicals to Yi, ideographs, fullwidth forms, kana supplements and the
    /// pictographs a terminal draws wide.
    private static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2329...0x232A, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
             0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x18AFF, 0x1B000...0x1B2FF, 0x1F300...0x1F64F,
             0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}
