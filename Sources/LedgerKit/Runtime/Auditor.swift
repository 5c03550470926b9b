import LedgerDomain

// MARK: - Anomaly

/// Something that must never exist in a healthy ledger.
public struct Anomaly: Equatable, Sendable {
    /// `account-without-profile`, `orphan-image-file`, `foreign-file`, `missing-image-file`, `image-mismatch`, `interrupted`,
    /// or a `RuleBreak.Kind`: `duplicate-live-account`, `signin-while-locked`, `password-checked-while-locked`,
    /// `session-without-account`, `token-redeemed-twice`, `session-active-after-disable`.
    public var kind: String
    /// The member naming the subject: `registration`, `uid`, `imageName` or `file`.
    public var key: String
    /// The subject's id.
    public var value: String
    /// A human explanation.
    public var message: String
}

// MARK: - Auditor

/// Finds the anomalies of a ledger: views against the blob folder and the registration locks.
public enum Auditor {
    /// The blob folder and running registrations, captured *before* the log is read: a blob that a
    /// registration stores and records meanwhile then shows up in the views, never as an orphan.
    public struct Snapshot {
        /// Blob names present.
        public let files: [String]
        /// Image names noted by registrations that live processes are running.
        public let running: Set<String>
        /// The blob folder, when the blobs are files (what each name is also depends on its kind of file).
        public var folder: String? = nil

        /// What each name present is.
        var entries: [BlobFolderEntry] { files.map { name in folder.map { BlobFolderEntry(name: name, in: $0) } ?? BlobFolderEntry(name: name) } }
    }

    /// Captures the blob folder and the running registrations; call it before loading the views.
    /// Throws when either cannot be read (e.g. a linked `profile_image/` or `locks/`), rather than
    /// reporting every stored image as missing.
    public static func snapshot(blobs: any BlobStore, locks: any RegistrationLocks) throws -> Snapshot {
        Snapshot(files: try blobs.names(), running: try locks.imagesOfRunningRegistrations(), folder: (blobs as? FileBlobStore)?.folder)
    }

    /// The anomalies of `views` at `now` (their as-of instant), with blobs in `blobs` and the registration locks `locks`.
    public static func anomalies(_ views: LedgerViews, at now: Timestamp, blobs: any BlobStore, locks: any RegistrationLocks,
                                 snapshot: Snapshot) -> [Anomaly] {
        var out: [Anomaly] = []
        forEachAnomaly(views, at: now, blobs: blobs, locks: locks, snapshot: snapshot) { out.append($0) }
        return out
    }

    /// Calls `body` with each anomaly `anomalies` returns, in the same order, as it is found: a
    /// caller that writes them out holds none (a folder missing every image file has one per image).
    public static func forEachAnomaly(_ views: LedgerViews, at now: Timestamp, blobs: any BlobStore, locks: any RegistrationLocks,
                                      snapshot: Snapshot, _ body: (Anomaly) -> Void) {
        views.registrations.forEachRow { state in
            switch state.outcome {
            case .inProgress where !locks.isHeld(state.registration):
                body(Anomaly(kind: "interrupted", key: "registration", value: state.registration,
                                   message: "registration \(state.registration) has no terminal event and its process is gone; run `ledger recover`"))
            case .compensationPending:
                if let uid = state.uid, state.accountLive {
                    body(Anomaly(kind: "account-without-profile", key: "uid", value: uid,
                                       message: "account \(uid) is live without a profile although its registration failed; run `ledger recover`"))
                }
            default:
                break
            }
        }
        for broken in views.ruleBreaks + views.ruleBreaksAfterwards(at: now) {
            body(Anomaly(kind: broken.kind.rawValue, key: "uid", value: broken.uid.uuidString, message: message(broken)))
        }
        for entry in snapshot.entries {
            if case .foreign(let name) = entry {
                body(Anomaly(kind: "foreign-file", key: "file", value: name,
                                   message: "profile_image/\(name) is not a file ledger writes (images are named by a UUID); "
                                       + "move it out of the data folder: ledger never removes a file it did not write"))
            } else if entry.isOrphan(images: views.images, running: snapshot.running) {
                body(Anomaly(kind: "orphan-image-file", key: "imageName", value: entry.name,
                                   message: "image file \(entry.name) has no ImageStored event (or was deleted); run `ledger recover`"))
            }
        }
        views.images.forEachRow(status: .stored) { row in
            guard let bytes = try? blobs.get(row.imageName) else {
                body(Anomaly(kind: "missing-image-file", key: "imageName", value: row.imageName,
                                   message: "image \(row.imageName) is recorded as stored but its file is missing"))
                return
            }
            if bytes.count != row.bytes || SHA256.hex(bytes) != row.sha256 {
                body(Anomaly(kind: "image-mismatch", key: "imageName", value: row.imageName,
                                   message: "image \(row.imageName) does not match its recorded size and sha256"))
            }
        }
    }

    /// What a rule break means, for an operator.
    private static func message(_ broken: RuleBreak) -> String {
        let uid = broken.uid.uuidString
        switch broken.kind {
        case .duplicateLiveAccount:
            return "account \(uid) was created (seq \(broken.seq)) for an email that a live account already held: two live accounts for one email"
        case .signinWhileLocked:
            return "a session of account \(uid) started (seq \(broken.seq)) while its email was locked out by wrong passwords"
        case .passwordCheckedWhileLocked:
            return "a wrong password was checked (seq \(broken.seq)) for account \(uid) while its email was locked out: more password checks than the lockout allows"
        case .sessionWithoutAccount:
            return "a session started (seq \(broken.seq)) for account \(uid), which was never created, is deleted or has no profile"
        case .tokenRedeemedTwice:
            return "a token of account \(uid) was redeemed (seq \(broken.seq)) when it had no unused one: a token redeemed twice"
        case .sessionActiveAfterDisable:
            return "a session of account \(uid) is still active although the account was disabled or deleted (seq \(broken.seq)); end it with `ledger account sign-out-everywhere`"
        }
    }
}
