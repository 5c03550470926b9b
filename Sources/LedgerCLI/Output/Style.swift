// MARK: - Style

/// Terminal colors (ANSI SGR), on only when standard output is a terminal and `NO_COLOR` is unset
/// or empty (no-color.org). When off, every method returns its text unchanged.
struct Style: Sendable {
    /// A color or emphasis.
    enum Tone: String, Sendable {
        /// Headers.
        case bold = "1"
        /// Count lines and other secondary text.
        case dim = "2"
        /// Failures, anomalies, damage.
        case red = "31"
        /// Success.
        case green = "32"
    }

    /// True when escape codes are written.
    let enabled: Bool

    /// No escape codes.
    static let plain = Style(enabled: false)

    /// The style for a process whose standard output is (or is not) a terminal, with `environment`.
    static func forOutput(isTerminal: Bool, environment: [String: String]) -> Style {
        let noColor = environment["NO_COLOR"].map { !$0.isEmpty } ?? false
        return Style(enabled: isTerminal && !noColor)
    }

    /// `text` in `tone` (nil: unchanged).
    func apply(_ tone: Tone?, _ text: String) -> String {
        guard enabled, let tone, !text.isEmpty else { return text }
        return "\u{1B}[\(tone.rawValue)m\(text)\u{1B}[0m"
    }

    /// Bold text.
    func bold(_ text: String) -> String { apply(.bold, text) }
    /// Dim text.
    func dim(_ text: String) -> String { apply(.dim, text) }
    /// Red text.
    func red(_ text: String) -> String { apply(.red, text) }
    /// Green text.
    func green(_ text: String) -> String { apply(.green, text) }
}
