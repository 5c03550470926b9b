// MARK: - DataReader

/// A decoded `data` object checked against a payload's schema: `init` throws `EventDataError` for
/// the first member (in schema order) that breaks its rule; the accessors then read checked values.
/// Members the schema does not name are ignored. A personal member of `type` (`PersonalMembers`)
/// may be `null` when `data` says `"erased": true` (a reader found its key destroyed): it reads as
/// the empty string, which no personal member is otherwise.
struct DataReader<Member: PayloadMember> {
    private let object: JSONObject
    private let schema: PayloadSchema<Member>
    private let erased: [String]

    /// Checks every member of `object` (of an event of `type`, when its members may be erased) against `schema`.
    init(_ object: JSONObject, _ schema: PayloadSchema<Member>, type: EventType? = nil) throws(EventDataError) {
        self.object = object; self.schema = schema
        if let type, case .bool(true) = object[DataVersions.erasedMember] {
            erased = PersonalMembers.rule(for: type)?.members ?? []
        } else {
            erased = []
        }
        for rule in schema.rules { try check(rule) }
    }

    private func check(_ rule: MemberRule) throws(EventDataError) {
        let name = rule.name
        guard let value = object[name] else {
            if rule.presence.allowsAbsent { return }
            throw EventDataError(member: name, problem: "is missing")
        }
        if value.isNull, rule.presence.allowsNull || erased.contains(name) { return }
        let orNull = rule.presence == .nullable ? " or null" : ""
        switch (rule.kind, value) {
        case (.count, .int(let number)):
            guard number >= 0 else { throw EventDataError(member: name, problem: "must be at least 0") }
        case (.flag, .bool):
            return
        case (let kind, .string(var text)) where kind.isText:
            if case .prefixed(let prefix, let other) = kind {
                let expected = prefix.description + (object[schema.rules[other].name]?.stringValue ?? "")
                guard text == expected else { throw EventDataError(member: name, problem: "must be `\(expected)`") }
                return
            }
            if let problem = text.withUTF8({ kind.problem($0) }) { throw EventDataError(member: name, problem: problem + orNull) }
        default:
            let when = rule.presence == .optional && rule.kind.isPlainText ? " when present" : ""
            throw EventDataError(member: name, problem: "must be \(rule.kind.typeName)\(orNull)\(when), not \(value.typeName)")
        }
    }

    /// A checked string member (empty when an optional one is absent: read it with `optionalText`).
    func text(_ member: Member) -> String { optionalText(member) ?? "" }

    /// A checked string member that may be absent or null.
    func optionalText(_ member: Member) -> String? { object[schema[member].name]?.stringValue }

    /// A checked integer member.
    func int(_ member: Member) -> Int { object[schema[member].name]?.intValue ?? 0 }

    /// A checked boolean member that may be absent or null.
    func flag(_ member: Member) -> Bool? {
        if case .bool(let flag) = object[schema[member].name] { flag } else { nil }
    }

    /// A checked time member.
    func timestamp(_ member: Member) -> Timestamp {
        var text = text(member)
        return text.withUTF8 { Timestamp(canonicalBytes: $0) } ?? Timestamp(millis: 0)
    }

    /// A checked `.oneOf` member as its enumeration.
    func choice<T: MemberChoice>(_ member: Member, _: T.Type) -> T {
        T(rawValue: text(member)) ?? T.allCases.first!
    }
}

extension MemberKind {
    /// True for `.text`, the kind whose optional members say "when present" about a value of another type.
    var isPlainText: Bool { if case .text = self { true } else { false } }
}
