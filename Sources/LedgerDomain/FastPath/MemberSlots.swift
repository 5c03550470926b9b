// MARK: - MemberSlots

/// The members of a flat `data` object, located in place: for each member its payload's schema
/// names, where its value is and what JSON kind it is. `scan` accepts only what `JSONReader` accepts (and less: no
/// whitespace, no nested values, no unknown or escaped names, no fractions), so a line it gives
/// up on goes to the generic reader for the verdict. No allocation unless a string has escapes.
struct MemberSlots {
    /// A value's kind.
    enum Kind: UInt8 {
        case absent, string, escapedString, int, trueValue, falseValue, null
        /// An encrypted member object (data version 2), not opened yet.
        case sealed
        /// An encrypted member opened to its text (`opened`).
        case opened
        /// An encrypted member whose key is gone: read as a `null` a personal member may be.
        case erased
        /// An encrypted member the reader does not read (`PersonalDataOpener.opens`): its form
        /// checked, left sealed, read as no value.
        case unread
    }

    /// Where a member's value is: for strings, the bytes between the quotes.
    struct Slot {
        var start: Int32 = 0
        var end: Int32 = 0
        var kind = Kind.absent
        /// For an encrypted member: where its nonce's and its ciphertext's Base64 start.
        var nonce: Int32 = 0
        var ciphertext: Int32 = 0
    }

    /// The most members a payload may declare.
    static let capacity = 8

    /// What the slots hold, where the line's reading keeps it (`withEmpty`): the slots are a
    /// pointer to it, so lending them to a call or a payload's `viewFact` never copies its 288
    /// bytes (a value this size was copied into each call, and moving it copied it once more).
    struct Storage {
        /// Slot `i` holds the member that rule `i` of the payload's schema names.
        var slots = InlineArray<8, Slot>(repeating: Slot())
        /// The text of each `.opened` member.
        var texts = InlineArray<8, String?>(repeating: nil)
        /// Member `i`'s value once read as a UUID (bit `i` of `uuids`) or a time (bit `i` of
        /// `times`, its milliseconds in `high`): checking a line reads it, its view fact reads it
        /// again, and a version 2 line's owner a third time.
        var values = InlineArray<8, UUIDBits>(repeating: .zero)
        var uuids: UInt8 = 0
        var times: UInt8 = 0
    }

    private let storage: UnsafeMutablePointer<Storage>

    private init(_ storage: UnsafeMutablePointer<Storage>) { self.storage = storage }

    /// `body` of empty slots that live for the call.
    @inline(__always)
    static func withEmpty<T>(_ body: (inout MemberSlots) -> T) -> T {
        withUnsafeTemporaryAllocation(of: Storage.self, capacity: 1) { buffer in
            let storage = buffer.baseAddress!
            storage.initialize(to: Storage())
            defer { storage.deinitialize(count: 1) }
            var slots = MemberSlots(storage)
            return body(&slots)
        }
    }

    /// The slot of member `index`.
    subscript(index: Int) -> Slot {
        @inline(__always) get { storage.pointee.slots[index] }
    }

    // MARK: - Scan

    /// Locates the members of the object starting at `bytes[from]`, each in the slot of its rule in
    /// `rules`; returns the index after its `}`, or nil for a member `rules` does not name.
    mutating func scan(_ bytes: UnsafeBufferPointer<UInt8>, from: Int, rules: UnsafeBufferPointer<MemberRule>) -> Int? {
        let n = bytes.count
        guard n < Int(Int32.max) else { return nil }
        var i = from
        guard i < n, bytes[i] == UInt8(ascii: "{") else { return nil }
        i += 1
        guard i < n else { return nil }
        if bytes[i] == UInt8(ascii: "}") { return i + 1 }
        while true {
            // The name: plain printable ASCII.
            guard i < n, bytes[i] == UInt8(ascii: "\"") else { return nil }
            let nameStart = i + 1
            i = nameStart
            while i < n, bytes[i] != UInt8(ascii: "\"") {
                guard bytes[i] > 0x20, bytes[i] < 0x7F, bytes[i] != UInt8(ascii: "\\") else { return nil }
                i += 1
            }
            guard i < n, let key = Self.find(UnsafeBufferPointer(rebasing: bytes[nameStart..<i]), in: rules),
                  storage.pointee.slots[key].kind == .absent else { return nil }
            i += 1
            guard i < n, bytes[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            guard i < n else { return nil }
            var slot = Slot()
            switch bytes[i] {
            case UInt8(ascii: "\""):
                guard let (kind, end) = Self.string(bytes, quote: i) else { return nil }
                slot = Slot(start: Int32(i + 1), end: Int32(end - 1), kind: kind)
                i = end
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = i
                if bytes[i] == UInt8(ascii: "0") {
                    i += 1
                } else {
                    while i < n, bytes[i] &- UInt8(ascii: "0") < 10 { i += 1 }
                }
                guard i - start <= 18, i < n, bytes[i] != UInt8(ascii: "."), bytes[i] | 0x20 != UInt8(ascii: "e"),
                      bytes[i] &- UInt8(ascii: "0") >= 10 else { return nil }
                slot = Slot(start: Int32(start), end: Int32(i), kind: .int)
            case UInt8(ascii: "t"):
                guard i + 4 <= n, equal(bytes.baseAddress! + i, "true") else { return nil }
                slot.kind = .trueValue; i += 4
            case UInt8(ascii: "f"):
                guard i + 5 <= n, equal(bytes.baseAddress! + i, "false") else { return nil }
                slot.kind = .falseValue; i += 5
            case UInt8(ascii: "n"):
                guard i + 4 <= n, equal(bytes.baseAddress! + i, "null") else { return nil }
                slot.kind = .null; i += 4
            case UInt8(ascii: "{"):
                // An encrypted member, spelled as ledger writes it (anything else: the full decoder).
                guard let (end, nonce, ciphertext) = Self.sealedObject(bytes, at: i) else { return nil }
                slot = Slot(start: Int32(i), end: Int32(end), kind: .sealed, nonce: Int32(nonce), ciphertext: Int32(ciphertext))
                i = end
            default:
                return nil
            }
            storage.pointee.slots[key] = slot
            guard i < n else { return nil }
            if bytes[i] == UInt8(ascii: "}") { return i + 1 }
            guard bytes[i] == UInt8(ascii: ",") else { return nil }
            i += 1
        }
    }

    /// The position of the rule named `name`, if any.
    @inline(__always)
    private static func find(_ name: UnsafeBufferPointer<UInt8>, in rules: UnsafeBufferPointer<MemberRule>) -> Int? {
        let key = MemberRule.nameKey(name)
        for index in rules.indices where rules[index].nameKey == key {
            if sameBytes(rules[index].nameBytes, name) { return index }
        }
        return nil
    }

    /// The string whose opening quote is at `quote`: its kind and the index after its closing quote,
    /// or nil when `JSONReader` would refuse it (control characters, bad escapes, invalid UTF-8).
    private static func string(_ bytes: UnsafeBufferPointer<UInt8>, quote: Int) -> (Kind, Int)? {
        var i = quote + 1
        var ascii = true
        let raw = UnsafeRawPointer(bytes.baseAddress!)
        while i < bytes.count {
            // Eight plain bytes (printable ASCII other than a quote or a backslash) at a time.
            if i + 8 <= bytes.count, !needsLook(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) {
                i += 8
                continue
            }
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") {
                if !ascii, String(validating: UnsafeBufferPointer(rebasing: bytes[(quote + 1)..<i]), as: UTF8.self) == nil { return nil }
                return (.string, i + 1)
            }
            if byte == UInt8(ascii: "\\") {
                // Escapes are rare: the reader checks and decodes this one string.
                guard let (value, end) = try? JSONReader.parseValue(in: bytes, at: quote, depth: 1), value.stringValue != nil else { return nil }
                return (.escapedString, end)
            }
            if byte < 0x20 { return nil }
            if byte >= 0x80 { ascii = false }
            i += 1
        }
        return nil
    }

    /// True when one of the eight bytes of `word` is a quote, a backslash, a control character or
    /// not ASCII (the exact "has a byte" tests of Bit Twiddling Hacks: no false negatives).
    @inline(__always)
    static func needsLook(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* 0x22), backslashes = word ^ (ones &* 0x5C)
        let zeroQuote = (quotes &- ones) & ~quotes & highs
        let zeroBackslash = (backslashes &- ones) & ~backslashes & highs
        let control = (word &- ones &* 0x20) & ~word & highs
        return (zeroQuote | zeroBackslash | control | (word & highs)) != 0
    }

    /// The encrypted member `{"subject":"…","nonce":"…","ciphertext":"…"}` at `start`, spelled as
    /// ledger writes it: a subject of printable ASCII without a quote or a backslash, then nonce
    /// and ciphertext in canonical Base64 (`Base64.canonicalEnd`), each found and checked in one
    /// pass. The index after its `}`, and where the nonce's and the ciphertext's text start; nil for
    /// anything else (the full decoder then gives the verdict).
    private static func sealedObject(_ bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> (end: Int, nonce: Int, ciphertext: Int)? {
        let base = bytes.baseAddress!
        var i = start
        guard i + 12 <= bytes.count, equal(base + i, #"{"subject":""#) else { return nil }
        i += 12
        let subjectStart = i
        let raw = UnsafeRawPointer(base)
        while true {
            // Eight plain bytes (printable ASCII other than a quote or a backslash) at a time.
            if i + 8 <= bytes.count {
                let word = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                if !needsLook(word), !hasSpaceOrDelete(word) { i += 8; continue }
            }
            guard i < bytes.count, bytes[i] != UInt8(ascii: "\\"), bytes[i] > 0x20, bytes[i] < 0x7F else { return nil }
            if bytes[i] == UInt8(ascii: "\"") { break }
            i += 1
        }
        guard i > subjectStart, i + 11 <= bytes.count, equal(base + i, #"","nonce":""#) else { return nil }
        let nonce = i + 11
        guard let nonceEnd = Base64.canonicalEnd(in: bytes, from: nonce),
              nonceEnd + 16 <= bytes.count, equal(base + nonceEnd, #"","ciphertext":""#) else { return nil }
        let ciphertext = nonceEnd + 16
        guard let end = Base64.canonicalEnd(in: bytes, from: ciphertext),
              end + 2 <= bytes.count, bytes[end] == UInt8(ascii: "\""), bytes[end + 1] == UInt8(ascii: "}") else { return nil }
        return (end + 2, nonce, ciphertext)
    }

    /// True when one of the eight bytes of `word` is a space or DEL (the "has a byte" test).
    @inline(__always)
    private static func hasSpaceOrDelete(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let spaces = word ^ (ones &* 0x20), deletes = word ^ (ones &* 0x7F)
        return ((spaces &- ones) & ~spaces & highs) | ((deletes &- ones) & ~deletes & highs) != 0
    }

    /// Opens the encrypted members of a data version 2 line of catalogue entry `entry` (event
    /// `eventID`) with `opener`, as `DataVersions.upcast` does on the full path: each must be a
    /// personal member of the type, a well-formed `EncryptedMember` of the event's own account when
    /// the type names one; a personal member in the clear, or an encrypted one that is not personal,
    /// gives up (false: the full decoder names the problem). A member whose key is gone reads as
    /// erased; one the opener does not read (`PersonalDataOpener.opens`) is checked the same and
    /// left sealed.
    mutating func open(_ entry: InPlaceCatalogue.Entry, eventID: UUIDBits, in line: UnsafeBufferPointer<UInt8>,
                       opener: any PersonalDataOpener) -> Bool {
        guard entry.personal != 0 else { return false }
        var owner: UUIDBits?
        if entry.owner >= 0, let uid = uuidBits(entry.owner, in: line) { owner = uid }
        for index in entry.rules.indices {
            let personal = entry.personal & (1 << index) != 0
            switch storage.pointee.slots[index].kind {
            case .string, .escapedString: if personal { return false }
            case .sealed:
                guard personal else { return false }
                let name = entry.names[index]
                let opens = opener.opens(name, of: entry.type)
                let opened = withSealedMember(index, in: line, owner: owner, ownerIndex: Int(entry.owner), decoding: opens, opener: opener) { member -> OpenedMember? in
                    member.map { opener.open($0, eventID: eventID, type: entry.type, name: name) }
                }
                switch opened {
                case nil: return false  // not a well-formed encrypted member of the event's subject
                case .some(nil): storage.pointee.slots[index].kind = .unread
                case .some(.text(let text)?):
                    storage.pointee.texts[index] = text
                    storage.pointee.slots[index].kind = .opened
                case .some(.some): storage.pointee.slots[index].kind = .erased
                }
            default: continue
            }
        }
        return true
    }

    /// `body` of the encrypted member in slot `index` (located by `scan`), checked as
    /// `EncryptedMember(json:)` checks it and as the full path checks its subject (the event's
    /// account `owner` when it has one), its nonce and ciphertext decoded into buffers of the call;
    /// nil when it is not such a member. Without `decoding` (a member left sealed), `body` is given
    /// nil and nothing is decoded: `scan` found its Base64 canonical, so its sizes are known.
    private func withSealedMember<T>(_ index: Int, in line: UnsafeBufferPointer<UInt8>, owner: UUIDBits?, ownerIndex: Int, decoding: Bool,
                                     opener: any PersonalDataOpener,
                                     _ body: (SealedMember?) -> T) -> T? {
        let slot = storage.pointee.slots[index]
        // `sealedObject` checked the frame, `{"subject":"S","nonce":"N","ciphertext":"C"}`, with no
        // quote or backslash inside S and N and C canonical Base64, and noted where N and C start.
        let nonceStart = Int(slot.nonce), sealedStart = Int(slot.ciphertext)
        let subjectText = UnsafeBufferPointer(rebasing: line[(Int(slot.start) + 12)..<(nonceStart - 11)])
        let nonceText = UnsafeBufferPointer(rebasing: line[nonceStart..<(sealedStart - 16)])
        let sealedText = UnsafeBufferPointer(rebasing: line[sealedStart..<(Int(slot.end) - 2)])
        // The subject: `account-<uid>` of the event's own account, or (for a type that names none)
        // any valid id.
        let account: UUIDBits?
        if subjectText.count == 44, equal(subjectText.baseAddress!, "account-") {
            let uuidText = UnsafeBufferPointer(rebasing: subjectText[8...])
            if let owner, let ownerText = plain(ownerIndex, in: line), ownerText.count == 36 {
                // The owner's text parsed as a lowercase UUID, the one spelling of its bits: the
                // subject names it exactly when it spells the same 36 bytes (no parse per member).
                guard sameUUIDText(uuidText.baseAddress!, ownerText.baseAddress!) else { return nil }
                account = owner
            } else {
                guard let uid = UUIDBits(uuidBytes: uuidText), owner.map({ $0 == uid }) ?? true else { return nil }
                account = uid
            }
        } else {
            guard owner == nil, SubjectID(utf8: subjectText) != nil else { return nil }
            account = nil
        }
        let nonceSize = EncryptedMember.nonceSize
        if decoding, let account { opener.prepareToOpen(account: account) }  // its key fetched while the Base64 is decoded
        guard decoding else {
            // Canonical Base64 of n characters, p of them padding, holds n / 4 * 3 - p bytes.
            let n = sealedText.count, pad = UInt8(ascii: "=")
            let padding = n < 2 ? 0 : sealedText[n - 1] != pad ? 0 : sealedText[n - 2] != pad ? 1 : 2
            guard nonceText.count == 16, nonceText[15] != UInt8(ascii: "="),
                  sealedText.count / 4 * 3 - padding >= EncryptedMember.tagSize else { return nil }
            return body(nil)
        }
        let sealedCapacity = sealedText.count / 4 * 3
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: nonceSize + 2 + sealedCapacity) { buffer -> T? in
            let nonceOut = UnsafeMutableBufferPointer(rebasing: buffer[0..<(nonceSize + 2)])
            let sealedOut = UnsafeMutableBufferPointer(rebasing: buffer[(nonceSize + 2)...])
            guard nonceText.count == 16, Base64.decode(bytes: nonceText, into: nonceOut) == nonceSize,
                  let sealedCount = Base64.decode(bytes: sealedText, into: sealedOut), sealedCount >= EncryptedMember.tagSize
            else { return nil }
            return body(SealedMember(subjectBytes: subjectText, account: account,
                                     nonce: UnsafeBufferPointer(rebasing: nonceOut[0..<nonceSize]),
                                     sealed: UnsafeBufferPointer(rebasing: sealedOut[0..<sealedCount])))
        }
    }

    // MARK: - Values

    /// The raw bytes of unescaped string member `index`.
    func plain(_ index: Int, in line: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        let slot = storage.pointee.slots[index]
        guard slot.kind == .string else { return nil }
        return UnsafeBufferPointer(rebasing: line[Int(slot.start)..<Int(slot.end)])
    }

    /// String member `index`'s value.
    func string(_ index: Int, in line: UnsafeBufferPointer<UInt8>) -> String? {
        let slot = storage.pointee.slots[index]
        switch slot.kind {
        case .opened:
            return storage.pointee.texts[index]
        case .string:
            // `scan` validated the UTF-8 already: decoding repairs nothing.
            return String(decoding: UnsafeBufferPointer(rebasing: line[Int(slot.start)..<Int(slot.end)]), as: UTF8.self)
        case .escapedString:
            return (try? JSONReader.parseValue(in: line, at: Int(slot.start) - 1, depth: 1))?.0.stringValue
        default:
            return nil
        }
    }

    /// `body` of string member `index`'s UTF-8: in place, or decoded first when it has escapes; nil
    /// when it is not a string.
    func withText<T>(_ index: Int, in line: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T? {
        if let raw = plain(index, in: line) { return body(raw) }
        guard var text = string(index, in: line) else { return nil }
        return text.withUTF8(body)
    }

    /// String member `index` read as a lowercase UUID (nil when it is not one), read once per line.
    func uuidBits(_ index: Int, in line: UnsafeBufferPointer<UInt8>) -> UUIDBits? {
        if storage.pointee.uuids & (1 << index) != 0 { return storage.pointee.values[index] }
        guard let bits = withText(index, in: line, { UUIDBits(uuidBytes: $0) }) ?? nil else { return nil }
        storage.pointee.values[index] = bits
        storage.pointee.uuids |= 1 << index
        return bits
    }

    /// String member `index` read as a canonical time (nil when it is not one), read once per line.
    func time(_ index: Int, in line: UnsafeBufferPointer<UInt8>) -> Timestamp? {
        if storage.pointee.times & (1 << index) != 0 { return Timestamp(millis: Int64(bitPattern: storage.pointee.values[index].high)) }
        guard let time = withText(index, in: line, { Timestamp(canonicalBytes: $0) }) ?? nil else { return nil }
        storage.pointee.values[index] = UUIDBits(high: UInt64(bitPattern: time.millis), low: 0)
        storage.pointee.times |= 1 << index
        return time
    }

    /// Integer member `index` (non-negative: `scan` takes no sign).
    func int(_ index: Int, in line: UnsafeBufferPointer<UInt8>) -> Int? {
        let slot = storage.pointee.slots[index]
        guard slot.kind == .int else { return nil }
        var value = 0
        for i in Int(slot.start)..<Int(slot.end) { value = value * 10 + Int(line[i] &- UInt8(ascii: "0")) }
        return value
    }
}
