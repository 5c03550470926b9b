// MARK: - Timestamp

/// A UTC instant with millisecond precision, written as RFC 3339 `YYYY-MM-DDTHH:MM:SS.mmmZ`.
public struct Timestamp: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var millis: Int64

    /// The instant `millis` milliseconds after the Unix epoch.
    public init(millis: Int64) { self.millis = millis }

    /// The instants an RFC 3339 text of the log can spell: years 0000 to 9999, with any offset.
    public static let spellable = Timestamp(millis: -62_167_219_200_000 - 86_400_000)...Timestamp(millis: 253_402_300_799_999 + 86_400_000)

    /// This instant moved by `milliseconds`.
    public func adding(milliseconds: Int64) -> Timestamp { Timestamp(millis: millis + milliseconds) }

    /// Orders instants in time.
    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.millis < rhs.millis }

    /// The canonical RFC 3339 text, e.g. `2026-11-29T15:54:00.123Z`.
    public var description: String { rfc3339 }

    /// The canonical RFC 3339 text, e.g. `2026-11-29T15:54:00.123Z`.
    public var rfc3339: String {
        let (days, msOfDay) = millis.floorDivided(by: 86_400_000)
        let (year, month, day) = Self.civil(fromDays: days)
        let hour = msOfDay / 3_600_000, minute = msOfDay / 60_000 % 60
        let second = msOfDay / 1000 % 60, milli = msOfDay % 1000
        guard (0...9999).contains(year) else {
            return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2)).\(pad(milli, 3))Z"
        }
        // The common case, digit by digit (this runs for every time a view prints or digests).
        return String(unsafeUninitializedCapacity: 24) { out in
            writeCanonical(year: year, month: month, day: day, msOfDay: msOfDay, into: out.baseAddress!)
            return 24
        }
    }

    /// Writes the 24 bytes of `rfc3339` at `out` when the year has four digits (0…9999); false otherwise.
    public func writeRFC3339(into out: UnsafeMutablePointer<UInt8>) -> Bool {
        let (days, msOfDay) = millis.floorDivided(by: 86_400_000)
        let (year, month, day) = Self.civil(fromDays: days)
        guard (0...9999).contains(year) else { return false }
        writeCanonical(year: year, month: month, day: day, msOfDay: msOfDay, into: out)
        return true
    }

    private func writeCanonical(year: Int64, month: Int64, day: Int64, msOfDay: Int64, into out: UnsafeMutablePointer<UInt8>) {
        func put(_ value: Int64, _ width: Int, at offset: Int) {
            var value = value
            for k in stride(from: width - 1, through: 0, by: -1) {
                out[offset + k] = UInt8(truncatingIfNeeded: 48 + value % 10)
                value /= 10
            }
        }
        let hour = msOfDay / 3_600_000, minute = msOfDay / 60_000 % 60, second = msOfDay / 1000 % 60, milli = msOfDay % 1000
        put(year, 4, at: 0); out[4] = 0x2D; put(month, 2, at: 5); out[7] = 0x2D; put(day, 2, at: 8)
        out[10] = UInt8(ascii: "T"); put(hour, 2, at: 11); out[13] = 0x3A; put(minute, 2, at: 14); out[16] = 0x3A
        put(second, 2, at: 17); out[19] = UInt8(ascii: "."); put(milli, 3, at: 20); out[23] = UInt8(ascii: "Z")
    }

    // MARK: - Parsing

    /// Parses RFC 3339 (`T` or `t`, 0–9 fraction digits, `Z` or `±hh:mm`); nil when malformed.
    public init?(rfc3339 text: String) {
        let b = Array(text.utf8)
        guard b.count >= 20 else { return nil }
        func num(_ from: Int, _ count: Int) -> Int64? {
            guard from + count <= b.count else { return nil }
            var value: Int64 = 0
            for i in from..<(from + count) {
                guard b[i] >= 0x30, b[i] <= 0x39 else { return nil }
                value = value * 10 + Int64(b[i] - 0x30)
            }
            return value
        }
        guard let year = num(0, 4), b[4] == 0x2D, let month = num(5, 2), b[7] == 0x2D, let day = num(8, 2),
              b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: "t"),
              let hour = num(11, 2), b[13] == 0x3A, let minute = num(14, 2), b[16] == 0x3A, let second = num(17, 2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year),
              hour < 24, minute < 60, second < 60 else { return nil }
        var i = 19
        var fraction: Int64 = 0
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            let start = i
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                if i - start < 3 { fraction = fraction * 10 + Int64(b[i] - 0x30) }
                i += 1
            }
            guard i > start, i - start <= 9 else { return nil }
            for _ in 0..<max(0, 3 - (i - start)) { fraction *= 10 }
        }
        var offsetMinutes: Int64 = 0
        guard i < b.count else { return nil }
        switch b[i] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            i += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard let oh = num(i + 1, 2), i + 3 < b.count, b[i + 3] == 0x3A, let om = num(i + 4, 2), oh < 24, om < 60
            else { return nil }
            offsetMinutes = (oh * 60 + om) * (b[i] == UInt8(ascii: "+") ? 1 : -1)
            i += 6
        default:
            return nil
        }
        guard i == b.count else { return nil }
        let days = Self.days(fromCivil: year, month, day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetMinutes * 60
        self.millis = seconds * 1000 + fraction
    }

    /// True when `text` is exactly the canonical form this type writes.
    public static func isCanonical(_ text: String) -> Bool {
        // `YYYY-MM-DDTHH:MM:SS.mmmZ`: the shape by bytes, then the calendar by parsing.
        var text = text
        let shaped = text.withUTF8 { b -> Bool in
            guard b.count == 24, b[4] == 0x2D, b[7] == 0x2D, b[10] == UInt8(ascii: "T"), b[13] == 0x3A, b[16] == 0x3A,
                  b[19] == UInt8(ascii: "."), b[23] == UInt8(ascii: "Z") else { return false }
            for i in [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 22] where !(0x30...0x39).contains(b[i]) { return false }
            return true
        }
        return shaped && Timestamp(rfc3339: text) != nil
    }

    // MARK: - Calendar (Howard Hinnant's days_from_civil)

    static func days(fromCivil y: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let year = m <= 2 ? y - 1 : y
        let era = (year >= 0 ? year : year - 399) / 400
        let yoe = year - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? yoe + era * 400 + 1 : yoe + era * 400, m, d)
    }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}

// MARK: - Helpers

private func pad(_ value: Int64, _ width: Int) -> String {
    let text = String(value)
    return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
}

extension Int64 {
    /// Floor division with a non-negative remainder.
    func floorDivided(by divisor: Int64) -> (Int64, Int64) {
        let q = self / divisor, r = self % divisor
        return r < 0 ? (q - 1, r + divisor) : (q, r)
    }
}
