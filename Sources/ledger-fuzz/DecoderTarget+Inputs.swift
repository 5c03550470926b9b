#if canImport(LedgerDomain)
import LedgerDomain
#endif

// MARK: - DecoderTarget inputs

extension DecoderTarget {
    // MARK: Generating inputs

    /// One input for the decoder, drawn from `rng`, and whether it is a valid line that must be accepted.
    func generate(_ rng: inout SplitMix64) -> (bytes: [UInt8], valid: Bool) {
        if rng.chance(8), let line = validLine(&rng) { return (line, true) }
        return (mutated(&rng), false)
    }

    func mutated(_ rng: inout SplitMix64) -> [UInt8] {
        let line = rng.pick(corpus), other = rng.pick(corpus)
        switch rng.below(100) {
        case 0..<28:  // byte mutations of a valid line
            return Mutator.mutate(line, count: 1 + rng.size(upTo: 8), other: other, &rng)
        case 28..<58:  // member-level mutations, usually re-hashed so the line gets past the hash check
            var out = mutateMembers(line, other: other, &rng)
            if rng.chance(20) { out = Mutator.mutate(out, count: 1, other: other, &rng) }
            return rng.chance(75) ? rehash(out) : out
        case 58..<68:  // a generated value, sometimes as the whole line
            let value = JSONGen.value(&rng, depth: rng.int(in: 0...6))
            return rng.chance(50) ? value : rehash(replacing(member: rng.pick(Self.envelopeKeys), in: line, with: value) ?? value)
        case 68..<74:  // two lines in one, a line cut short, a line repeated
            switch rng.below(3) {
            case 0: return line + (rng.chance(50) ? [0x0A] : []) + other
            case 1: return Array(line.prefix(rng.below(line.count + 1)))
            default: return line + line.suffix(rng.below(line.count + 1))
            }
        case 74..<80:  // random bytes, biased towards JSON punctuation
            return (0..<rng.size(upTo: 400)).map { _ in rng.chance(50) ? rng.pick(Mutator.interestingBytes) : rng.byte() }
        case 80..<85:  // deep nesting around the depth limit and far past it
            let depth = rng.pick([JSONReader.maxDepth - 1, JSONReader.maxDepth, JSONReader.maxDepth + 1, rng.int(in: 1...600), rng.int(in: 1000...100_000)])
            let deep = JSONGen.deep(depth, &rng)
            return rng.chance(50) ? deep : rehash(replacing(member: "data", in: line, with: deep) ?? deep)
        case 85..<93:  // the same JSON, not compact: spaces after commas, leading or trailing whitespace
            let spaced: [UInt8]
            switch rng.below(3) {
            case 0: spaced = Array(line.map { $0 == UInt8(ascii: ",") ? [0x2C, 0x20] : [$0] }.joined())
            case 1: spaced = [rng.pick([0x20, 0x09, 0x0D])] + line
            default: spaced = line + [rng.pick([0x20, 0x09, 0x0D])]
            }
            return rng.chance(50) ? rehash(spaced) : spaced
        case 93..<99:  // an envelope member set to an edge value
            let key = rng.pick(Self.envelopeKeys)
            return rehash(replacing(member: key, in: line, with: edgeValue(for: key, &rng)) ?? line)
        default:  // big: a long string, a wide object or a long array, usually inside `data`
            let big: [UInt8]
            switch rng.below(3) {
            case 0: big = [UInt8(ascii: "\"")] + [UInt8](repeating: rng.pick(Array("a\\é".utf8) + [0xFF]), count: rng.int(in: 1...(1 << 20))) + [UInt8(ascii: "\"")]
            case 1: big = JSONGen.wideObject(rng.int(in: 1...30_000), duplicateLast: rng.chance(30))
            default: big = [UInt8(ascii: "[")] + Array(repeating: Array("0,".utf8), count: rng.int(in: 1...100_000)).joined() + [UInt8(ascii: "0"), UInt8(ascii: "]")]
            }
            return rng.chance(70) ? rehash(replacing(member: "data", in: line, with: big) ?? big) : big
        }
    }

    static let envelopeKeys = ["seq", "id", "at", "type", "v", "stream", "batch", "data", "prev", "hash"]

    /// Edge values for an envelope member.
    func edgeValue(for key: String, _ rng: inout SplitMix64) -> [UInt8] {
        func quoted(_ text: String) -> [UInt8] { Array("\"\(text)\"".utf8) }
        switch key {
        case "seq", "v":
            return rng.chance(70) ? Array(rng.pick(["0", "-1", "1", "2", "1.0", "1e0", "\"1\"", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "99999999999999999999999", "1e400", "null", "true"]).utf8) : JSONGen.number(&rng)
        case "at":
            return quoted(rng.pick(["2026-11-29T09:00:00.123Z", "2026-11-29T09:00:00.12Z", "2026-11-29T09:00:00.1234Z", "2026-11-29t09:00:00.123z",
                                    "2026-02-29T00:00:00.000Z", "2024-02-29T00:00:00.000Z", "2026-13-01T00:00:00.000Z", "2026-00-10T00:00:00.000Z",
                                    "0000-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z", "2026-11-29T09:00:00.123+01:00", "2026-11-29T24:00:00.000Z",
                                    "2026-11-29T23:59:60.000Z", "2026-11-29T09:00:00.999999999Z", "2026-11-29T09:00:00.1234567890Z", "2026-11-29", "",
                                    "-001-01-01T00:00:00.000Z", "2026-11-29T09:00:00.123-23:59", "２０２６-11-29T09:00:00.123Z"]))
        case "type":
            return quoted(rng.pick(EventType.allCases.map(\.rawValue) + ["", "Nope", "accountcreated", "AccountCreated ", "Failed\\u0000"]))
        case "stream":
            let uuid = Identifiers.uuid(fromRandom: rng.bytes(16))
            return quoted(rng.pick(["registration-", "session-", "signin-", "nope-", "Registration-", ""]) + rng.pick([uuid, uuid.uppercased(), String(uuid.dropLast()), uuid + "0", ""]))
        case "id":
            let uuid = Identifiers.uuid(fromRandom: rng.bytes(16))
            return quoted(rng.pick([uuid, uuid.uppercased(), String(uuid.dropLast()), uuid + "a", uuid.replacingFirstDash(), ""]))
        case "batch":
            return Array(rng.pick(["[1,2]", "[2,2]", "[1,3]", "[0,2]", "[1,1]", "[3,2]", "[1]", "[1,2,3]", "[1.0,2]", "[\"1\",2]", "[01,2]", "[-1,2]",
                                   "[1,2147483648]", "[2147483647,2147483647]", "[1,99999999999999999999]", "null", "{}", "\"1/2\"", "[ 1,2]"]).utf8)
        case "prev", "hash":
            let hex = Identifiers.hex(rng.bytes(32))
            return quoted(rng.pick([hex, hex.uppercased(), String(hex.dropLast()), hex + "0", Envelope.genesisHash, String(repeating: "g", count: 64)]))
        default:  // data
            if rng.chance(50) { return JSONGen.value(&rng, depth: 3) }
            let donor = rng.pick(corpus)
            return member("data", of: donor) ?? Array("{}".utf8)
        }
    }

    /// `line` with `value` (raw bytes) added to its `data` as member `key`, re-hashed.
    func adding(_ key: String, _ value: [UInt8], toDataOf line: [UInt8]) -> [UInt8] {
        guard var list = members(of: line), let index = list.firstIndex(where: { $0.key == "data" }),
              var inner = members(of: list[index].value) else { return line }
        inner.append((key, value))
        list[index].value = object(inner)
        return rehash(object(list))
    }

    // MARK: Members

    /// The members of a line that is a JSON object, each value as compact JSON; nil when it is not one.
    func members(of line: [UInt8]) -> [(key: String, value: [UInt8])]? {
        guard case .object(let object)? = try? JSONReader.parse(line) else { return nil }
        return object.members.map { ($0.key, JSONWriter.bytes($0.value)) }
    }

    func member(_ key: String, of line: [UInt8]) -> [UInt8]? {
        members(of: line)?.first { $0.key == key }?.value
    }

    /// Writes members as an object, duplicates and all.
    func object(_ members: [(key: String, value: [UInt8])]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "{")]
        for (offset, member) in members.enumerated() {
            if offset > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.writeString(member.key, into: &out)
            out.append(UInt8(ascii: ":"))
            out += member.value
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// `line` with the value of `key` replaced by `value` (raw bytes, valid JSON or not).
    func replacing(member key: String, in line: [UInt8], with value: [UInt8]) -> [UInt8]? {
        guard var list = members(of: line) else { return nil }
        if let index = list.firstIndex(where: { $0.key == key }) { list[index].value = value } else { list.insert((key, value), at: 0) }
        return object(list)
    }

    /// Reorders, drops, duplicates, renames and swaps members of the line or of its `data`.
    func mutateMembers(_ line: [UInt8], other: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        guard var list = members(of: line), !list.isEmpty else { return Mutator.mutate(line, count: 2, other: other, &rng) }
        var inData = rng.chance(40)
        var target = list
        if inData, let index = list.firstIndex(where: { $0.key == "data" }), let inner = members(of: list[index].value) {
            target = inner
        } else {
            inData = false
        }
        for _ in 0..<(1 + rng.size(upTo: 3)) {
            let n = target.count
            switch rng.below(9) {
            case 0 where n > 0: target.append(target[rng.below(n)])  // duplicate member
            case 1 where n > 0: target.remove(at: rng.below(n))  // missing member
            case 2 where n > 1: target.swapAt(rng.below(n), rng.below(n))  // other order
            case 3: target.insert((rng.pick(["extra", "seq", "data", "hash", "", "\u{0}", "uid", "email", "bytes", "path", "withImage"]), JSONGen.value(&rng, depth: 2)), at: rng.below(n + 1))
            case 4 where n > 0: target[rng.below(n)].value = JSONGen.value(&rng, depth: 2)  // any value
            case 5 where n > 0: target[rng.below(n)].value = Array(rng.pick(["null", "0", "-1", "\"\"", "[]", "{}", "true", "9223372036854775807", "1e400", "\"A@B.C\""]).utf8)
            case 6 where n > 0: // a value taken from another line's member of the same name
                let index = rng.below(n)
                if let value = member(target[index].key, of: other) { target[index].value = value }
            case 7 where n > 0: target[rng.below(n)].key += rng.pick(["x", " ", "\u{0}", "é"])  // renamed member
            default: if n > 0 { target[rng.below(n)].value = JSONGen.string(&rng) }
            }
        }
        if inData, let index = list.firstIndex(where: { $0.key == "data" }) { list[index].value = object(target) } else { list = target }
        return object(list)
    }

    /// `line` with its hash recomputed over the bytes before the last `,"hash":"`, so the hash check passes
    /// and the later checks get the line. Unchanged without libcrypto or without the marker.
    func rehash(_ line: [UInt8]) -> [UInt8] {
        guard sha256 != nil, let at = Self.lastIndex(of: LineCodec.hashMarker, in: line) else { return line }
        let body = line[0..<at]
        return Array(body) + LineCodec.hashMarker + Array(hash(body).utf8) + Array("\"}".utf8)
    }

    static func lastIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var start = haystack.count - needle.count
        while start >= 0 {
            if haystack[start] == needle[0] && haystack[start..<(start + needle.count)].elementsEqual(needle) { return start }
            start -= 1
        }
        return nil
    }

    // MARK: Valid lines

    /// A line built by `LineCodec` from a valid event at a random position; nil without libcrypto.
    func validLine(_ rng: inout SplitMix64) -> [UInt8]? {
        guard sha256 != nil else { return nil }
        let (event, stream) = Self.sampleEvent(rng.below(EventType.allCases.count), &rng)
        let prev = rng.chance(20) ? Envelope.genesisHash : Identifiers.hex(rng.bytes(32))
        return Self.line(seq: 1 + rng.size(upTo: 1 << 40), event: event, stream: stream, prev: prev,
                         at: Timestamp(millis: Int64(rng.below(253_402_300_800_000))), &rng, sha256: hash).line
    }

    /// A valid log of `count` lines, chained from the genesis hash.
    static func validChain(count: Int, _ rng: inout SplitMix64, sha256: (ArraySlice<UInt8>) -> String) -> [[UInt8]] {
        var lines: [[UInt8]] = []
        var prev = Envelope.genesisHash
        var at = Timestamp(rfc3339: "2026-11-29T09:00:00.123Z")!
        // Batches of one to three lines, so the corpus holds lines with and without `batch`.
        var marks: [BatchMark] = []
        while marks.count < count { marks += BatchMark.marks(count: min(count - marks.count, rng.pick([1, 1, 2, 3]))) }
        for n in 0..<count {
            let (event, stream) = sampleEvent(n, &rng)
            let made = line(seq: n + 1, event: event, stream: stream, batch: marks[n], prev: prev, at: at, &rng, sha256: sha256)
            lines.append(made.line)
            prev = made.hash
            at = at.adding(milliseconds: Int64(1 + rng.below(60_000)))
        }
        return lines
    }

    static func line(seq: Int, event: LedgerEvent, stream: String, batch: BatchMark = .unmarked, prev: String, at: Timestamp,
                             _ rng: inout SplitMix64, sha256: (ArraySlice<UInt8>) -> String) -> (line: [UInt8], hash: String) {
        let body = LineCodec.body(seq: seq, id: Identifiers.uuid(fromRandom: rng.bytes(16)), at: at, type: event.type.rawValue,
                                  v: event.type.currentVersion, stream: stream, batch: batch, data: event.data, prev: prev)
        let hash = sha256(body[...])
        return (Array(LineCodec.line(body: body, hash: hash).dropLast()), hash)
    }

    /// A valid event of catalogue entry `kind` (modulo the catalogue) with random ids, in a stream of its category.
    static func sampleEvent(_ kind: Int, _ rng: inout SplitMix64) -> (LedgerEvent, String) {
        func uuid() -> String { Identifiers.uuid(fromRandom: rng.bytes(16)) }
        let uid = uuid(), image = uuid(), session = uuid()
        let email = rng.pick(["alice@example.com", "o'brien+tag@sub.example.org", "zoë@example.com", "a@b.co"])
        let name = rng.pick(["Alice", "Zoë \"Ångström\" \\ 1", "名前", "tab\tname", String(repeating: "u", count: 64)])
        let stamp = Timestamp(millis: Int64(rng.below(253_402_300_800_000)))
        let event: LedgerEvent
        switch kind % EventType.allCases.count {
        case 0: event = .accountCreated(AccountCreated(uid: uid, email: email, passwordHash: "$y$j9T$salt$hash", withImage: rng.pick([true, false, nil])))
        case 1: event = .imageStored(ImageStored(uid: uid, imageName: image, contentType: rng.pick(ImageContentType.allCases),
                                                 bytes: rng.size(upTo: 1 << 21), sha256: Identifiers.hex(rng.bytes(32))))
        case 2: event = .profileWritten(ProfileWritten(uid: uid, email: email, userName: name, profileImageName: rng.chance(50) ? image : nil, createdAt: stamp))
        case 3: event = .failed(Failed(step: rng.pick(RegistrationStep.allCases), reason: rng.pick(["invalid-email", "io-error", "x1"]),
                                       message: "line one\n\ttab \u{1} \"quoted\"", email: rng.chance(50) ? email : nil, uid: rng.chance(50) ? uid : nil))
        case 4: event = .imageDeleted(ImageDeleted(uid: uid, imageName: image))
        case 5: event = .accountDeleted(AccountDeleted(uid: uid))
        case 6: event = .sessionStarted(SessionStarted(sessionId: session, uid: uid, tokenHash: Identifiers.hex(rng.bytes(32)), expiresAt: stamp))
        case 7: event = .sessionEnded(SessionEnded(sessionId: session, uid: uid, reason: rng.pick(["logout", "expired"])))
        case 8: event = .signInFailed(SignInFailed(email: email, reason: rng.pick(SignInFailure.allCases)))
        case 9: event = .accountDisabled(AccountDisabled(uid: uid, reason: rng.pick(["", "abuse report", "line one\n\ttab \"quoted\""])))
        default: event = .accountEnabled(AccountEnabled(uid: uid))
        }
        let id = switch event.type.category { case .registration, .signin, .migration: uuid(); case .session: session; case .account: uid }
        return (event, event.type.category.stream(id))
    }
}

extension String {
    /// The string with its first `-` removed (a UUID one character short, in the wrong shape).
    fileprivate func replacingFirstDash() -> String {
        guard let index = firstIndex(of: "-") else { return self }
        var copy = self
        copy.remove(at: index)
        return copy
    }
}
