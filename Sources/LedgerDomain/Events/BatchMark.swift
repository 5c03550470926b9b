// MARK: - BatchMark

/// A line's place in the batch one append wrote, the envelope's `"batch":[index,count]`: line
/// `index` of `count`. Every line of a batch of two lines or more has one; a batch of one line has
/// none (`unmarked`), so logs written before the member existed read as they always did.
///
/// Because each line says how many lines its batch has and which one it is, the last line of a log
/// tells whether the log ends inside a batch (`index < count`): such a batch was cut by a crash
/// before its append was acknowledged, and readers treat its lines as a torn tail.
///
/// Packed in one word (`index << 32 | count`, 0 for `unmarked`) so the replay path compares it with one
/// instruction.
public struct BatchMark: Equatable, Hashable, Sendable, CustomStringConvertible {
    /// `index << 32 | count`; 0 for `unmarked`.
    public let raw: UInt64

    /// The largest `count` (and `index`) a mark may hold.
    public static let maxCount = Int(Int32.max)

    /// No mark: a line that is a batch of its own.
    public static let unmarked = BatchMark(raw: 0)

    private init(raw: UInt64) { self.raw = raw }

    /// Line `index` of a batch of `count` lines; nil unless `2 ≤ count ≤ maxCount` and `1 ≤ index ≤ count`.
    public init?(index: Int, count: Int) {
        guard count >= 2, count <= Self.maxCount, index >= 1, index <= count else { return nil }
        raw = UInt64(index) << 32 | UInt64(count)
    }

    /// True for `unmarked`.
    @inline(__always)
    public var isUnmarked: Bool { raw == 0 }

    /// The line's place in its batch, from 1 (0 for `unmarked`).
    public var index: Int { Int(raw >> 32) }

    /// The number of lines in the batch (0 for `unmarked`).
    public var count: Int { Int(raw & 0xFFFF_FFFF) }

    /// True when a batch is still open after this line: it is marked and not its batch's last line.
    @inline(__always)
    public var leavesBatchOpen: Bool { !isUnmarked && index < count }

    /// The mark the next line of the batch must have (only for a mark that `leavesBatchOpen`).
    public var next: BatchMark { BatchMark(raw: raw &+ (1 << 32)) }

    /// The marks of a batch of `count` lines, in order: none for a batch of one line.
    public static func marks(count: Int) -> [BatchMark] {
        guard count >= 2 else { return Array(repeating: .unmarked, count: max(0, count)) }
        return (1...count).map { BatchMark(index: $0, count: count)! }
    }

    /// The member's value as written, `[index,count]`; `unmarked` for no mark.
    public var description: String { isUnmarked ? "none" : "[\(index),\(count)]" }
}
