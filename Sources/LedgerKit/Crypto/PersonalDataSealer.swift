import LedgerDomain

// MARK: - PersonalDataSealer

/// The writer's half of data version 2: the `data` of an event with personal members
/// (`PersonalMembers`) as it is stored, each personal member replaced by its `EncryptedMember`
/// under the data key of the event's subject, the key made on first use (`SubjectKeys`: synced in
/// the file store's key store before the line is written, or inserted in the PostgreSQL append's
/// own transaction).
enum PersonalDataSealer {
    /// `data` of an event of `type` with id `eventID`, recorded at `at`, as a store of data version
    /// 2 writes it, and its version (`DataVersions.written`); `holder` names the live account that
    /// holds an email (the account fold's answer at the moment of writing); `known` says whether the
    /// log already holds an account's creation (its key then exists unless keys were lost).
    static func seal(_ data: JSONObject, type: EventType, eventID: String, at: Timestamp, keys: any SubjectKeys,
                     holder: (String) -> UUIDBits?, known: (UUIDBits) -> Bool = { _ in false },
                     random: any RandomSource) throws -> (data: JSONObject, version: Int) {
        guard let rule = sealedRule(data, type: type) else { return (data, 1) }
        guard var subject = PersonalMembers.subject(of: type, data: data, at: at, holder: holder) else {
            throw StoreError(.invalidBatch, "\(type.rawValue) names no subject for its personal data")
        }
        // A day whose addresses were erased goes on under its successor (an erased key is never made again).
        var key: [UInt8]?
        while key == nil {
            do {
                key = try keys.key(creatingFor: subject, random: random, mayCreate: mayMakeKey(subject, type, known: known))
            } catch let error where error.code == .subjectErased && subject.successor != nil {
                subject = subject.successor!
            } catch let error where error.code == .subjectErased {
                throw StoreError(.invalidBatch, "\(type.rawValue) names \(subject), whose key was erased: an erased account gets no new personal data")
            } catch let error where error.code == .missingKey {
                throw StoreError(.damaged, error.message, reason: "missing-key")
            } catch {
                throw StoreError(.io, "the key store refused the key of \(subject): \(error.message)")
            }
        }
        var sealed = data
        for name in rule.members {
            guard let text = data[name]?.stringValue else { continue }
            do {
                sealed[name] = try MemberCipher.encrypt(text, eventID: eventID, type: type, member: name, subject: subject,
                                                        key: key!, random: random)
            } catch {
                throw StoreError(.io, "\(type.rawValue).\(name) could not be encrypted: \(error.message)")
            }
        }
        return (sealed, 2)
    }

    /// The subject whose key `seal` asks for first, for the same arguments: nil when the event has
    /// nothing to seal (or names no subject, which `seal` refuses). What a writer looks up for a
    /// whole group at once (`KeyStore.createKeys`) before sealing its lines one by one.
    static func subject(of data: JSONObject, type: EventType, at: Timestamp, holder: (String) -> UUIDBits?) -> SubjectID? {
        guard sealedRule(data, type: type) != nil else { return nil }
        return PersonalMembers.subject(of: type, data: data, at: at, holder: holder)
    }

    /// True when an event of `type` may give `subject` its first key: not an account whose creation
    /// the log already holds (`known`: its `AccountCreated` made its key, so a missing one was lost,
    /// never to be made anew under the same subject); any other subject on first use.
    static func mayMakeKey(_ subject: SubjectID, _ type: EventType, known: (UUIDBits) -> Bool) -> Bool {
        guard let uid = subject.accountBits else { return true }
        return type == .accountCreated || !known(uid)
    }

    /// The personal members' rule of an event that data version 2 seals: nil when its type is
    /// written in version 1 or none of its personal members is present.
    private static func sealedRule(_ data: JSONObject, type: EventType) -> PersonalMembers.Rule? {
        guard DataVersions.written(type, dataVersion: 2) == 2, let rule = PersonalMembers.rule(for: type),
              rule.members.contains(where: { data[$0]?.stringValue != nil }) else { return nil }
        return rule
    }
}
