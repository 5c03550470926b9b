// MARK: - ErasedText

/// How a personal member whose key is gone reads and prints: readers give it as the empty string
/// (`DataVersions`: no personal member is otherwise empty), JSON shows it as `null` with
/// `"erased": true` on its row, tables as `[erased]`.
public enum ErasedText {
    /// What tables print in place of an erased member.
    public static let shown = "[erased]"

    /// How an erased personal member reads.
    public static let erased = ""

    /// True when `text`, a personal member as read, is erased.
    public static func isErased(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { isErased(utf8: $0) }
    }

    /// `isErased` of a text's UTF-8 bytes (as a view's `TextArena` keeps it).
    static func isErased(utf8: UnsafeBufferPointer<UInt8>) -> Bool { utf8.isEmpty }

    /// `text` for a table: itself, or `[erased]`.
    public static func forTable(_ text: String) -> String { text.isEmpty ? shown : text }

    /// `text` as a JSON value: a string, or `null` when erased.
    public static func json(_ text: String) -> JSONValue { text.isEmpty ? .null : .string(text) }
}
