import LedgerDomain
import Testing

/// `EmailRule`: what it accepts, what it refuses and what it says, and the normalization.
@Suite struct EmailRuleTests {
    @Test(arguments: ["user@example.com", "user@example.xn--p1ai", "test@xn--hxajbheg2az3al.xn--jxalpdlp", "first.last@example.com",
                      "o'brien+tag@sub.example.co.uk", "a!#$%&'*+-/=?^_`{|}~b@example.org", "x@xn--mller-kva.de"])
    func accepts(_ email: String) {
        #expect(EmailRule.problem(email) == nil, "\(email): \(EmailRule.problem(email) ?? "")")
    }

    @Test(arguments: [(".test@example.com", "no dot first"), ("test.@example.com", "no dot first, last"), ("first..last@example.com", "twice in a row"),
                      ("a\"b@example.com", "joined by single dots"), ("a(b)@example.com", "joined by single dots"),
                      ("user@müller.de", "punycode"), ("jörg@example.com", "must be ASCII"), ("user@example.xn--", "domain labels"),
                      ("user@example.c", "top-level domain"), ("user@example.123", "top-level domain"), ("a@b", "top-level domain"),
                      ("not-an-email", "one @"), ("a@@example.com", "one @"), ("user@-x.com", "domain labels")])
    func refuses(_ email: String, saying words: String) {
        let problem = EmailRule.problem(email)
        #expect(problem?.contains(words) == true, "\(email): \(problem ?? "accepted")")
    }

    @Test func theLengthLimits() {
        // 64 + 1 + 63 + 1 + 63 + 1 + 57 + 4 = 254 characters.
        let domain = String(repeating: "d", count: 63) + "." + String(repeating: "e", count: 63) + "." + String(repeating: "f", count: 57) + ".com"
        let at254 = String(repeating: "l", count: 64) + "@" + domain
        #expect(at254.count == 254 && EmailRule.problem(at254) == nil)
        #expect(EmailRule.problem("l" + at254)?.contains("at most 254") == true)
        #expect(EmailRule.problem(String(repeating: "l", count: 65) + "@example.com")?.contains("at most 64") == true)
    }

    @Test func surroundingSpacesAreTrimmedAndLettersLowercased() {
        #expect(EmailRule.normalized("  Alice@Example.COM\t") == "alice@example.com")
        #expect(EmailRule.normalized("a b@example.com") == "a b@example.com")  // inner spaces stay, and are refused
        #expect(EmailRule.problem(EmailRule.normalized("a b@example.com")) != nil)
    }
}
