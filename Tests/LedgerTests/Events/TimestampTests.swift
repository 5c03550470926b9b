import LedgerDomain
import Testing

/// RFC 3339 parsing and the canonical `YYYY-MM-DDTHH:MM:SS.mmmZ` form.
struct TimestampTests {
    private func millis(_ text: String) -> Int64? { Timestamp(rfc3339: text)?.millis }

    @Test func epochAndKnownInstants() {
        #expect(millis("1970-01-01T00:00:00.000Z") == 0)
        #expect(millis("1970-01-01T00:00:00.001Z") == 1)
        #expect(millis("1969-12-31T23:59:59.999Z") == -1)
        #expect(millis("2000-01-01T00:00:00Z") == 946_684_800_000)
        #expect(millis("2026-11-29T15:54:00.123Z") == 1_795_967_640_123)
        #expect(millis("2038-01-19T03:14:08Z") == 2_147_483_648_000)
        #expect(Timestamp(millis: 0).rfc3339 == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp(millis: -1).rfc3339 == "1969-12-31T23:59:59.999Z")
        #expect(Timestamp(millis: 1_795_967_640_123).description == "2026-11-29T15:54:00.123Z")
    }

    @Test func leapYears() {
        #expect(Timestamp(rfc3339: "2024-02-29T12:00:00Z") != nil)
        #expect(Timestamp(rfc3339: "2000-02-29T12:00:00Z") != nil, "divisible by 400")
        #expect(Timestamp(rfc3339: "1900-02-29T12:00:00Z") == nil, "divisible by 100, not 400")
        #expect(Timestamp(rfc3339: "2026-02-29T12:00:00Z") == nil)
        #expect(Timestamp(rfc3339: "2100-02-29T00:00:00Z") == nil)
        #expect(millis("2024-03-01T00:00:00Z")! - millis("2024-02-28T00:00:00Z")! == 2 * 86_400_000)
        #expect(millis("2026-03-01T00:00:00Z")! - millis("2026-02-28T00:00:00Z")! == 86_400_000)
        #expect(Timestamp(millis: millis("2024-02-29T23:59:59.999Z")! + 1).rfc3339 == "2024-03-01T00:00:00.000Z")
    }

    @Test func offsetsAreConvertedToUTC() {
        #expect(millis("2026-11-29T16:54:00.123+01:00") == millis("2026-11-29T15:54:00.123Z"))
        #expect(millis("2026-11-29T10:24:00.123-05:30") == millis("2026-11-29T15:54:00.123Z"))
        #expect(millis("2026-11-29T15:54:00.123+00:00") == millis("2026-11-29T15:54:00.123Z"))
        #expect(Timestamp(rfc3339: "2026-01-01T00:30:00+01:00")?.rfc3339 == "2025-12-31T23:30:00.000Z", "crosses a year")
        #expect(Timestamp(rfc3339: "2026-11-29t15:54:00z") != nil, "lowercase t and z are RFC 3339")
    }

    @Test func fractions() {
        #expect(millis("2026-11-29T15:54:00.1Z")! % 1000 == 100)
        #expect(millis("2026-11-29T15:54:00.12Z")! % 1000 == 120)
        #expect(millis("2026-11-29T15:54:00.123456789Z")! % 1000 == 123, "digits past milliseconds are dropped")
        #expect(millis("2026-11-29T15:54:00.9999Z")! % 1000 == 999, "truncated, not rounded")
        #expect(Timestamp(rfc3339: "2026-11-29T15:54:00.1234567890Z") == nil, "at most 9 digits")
        #expect(Timestamp(rfc3339: "2026-11-29T15:54:00.Z") == nil)
    }

    @Test func canonicalForm() {
        #expect(Timestamp.isCanonical("2026-11-29T15:54:00.123Z"))
        #expect(Timestamp.isCanonical("0001-01-01T00:00:00.000Z"))
        #expect(Timestamp.isCanonical("9999-12-31T23:59:59.999Z"))
        for text in ["2026-11-29T15:54:00Z", "2026-11-29T15:54:00.12Z", "2026-11-29T15:54:00.1230Z", "2026-11-29T15:54:00.123+00:00",
                     "2026-11-29t15:54:00.123Z", "2026-11-29T15:54:00.123z", "2026-11-29T16:54:00.123+01:00", "garbage"] {
            #expect(!Timestamp.isCanonical(text), "\(text)")
        }
        // Every instant formats to a canonical text that parses back to it.
        let random = SeededRandom(seed: 9)
        for _ in 0..<2000 {
            let stamp = Timestamp(millis: Int64(random.next(253_402_300_800_000)))  // 1970 ... 9999
            #expect(Timestamp(rfc3339: stamp.rfc3339) == stamp)
            #expect(Timestamp.isCanonical(stamp.rfc3339))
        }
    }

    @Test(arguments: ["", "2026-11-29", "2026-11-29T15:54:00", "2026-11-29 15:54:00Z", "2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z",
                      "2026-11-00T00:00:00Z", "2026-11-31T00:00:00Z", "2026-04-31T00:00:00Z", "2026-11-29T24:00:00Z", "2026-11-29T23:60:00Z",
                      "2026-11-29T23:59:60Z", "2026-11-29T15:54:00.123", "2026-11-29T15:54:00.123+0100", "2026-11-29T15:54:00.123+24:00",
                      "2026-11-29T15:54:00.123+01:60", "2026-11-29T15:54:00.123Zx", "+2026-11-29T15:54:00Z", "26-11-29T15:54:00.000Z",
                      "2026/11/29T15:54:00.000Z", "2026-1a-29T15:54:00.000Z", "2026-11-29T15:54:00.-12Z", "２０２６-11-29T15:54:00Z"])
    func invalidDatesAreRejected(text: String) {
        #expect(Timestamp(rfc3339: text) == nil)
    }

    @Test func orderingAndArithmetic() {
        let a = Timestamp(millis: 1000), b = a.adding(milliseconds: 1)
        #expect(a < b)
        #expect(b.millis == 1001)
        #expect(max(a, b) == b)
    }
}
