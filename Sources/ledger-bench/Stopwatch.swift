import Glibc

// MARK: - Stopwatch

/// Monotonic wall-clock time and the statistics the tables show.
enum Stopwatch {
    /// Seconds on the monotonic clock.
    static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// Runs `body` and returns its wall time in seconds.
    static func time(_ body: () throws -> Void) rethrows -> Double {
        let began = now()
        try body()
        return now() - began
    }

    /// The median of `values` (the mean of the middle two for an even count); 0 when empty.
    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

// MARK: - Format

/// Number formatting for the tables (no Foundation).
enum Format {
    /// `value` with `digits` decimals.
    static func fixed(_ value: Double, _ digits: Int) -> String {
        guard value.isFinite else { return "–" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let rounded = (abs(value) * scale).rounded()
        let whole = Int(rounded / scale), fraction = Int(rounded) - whole * Int(scale)
        let sign = value < 0 && rounded != 0 ? "-" : ""
        guard digits > 0 else { return "\(sign)\(whole)" }
        let text = String(fraction)
        return "\(sign)\(whole).\(String(repeating: "0", count: digits - text.count))\(text)"
    }

    /// Seconds, with milliseconds below 10 s.
    static func seconds(_ value: Double) -> String { value < 10 ? "\(fixed(value, 3)) s" : "\(fixed(value, 2)) s" }

    /// An integer with thousands separators.
    static func grouped(_ value: Double) -> String {
        let digits = Array(String(Int(value.rounded())))
        var out = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0 && (digits.count - offset) % 3 == 0 && digits[offset - 1] != "-" { out.append(",") }
            out.append(digit)
        }
        return out
    }

    /// `0.153` as `15.3%`.
    static func percent(_ share: Double) -> String { "\(fixed(share * 100, 1))%" }

    /// KiB as MiB.
    static func mebibytes(kibibytes: Int) -> String { "\(fixed(Double(kibibytes) / 1024, 1)) MiB" }
}
