// MARK: - Canonical bytes

extension Timestamp {
    /// Reads `YYYY-MM-DDTHH:MM:SS.mmmZ` (exactly 24 bytes, a real calendar date) in place: the value
    /// `Timestamp(rfc3339:)` gives for the text when `isCanonical` accepts it, and nil exactly when it does not.
    public init?(canonicalBytes b: UnsafeBufferPointer<UInt8>) {
        guard b.count == 24, b[4] == 0x2D, b[7] == 0x2D, b[10] == UInt8(ascii: "T"), b[13] == 0x3A, b[16] == 0x3A,
              b[19] == UInt8(ascii: "."), b[23] == UInt8(ascii: "Z") else { return nil }
        @inline(__always) func digits(_ from: Int, _ count: Int) -> Int64? {
            var value: Int64 = 0
            for i in from..<(from + count) {
                let d = b[i] &- 0x30
                guard d < 10 else { return nil }
                value = value * 10 + Int64(d)
            }
            return value
        }
        guard let year = digits(0, 4), let month = digits(5, 2), let day = digits(8, 2), let hour = digits(11, 2),
              let minute = digits(14, 2), let second = digits(17, 2), let milli = digits(20, 3),
              (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year),
              hour < 24, minute < 60, second < 60 else { return nil }
        let days = Self.days(fromCivil: year, month, day)
        self.init(millis: (days * 86_400 + hour * 3600 + minute * 60 + second) * 1000 + milli)
    }
}
