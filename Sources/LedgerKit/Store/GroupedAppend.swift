import LedgerDomain

// MARK: - GroupedAppend

/// One batch of a group commit (`GroupAppends.appendGroup`): its parts and its condition, as a
/// lone `append` takes them.
public struct GroupedAppend {
    /// The batch's parts.
    public let parts: [StreamAppend]
    /// What the batch needs besides its parts' versions.
    public let condition: AppendCondition?
    /// The parts' events as `StreamAppend.validatedData` gives them, when the caller checked them
    /// already (in its own thread, so the group's writer does not).
    var validated: [(event: LedgerEvent, data: JSONObject)]?

    /// A batch from its parts and condition.
    public init(_ parts: [StreamAppend], condition: AppendCondition?) {
        self.parts = parts; self.condition = condition
    }

    /// The batch with its parts checked now (`StreamAppend.validatedData`); throws what a lone
    /// append would refuse before taking its lock.
    func validatedNow() throws -> GroupedAppend {
        var batch = self
        batch.validated = try StreamAppend.validatedData(parts)
        return batch
    }

    /// What the batch touches: its streams, the emails its events claim, and the emails whose live
    /// holder decides the subject of their personal data (`PersonalMembers`). Two batches that touch
    /// nothing in common can each be checked against the log before both: neither's check, nor the
    /// key its personal data is sealed under, depends on the other.
    public var touches: Set<String> {
        var keys = Set(parts.map { "stream " + $0.stream })
        for event in parts.lazy.flatMap(\.events) {
            if let email = event.claimedEmail { keys.insert("email " + email) }
            guard let rule = PersonalMembers.rule(for: event.type) else { continue }
            for case .holderOfEmail(let member) in rule.subject {
                if let email = event.data[member]?.stringValue { keys.insert("email " + email) }
            }
        }
        return keys
    }

    /// True when no two of `batches` touch a stream or an email in common: they may go in one group.
    public static func independent(_ batches: [GroupedAppend]) -> Bool {
        var seen = Set<String>()
        for batch in batches {
            for key in batch.touches { guard seen.insert(key).inserted else { return false } }
        }
        return true
    }

    /// What every store checks of a group before taking its lock: each batch's parts (as a lone
    /// append checks them, unless `validated` says they were), that no two batches touch one
    /// stream or email, and that none erases (an erasure is appended alone). Each batch's events
    /// as `StreamAppend.validatedData` gives them, or its refusal, in order.
    static func screened(_ batches: [GroupedAppend]) -> [Result<[(event: LedgerEvent, data: JSONObject)], any Error>] {
        var touched = Set<String>()
        return batches.map { batch in
            Result {
                let touches = batch.touches
                guard touched.isDisjoint(with: touches) else {
                    throw StoreError(.invalidBatch, "a group of appends holds two batches that touch one stream or email")
                }
                touched.formUnion(touches)
                let decoded = try batch.validated ?? StreamAppend.validatedData(batch.parts)
                guard decoded.allSatisfy({ $0.event.erasedSubject == nil }) else {
                    throw StoreError(.invalidBatch, "an erasure is appended alone, not in a group")
                }
                return decoded
            }
        }
    }
}
