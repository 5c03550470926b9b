#if canImport(LedgerDomain)
import LedgerDomain
#endif

// MARK: - ImageTarget

/// Feeds bytes to `ImageInspector.contentType(of:)` and `RegistrationValidator.validate` and checks the
/// answers against an independent reading of the rules: a PNG starts with its signature, has `IHDR` as its
/// first chunk and ends with an `IEND` chunk; a JPEG starts `FF D8 FF` and ends with its own `FF D9`.
struct ImageTarget {
    /// The demo sample's 2x2 PNG (`Events/samples/demo/profile_image`).
    static let png: [UInt8] = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
        0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x08, 0x02, 0x00, 0x00, 0x00, 0xFD, 0xD4, 0x9A,
        0x73, 0x00, 0x00, 0x00, 0x19, 0x49, 0x44, 0x41, 0x54, 0x78, 0x01, 0x01, 0x0E, 0x00, 0xF1, 0xFF,
        0x00, 0xFF, 0x00, 0x00, 0x00, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0x1F, 0xEE,
        0x05, 0xFB, 0xDE, 0xDD, 0xEC, 0x2B, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42,
        0x60, 0x82,
    ]
    /// A minimal JFIF JPEG: SOI, an APP0 segment, EOI.
    static let jpeg: [UInt8] = [
        0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01,
        0x00, 0x01, 0x00, 0x00, 0xFF, 0xD9,
    ]
    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    static let iend: [UInt8] = [0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]

    /// Outcome counters.
    var accepted: [String: Int] = [:]
    /// Validation outcomes by reason (`ok` for success).
    var validations: [String: Int] = [:]

    /// The reference reading of the rules, written apart from `ImageInspector`.
    static func reference(_ b: [UInt8]) -> ImageContentType? {
        let n = b.count
        // SOI (FF D8), the first byte of the next marker (FF), and a final EOI (FF D9) that is not part of them.
        if n >= 5, b[0] == 0xFF, b[1] == 0xD8, b[2] == 0xFF, b[n - 2] == 0xFF, b[n - 1] == 0xD9 { return .jpeg }
        // Signature (8), the IHDR chunk (4 length + 4 type + 13 data + 4 CRC), the IEND chunk (4 + 4 + 0 + 4).
        if n >= 8 + 25 + 12, b.starts(with: pngSignature), b[12..<16].elementsEqual("IHDR".utf8),
           b[(n - 8)..<(n - 4)].elementsEqual("IEND".utf8) { return .png }
        return nil
    }

    // MARK: Running one input

    /// Checks one image (and one registration around it); returns the invariants it broke.
    mutating func run(_ bytes: [UInt8], _ rng: inout SplitMix64) -> [String] {
        var failures: [String] = []
        let found = ImageInspector.contentType(of: bytes)
        accepted[found?.rawValue ?? "none", default: 0] += 1
        let expected = Self.reference(bytes)
        if found != expected {
            failures.append("contentType is \(found?.rawValue ?? "nil"), the rules say \(expected?.rawValue ?? "nil")")
        }
        switch found {
        case .png?:
            if !bytes.starts(with: Self.pngSignature) || !bytes[(bytes.count - 8)..<(bytes.count - 4)].elementsEqual("IEND".utf8) {
                failures.append("accepted as PNG without the signature or the final IEND")
            }
        case .jpeg?:
            if bytes.count < 5 || !bytes.starts(with: [0xFF, 0xD8, 0xFF]) || !bytes.suffix(2).elementsEqual([0xFF, 0xD9]) {
                failures.append("accepted as JPEG without FF D8 FF … FF D9")
            }
        case nil: break
        }
        validate(bytes, &rng, &failures)
        return failures
    }

    static let reasons: Set<String> = [
        "missing-email", "missing-username", "missing-password", "invalid-email", "password-too-short", "password-too-long", "invalid-password", "invalid-username",
        "image-too-large", "invalid-image", "invalid-image-path", "image-unreadable",
    ]

    /// `RegistrationValidator.validate` around the image: with well-formed fields (usually) the outcome is
    /// decided by the image and the size limit alone.
    private mutating func validate(_ bytes: [UInt8], _ rng: inout SplitMix64, _ failures: inout [String]) {
        let plain = rng.chance(80)
        let email = plain ? "Fuzz.User@Example.com" : rng.pick(Self.emails)
        let userName = plain ? "Fuzz User" : rng.pick(Self.userNames)
        let password = plain ? "long enough password" : rng.pick(["", "seven77", "eight888", "ünïcödé!", "\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}"])
        let limit = rng.pick([ImageInspector.defaultMaxBytes, bytes.count, max(0, bytes.count - 1), rng.size(upTo: 4096)])
        var input = RegistrationInput(email: email, userName: userName, password: password, image: rng.chance(95) ? bytes : nil, maxImageBytes: limit)
        let refusal = rng.chance(5) ? RefusedRegistration(reason: rng.pick(["invalid-image-path", "image-unreadable"]), message: "from the shell") : nil
        input.imageRefusal = refusal
        switch RegistrationValidator.validate(input) {
        case .success(let valid):
            validations["ok", default: 0] += 1
            if !RegistrationValidator.isValidEmail(valid.email) { failures.append("accepted the email \(valid.email)") }
            if valid.password.count < 8 { failures.append("accepted a password of \(valid.password.count) characters") }
            if valid.userName.isEmpty || valid.userName.count > 64 { failures.append("accepted a username of \(valid.userName.count) characters") }
            if refusal != nil { failures.append("accepted a registration whose image the shell refused") }
            if (valid.image == nil) != (input.image == nil) { failures.append("the image was dropped or invented") }
            if let image = valid.image {
                if image.bytes != bytes { failures.append("the accepted image's bytes changed") }
                if image.bytes.count > limit { failures.append("accepted \(image.bytes.count) bytes over the limit \(limit)") }
                if image.contentType != Self.reference(bytes) { failures.append("accepted an image the rules refuse") }
            }
        case .failure(let refused):
            validations[refused.reason, default: 0] += 1
            if !Self.reasons.contains(refused.reason) { failures.append("unknown refusal reason \(refused.reason)") }
            guard plain else { return }
            let expected: String? =
                if let refusal { refusal.reason }
                else if input.image == nil { nil }
                else if bytes.count > limit { "image-too-large" }
                else if Self.reference(bytes) == nil { "invalid-image" }
                else { nil }
            if refused.reason != expected { failures.append("refused with \(refused.reason), expected \(expected ?? "success")") }
            if refused.email != "fuzz.user@example.com" { failures.append("the refusal carries email \(refused.email ?? "nil")") }
        }
    }

    static let emails = [
        "", " ", "a@b", "a@b.c", "a@b.co", " padded@example.com\t", "UPPER@EXAMPLE.COM", "two@@example.com", "a b@example.com",
        "x@-bad.com", "x@bad-.com", "x@exa_mple.com", "x@example.c0m", "é@example.com", "x@éxample.com", "\u{0}@example.com",
        String(repeating: "l", count: 65) + "@example.com", "x@" + String(repeating: "d.", count: 130) + "com", "\"q\"@example.com",
        "x@example.com\u{301}", "x@ex\u{0}ample.com", "\u{FEFF}x@example.com",
    ]
    static let userNames = [
        "", "a", String(repeating: "u", count: 64), String(repeating: "u", count: 65), "bell\u{7}", "nul\u{0}", "e\u{301}",
        String(repeating: "e\u{301}", count: 64), String(repeating: "😀", count: 65), "\u{202E}rtl", "line\nbreak", "\u{85}next",
    ]

    // MARK: Generating inputs

    /// One image-like input, drawn from `rng`.
    func generate(_ rng: inout SplitMix64) -> [UInt8] {
        let base = rng.chance(50) ? Self.png : Self.jpeg
        let other = rng.chance(50) ? Self.png : Self.jpeg
        switch rng.below(100) {
        case 0..<40:  // mutations of a valid image
            return Mutator.mutate(base, count: 1 + rng.size(upTo: 6), other: other, &rng)
        case 40..<55:  // cut short, or cut at both ends
            let cut = rng.below(base.count + 1)
            return rng.chance(70) ? Array(base.prefix(cut)) : Array(base[rng.below(cut + 1)..<cut])
        case 55..<65:  // random bytes
            return rng.bytes(rng.size(upTo: 96))
        case 65..<85:  // the right head and tail around anything, at the length limits
            let middle = rng.bytes(rng.size(upTo: 64))
            switch rng.below(4) {
            case 0: return [0xFF, 0xD8, 0xFF] + middle + [0xFF, 0xD9]
            case 1: return Array([0xFF, 0xD8, 0xFF, 0xD9].prefix(rng.int(in: 0...4))) + (rng.chance(50) ? [0xFF, 0xD9] : [])
            case 2: return Array(Self.png.prefix(16)) + middle + Self.iend
            default:  // a PNG of exactly 44, 45 or 46 bytes
                let length = rng.int(in: 40...50)
                var out = Array(Self.png.prefix(16))
                while out.count < length - Self.iend.count { out.append(rng.byte()) }
                return Array((out + Self.iend).suffix(length))
            }
        case 85..<97:  // both formats spliced, or an image followed by trailing bytes
            return rng.chance(50) ? base + other : base + rng.bytes(1 + rng.size(upTo: 16))
        default:  // around the 2 MiB limit
            let size = ImageInspector.defaultMaxBytes + rng.int(in: -2...2)
            var out = base
            out.insert(contentsOf: [UInt8](repeating: 0, count: max(0, size - base.count)), at: base.count - (base == Self.png ? 12 : 2))
            return out
        }
    }
}
