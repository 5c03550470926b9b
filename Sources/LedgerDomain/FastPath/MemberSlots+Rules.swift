// MARK: - The schema's rules, in place

extension MemberSlots {
    /// True when every member passes its rule in `rules`: the rules `DataReader` applies, read in
    /// place. A line that gives up here (an escaped `.prefixed` member, say) goes to the full decoder.
    func satisfies(_ rules: UnsafeBufferPointer<MemberRule>, in line: UnsafeBufferPointer<UInt8>) -> Bool {
        for index in rules.indices {
            switch self[index].kind {
            case .absent: guard rules[index].presence.allowsAbsent else { return false }
            case .null: guard rules[index].presence.allowsNull else { return false }
            case .erased, .unread: continue  // a personal member whose key is gone reads as null (`DataReader`); one not read, as none
            case .sealed: return false  // never opened: not read in place
            case .int: guard case .count = rules[index].kind else { return false }
            case .trueValue, .falseValue: guard case .flag = rules[index].kind else { return false }
            case .string, .escapedString, .opened:
                switch rules[index].kind {
                case .count, .flag: return false
                case .prefixed(let prefix, let other):
                    guard isPrefixed(index, prefix, other, in: line) else { return false }
                // The rule's own check (`MemberKind.problem`), its value kept for the view fact.
                case .uuid: guard uuidBits(index, in: line) != nil else { return false }
                case .timestamp: guard time(index, in: line) != nil else { return false }
                case let kind:
                    guard withText(index, in: line, { kind.problem($0) == nil }) == true else { return false }
                }
            }
        }
        return true
    }

    /// True when unescaped member `index` is `prefix` followed by unescaped member `other`.
    private func isPrefixed(_ index: Int, _ prefix: StaticString, _ other: Int, in line: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let value = plain(index, in: line), let tail = plain(other, in: line) else { return false }
        let head = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        return value.count == head.count + tail.count && sameBytes(UnsafeBufferPointer(rebasing: value[..<head.count]), head)
            && sameBytes(UnsafeBufferPointer(rebasing: value[head.count...]), tail)
    }

    // MARK: - Checked values

    /// Checked `.uuid` member `member` (nil when absent or null).
    func uuid<M: PayloadMember>(_ member: M, in line: UnsafeBufferPointer<UInt8>) -> UUIDBits? {
        uuidBits(member.rawValue, in: line)
    }

    /// Checked `.sha256` member `member`.
    func digest<M: PayloadMember>(_ member: M, in line: UnsafeBufferPointer<UInt8>) -> Digest32 {
        (withText(member.rawValue, in: line) { Digest32(hexBytes: $0) } ?? nil) ?? .zero
    }

    /// Checked `.timestamp` member `member`.
    func timestamp<M: PayloadMember>(_ member: M, in line: UnsafeBufferPointer<UInt8>) -> Timestamp {
        time(member.rawValue, in: line) ?? Timestamp(millis: 0)
    }

    /// Checked string member `member` (nil when absent or null).
    func text<M: PayloadMember>(_ member: M, in line: UnsafeBufferPointer<UInt8>) -> String? {
        string(member.rawValue, in: line)
    }

    /// Checked `.count` member `member`.
    func int<M: PayloadMember>(_ member: M, in line: UnsafeBufferPointer<UInt8>) -> Int { int(member.rawValue, in: line) ?? 0 }

    /// Checked `.flag` member `member` (nil when absent or null).
    func flag<M: PayloadMember>(_ member: M) -> Bool? {
        switch self[member.rawValue].kind {
        case .trueValue: true
        case .falseValue: false
        default: nil
        }
    }

    /// Checked `.oneOf` member `member` as its enumeration.
    func choice<M: PayloadMember, T: MemberChoice>(_ member: M, _: T.Type, in line: UnsafeBufferPointer<UInt8>) -> T {
        (withText(member.rawValue, in: line) { T.choice(spelledBy: $0) } ?? nil) ?? T.allCases.first!
    }
}
