// MARK: - Facts from slots

extension DataSlots {
    /// The payload of `type` as the views keep it, when every member its decoder requires is present
    /// and passes the decoder's checks (`AccountCreated(data:)` and the others); nil otherwise.
    /// `mutating` only so the caller's slots are passed in place (it changes nothing): a plain
    /// method got a copy of all 18 slots per line.
    mutating func fact(of type: EventType, in line: UnsafeBufferPointer<UInt8>) -> ViewEvent.Fact? {
        switch type {
        case .accountCreated:
            guard let uid = uuid(.uid, in: line), let email = email(in: line),
                  satisfies(.passwordHash, in: line, DataReader.isCryptHash(bytes:)),
                  case let withImage = optionalBool(.withImage), withImage.valid else { return nil }
            return .accountCreated(uid: uid, email: email, withImage: withImage.value)
        case .imageStored:
            guard let uid = uuid(.uid, in: line), let image = uuid(.imageName, in: line),
                  let name = plain(.imageName, in: line), let path = plain(.path, in: line), path.count == 14 + 36,
                  equal(path.baseAddress!, "profile_image/"), (0..<36).allSatisfy({ path[14 + $0] == name[$0] }),
                  let contentType = contentType(in: line), let bytes = int(.bytes, in: line), let sha256 = digest(.sha256, in: line)
            else { return nil }
            return .imageStored(uid: uid, image: image, contentType: contentType, bytes: bytes, sha256: sha256)
        case .profileWritten:
            let imageSlot = self[.profileImageName].kind
            guard imageSlot == .null || imageSlot == .string, let uid = uuid(.uid, in: line), isEmail(in: line),
                  let userName = string(.userName, in: line), !userName.isEmpty, let createdAt = timestamp(.createdAt, in: line)
            else { return nil }
            var image: UUIDBits?
            if imageSlot == .string {
                guard let bits = uuid(.profileImageName, in: line) else { return nil }
                image = bits
            }
            return .profileWritten(uid: uid, userName: userName, profileImage: image, createdAt: createdAt)
        case .failed:
            guard let stepText = string(.step, in: line), let step = RegistrationStep(rawValue: stepText),
                  let reason = string(.reason, in: line), DataReader.isKebabCase(reason),
                  let message = string(.message, in: line) else { return nil }
            var email: String?, uid: String?
            switch self[.email].kind {
            case .absent: break
            case .string, .escapedString: email = string(.email, in: line)
            default: return nil
            }
            if self[.uid].kind != .absent {
                guard let bits = uuid(.uid, in: line) else { return nil }
                uid = bits.uuidString
            }
            return .failed(Failed(step: step, reason: reason, message: message, email: email, uid: uid))
        case .imageDeleted:
            guard uuid(.uid, in: line) != nil, let image = uuid(.imageName, in: line), equals(.reason, "compensation", in: line)
            else { return nil }
            return .imageDeleted(image: image)
        case .accountDeleted:
            guard let uid = uuid(.uid, in: line), equals(.reason, "compensation", in: line) else { return nil }
            return .accountDeleted(uid: uid)
        case .sessionStarted:
            guard let session = uuid(.sessionId, in: line), let uid = uuid(.uid, in: line),
                  digest(.tokenHash, in: line) != nil, let expiresAt = timestamp(.expiresAt, in: line) else { return nil }
            return .sessionStarted(session: session, uid: uid, expiresAt: expiresAt)
        case .sessionEnded:
            guard let session = uuid(.sessionId, in: line), uuid(.uid, in: line) != nil,
                  let reason = string(.reason, in: line), DataReader.isKebabCase(reason) else { return nil }
            return .sessionEnded(session: session)
        case .signInFailed:
            guard let email = string(.email, in: line), let reasonText = string(.reason, in: line),
                  let reason = SignInFailure(rawValue: reasonText) else { return nil }
            return .signInFailed(email: email, reason: reason)
        }
    }

    // MARK: - Member checks

    /// A normalized email: a non-empty string without capitals.
    private func email(in line: UnsafeBufferPointer<UInt8>) -> String? {
        guard isEmail(in: line) else { return nil }
        return string(.email, in: line)
    }

    /// True when the email member is a normalized email (checked in place when it has no escapes).
    private func isEmail(in line: UnsafeBufferPointer<UInt8>) -> Bool {
        satisfies(.email, in: line) { !$0.isEmpty && DataReader.isLowercase(bytes: $0) }
    }

    /// True when string member `key` is present and its UTF-8 passes `test`: read in place, or
    /// decoded first when it has escapes.
    private func satisfies(_ key: Key, in line: UnsafeBufferPointer<UInt8>, _ test: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        if let raw = plain(key, in: line) { return test(raw) }
        guard var text = string(key, in: line) else { return false }
        return text.withUTF8(test)
    }

    /// An optional boolean: absent or null is nil; any other kind is not valid.
    private func optionalBool(_ key: Key) -> (value: Bool?, valid: Bool) {
        switch self[key].kind {
        case .absent, .null: (nil, true)
        case .trueValue: (true, true)
        case .falseValue: (false, true)
        default: (nil, false)
        }
    }

    /// `image/jpeg` or `image/png`.
    private func contentType(in line: UnsafeBufferPointer<UInt8>) -> ImageContentType? {
        if equals(.contentType, "image/jpeg", in: line) { return .jpeg }
        if equals(.contentType, "image/png", in: line) { return .png }
        return nil
    }
}
