import LedgerDomain

// MARK: - People

/// Display names, emails and refusal texts for generated registrations: varied, human-looking,
/// some non-ASCII or with characters JSON must escape, so the replay path meets what real logs hold.
enum People {
    static let firstNames = [
        "Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy", "Mallory", "Niaj",
        "Olivia", "Peggy", "Rupert", "Sybil", "Trent", "Victor", "Walter", "Yasmin", "Zoë", "Ångström", "José",
        "Ana María", "François", "Søren", "Łukasz", "Ngozi", "Hiroshi", "Mei", "Priya", "Oluwaseun", "Björk",
        "Dmitri", "Fatima", "Giulia", "Hannah", "Ingrid", "Kwame", "Leilani", "Mateo", "Nadia", "Rafael",
    ]
    static let lastNames = [
        "Liddell", "Smith", "Johnson", "Williams", "Brown", "García", "Müller", "Rossi", "Dubois", "Kowalski",
        "Nakamura", "Okafor", "Andersson", "Fernández", "O'Brien", "van der Berg", "Nguyen", "Papadopoulos",
        "Schröder", "Ivanova", "Haddad", "Mensah", "Costa", "Lindqvist", "Tanaka", "de la Cruz", "Øster",
    ]
    static let domains = [
        "example.com", "example.org", "mail.example.net", "corp.example.co.uk", "students.example.edu",
        "fastmail.example", "post.example.de", "inbox.example.fr",
    ]
    static let nicknames = ["", "", "", "", " (she/her)", " (he/him)", " \"Ace\"", " \\o/", " — admin", " 🚀"]

    /// A display name: first and last name, sometimes a middle initial or a nickname.
    static func userName(_ rng: inout SplitMix64) -> String {
        let first = rng.pick(firstNames), last = rng.pick(lastNames)
        let middle = rng.chance(perMille: 300) ? " \(Character(Unicode.Scalar(UInt8(65 + rng.below(26)))))." : ""
        return "\(first)\(middle) \(last)\(rng.pick(nicknames))"
    }

    /// A normalized email, unique through `serial`.
    static func email(for userName: String, serial: Int, _ rng: inout SplitMix64) -> String {
        let local = String(userName.unicodeScalars.prefix(while: { $0 != " " }).filter { $0.isASCII && $0.properties.isAlphabetic })
        let stem = local.isEmpty ? "user" : local.lowercasedASCII
        return "\(stem).\(serial)@\(rng.pick(domains))"
    }

    /// An email nobody registered (for `unknown-email` sign-ins).
    static func strangerEmail(_ rng: inout SplitMix64) -> String {
        "\(rng.pick(["admin", "test", "info", "root", "support", "j.doe", "guest"]))\(rng.below(100_000))@\(rng.pick(domains))"
    }

    /// A validation refusal as `RegistrationValidator` words it: reason, message and the email given (if any).
    static func validationRefusal(_ rng: inout SplitMix64, serial: Int) -> (reason: String, message: String, email: String?) {
        let email = "applicant.\(serial)@\(rng.pick(domains))"
        switch rng.below(8) {
        case 0, 1:
            return ("invalid-email", "the email must look like local@domain.tld (a top-level domain of 2+ letters)",
                    rng.pick(["applicant.\(serial)@example", "applicant.\(serial).example.com", "applicant \(serial)@example.com", "@example.com"]))
        case 2, 3: return ("password-too-short", "the password must have at least 8 characters", email)
        case 4: return ("missing-username", "a username is required", email)
        case 5: return ("missing-email", "an email is required", nil)
        case 6:
            let bytes = rng.int(in: 2_097_153...9_000_000)
            return ("image-too-large", "the image has \(bytes) bytes; the limit is 2097152", email)
        default:
            return ("invalid-image", "the image is not a complete JPEG or PNG (checked by its bytes, not its name)", email)
        }
    }
}
