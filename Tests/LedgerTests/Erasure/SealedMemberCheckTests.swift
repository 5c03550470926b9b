import Foundation
import LedgerDomain
import LedgerKit
import Testing

// MARK: - SealedMemberCheckTests

/// The in-place reader's one-pass check of an encrypted member (`MemberSlots`: its frame, and its
/// nonce and ciphertext as canonical Base64 by `Base64.canonicalEnd`) against the plain path:
/// `Base64.decode` on random texts, and the full decoder on respellings of real version 2 lines,
/// for members opened and members left sealed alike.
struct SealedMemberCheckTests {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    /// Bytes outside the alphabet a stored member may hold by damage.
    private static let foreign: [UInt8] = Array("=-_ .\"\\".utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xFF]

    /// `Base64.decode` against Foundation's decoder on the same random texts: the same bytes when
    /// the text is canonical (Foundation's encoding of them spells it again), nil otherwise.
    @Test func decodeAgreesWithFoundation() {
        let random = SeededRandom(seed: 22)
        var accepted = 0
        for _ in 0..<40_000 {
            var text = (0..<(random.next(16) * 4)).map { _ in Self.alphabet[random.next(64)] }
            switch random.next(6) {
            case 0 where text.count >= 4: text[text.count - 1] = UInt8(ascii: "=")
            case 1 where text.count >= 4: text.replaceSubrange((text.count - 2)..., with: Array("==".utf8))
            case 2 where !text.isEmpty: text[random.next(text.count)] = Self.foreign[random.next(Self.foreign.count)]
            case 3 where !text.isEmpty: text.removeLast()
            default: break
            }
            let ours = Base64.decode(String(decoding: text, as: UTF8.self))
            let theirs = Data(base64Encoded: Data(text)).map { [UInt8]($0) }
            let canonical = theirs.map { Data($0).base64EncodedString() == String(decoding: text, as: UTF8.self) } ?? false
            #expect(ours == (canonical ? theirs : nil), "\(String(decoding: text, as: UTF8.self))")
            if ours != nil { accepted += 1 }
        }
        #expect(accepted > 5_000)
    }

    @Test func canonicalEndAgreesWithDecode() {
        let random = SeededRandom(seed: 21)
        var accepted = 0, refused = 0
        for _ in 0..<40_000 {
            var text = (0..<random.next(27)).map { _ in Self.alphabet[random.next(64)] }
            switch random.next(5) {
            case 0: text += [UInt8(ascii: "=")]
            case 1: text += Array("==".utf8)
            case 2 where !text.isEmpty: text[random.next(text.count)] = Self.foreign[random.next(Self.foreign.count)]
            case 3 where text.count > 2: text.insert(UInt8(ascii: "="), at: random.next(text.count))
            default: break
            }
            // From an offset, and followed by the quote that ends a member's value.
            let prefix = (0..<random.next(9)).map { _ in Self.alphabet[random.next(64)] }
            let line = prefix + text + [UInt8(ascii: "\"")] + (0..<random.next(9)).map { _ in Self.alphabet[random.next(64)] }
            let end = line.withUnsafeBufferPointer { Base64.canonicalEnd(in: $0, from: prefix.count) }
            let decodes = text.withUnsafeBufferPointer { Base64.decode(bytes: $0) } != nil && !text.isEmpty
            #expect((end == prefix.count + text.count) == decodes, "\(String(decoding: text, as: UTF8.self))")
            if let end { #expect(end <= prefix.count + text.count) }
            if decodes { accepted += 1 } else { refused += 1 }
        }
        #expect(accepted > 2_000 && refused > 2_000)  // both verdicts, many times
    }

    /// An opener that reads nothing (`opens` false): every member is checked and left sealed.
    private struct ReadsNothing: PersonalDataOpener {
        let base: any PersonalDataOpener
        func open(_ member: EncryptedMember, eventID: String, type: EventType, name: String) -> OpenedMember {
            base.open(member, eventID: eventID, type: type, name: name)
        }
        func open(_ member: SealedMember, eventID: UUIDBits, type: EventType, name: String) -> OpenedMember {
            base.open(member, eventID: eventID, type: type, name: name)
        }
        func opens(_ name: String, of type: EventType) -> Bool { false }
    }

    /// Respellings of the encrypted members' values in `line`: a byte changed, one dropped or added,
    /// padding added or removed.
    private func memberMutations(of line: [UInt8], random: SeededRandom) -> [[UInt8]] {
        var out: [[UInt8]] = []
        let text = String(decoding: line, as: UTF8.self)
        for marker in [#""subject":""#, #""nonce":""#, #""ciphertext":""#] {
            var search = text.startIndex..<text.endIndex
            while let found = text.range(of: marker, range: search) {
                search = found.upperBound..<text.endIndex
                let start = text.utf8.distance(from: text.startIndex, to: found.upperBound)
                guard let close = line[start...].firstIndex(of: UInt8(ascii: "\"")) else { continue }
                let count = close - start
                for _ in 0..<12 {
                    var mutated = line
                    switch random.next(6) {
                    case 0 where count > 0: mutated[start + random.next(count)] = Self.foreign[random.next(Self.foreign.count)]
                    case 1 where count > 0: mutated[start + random.next(count)] = Self.alphabet[random.next(64)]
                    case 2 where count > 0: mutated.remove(at: start + random.next(count))
                    case 3: mutated.insert(Self.alphabet[random.next(64)], at: start + random.next(count + 1))
                    case 4: mutated.insert(UInt8(ascii: "="), at: close)
                    default: if count > 0, line[close - 1] == UInt8(ascii: "=") { mutated.remove(at: close - 1) } else { mutated.insert(contentsOf: Array("==".utf8), at: close) }
                    }
                    out.append(mutated)
                }
            }
        }
        return out
    }

    /// A member whose subject is another account than the line's own (a valid id, one hex digit
    /// changed, or the same id in capitals) is refused by the in-place reader, opened or left
    /// sealed, as the full path refuses it; the line as written is read.
    @Test func aMemberOfAnotherAccountIsRefused() throws {
        try withTempDirectory { dir in
            let store = FileEventStore(directory: dir, clock: FixedClock(step: 1), random: SeededRandom(seed: 14))
            _ = try store.append([Fixtures.event(.accountCreated, 1)], to: Fixtures.stream(for: .accountCreated, 1), expected: .noStream)
            let line = Array(try readBytes(store.logPath).dropLast())
            let text = String(decoding: line, as: UTF8.self)
            let subject = try #require(text.range(of: #""subject":"account-"#))
            let uuidStart = text.utf8.distance(from: text.startIndex, to: subject.upperBound)
            let keys = KeyRing(directory: dir)
            #expect(line.withUnsafeBufferPointer { LineCodec.readInPlace($0, opener: keys) } != nil)
            let original = line[uuidStart..<(uuidStart + 36)]
            var variants: [[UInt8]] = []
            for at in [0, 7, 9, 20, 35] {
                var changed = line
                changed[uuidStart + at] = original[original.startIndex + at] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
                variants.append(changed)
            }
            var capitals = line
            for at in uuidStart..<(uuidStart + 36) where (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(capitals[at]) { capitals[at] -= 32 }
            if capitals != line { variants.append(capitals) }
            for variant in variants {
                variant.withUnsafeBufferPointer { buffer in
                    #expect(LineCodec.readInPlace(buffer, opener: keys) == nil, "\(String(decoding: variant, as: UTF8.self))")
                    #expect(LineCodec.readInPlace(buffer, opener: ReadsNothing(base: keys)) == nil)
                }
            }
        }
    }

    @Test func membersLeftSealedAreCheckedAsMembersOpened() throws {
        try withTempDirectory { dir in
            let store = FileEventStore(directory: dir, clock: FixedClock(step: 1), random: SeededRandom(seed: 13))
            for (n, type) in EventType.allCases.enumerated() {
                _ = try store.append([Fixtures.event(type, n)], to: Fixtures.stream(for: type, n), expected: .noStream)
            }
            let lines = splitLines(try readBytes(store.logPath)).map { Array($0.dropLast()) }
            let sealed = lines.filter { String(decoding: $0, as: UTF8.self).contains(#""v":2"#) }
            #expect(sealed.count >= 9)
            let keys = KeyRing(directory: dir)
            let random = SeededRandom(seed: 17)
            var facts = 0, refused = 0
            for line in sealed {
                for mutated in [line] + memberMutations(of: line, random: random) {
                    mutated.withUnsafeBufferPointer { buffer in
                        let opened = LineCodec.readInPlace(buffer, opener: keys)
                        let unread = LineCodec.readInPlace(buffer, opener: ReadsNothing(base: keys))
                        #expect((opened != nil) == (unread != nil), "\(String(decoding: mutated, as: UTF8.self))")
                        // What the in-place reader takes, the full path takes.
                        if unread != nil {
                            var full = false
                            if let (envelope, _) = try? LineCodec.decodeGeneric(buffer, lineNumber: 1),
                               case .event = ChainChecker.prepare(envelope, opener: keys) { full = true }
                            #expect(full, "\(String(decoding: mutated, as: UTF8.self))")
                            facts += 1
                        } else {
                            refused += 1
                        }
                    }
                }
            }
            #expect(facts >= sealed.count && refused > 100)
        }
    }
}
