import Foundation
import LedgerKit
import Testing

// `ledger register` end to end: refusals, the password input rules, idempotency keys,
// concurrent sign-ups, and the stored password hash.

/// The image argument of a refusal case, materialized in a scratch folder by the test.
enum ImageInput: String, Sendable {
    case none, textRenamedPNG, jpegSOIOnly, jpegWithoutEnd, pngSignatureOnly, threeMiB, dotDotPath, symlink
}

/// One registration the validation step must refuse.
struct RefusalCase: CustomTestStringConvertible, Sendable {
    let label: String
    var email: String? = "refused@example.com"
    var username: String? = "Refused User"
    var password = "long enough password"
    var image = ImageInput.none
    /// The `Failed` reason.
    let reason: String

    var testDescription: String { label }

    static let all: [RefusalCase] = [
        RefusalCase(label: "text file renamed .png", image: .textRenamedPNG, reason: "invalid-image"),
        RefusalCase(label: "JPEG of FF D8 only", image: .jpegSOIOnly, reason: "invalid-image"),
        RefusalCase(label: "JPEG header without FF D9 end", image: .jpegWithoutEnd, reason: "invalid-image"),
        RefusalCase(label: "PNG signature only", image: .pngSignatureOnly, reason: "invalid-image"),
        RefusalCase(label: "3 MiB PNG", image: .threeMiB, reason: "image-too-large"),
        RefusalCase(label: "image path with ..", image: .dotDotPath, reason: "invalid-image-path"),
        RefusalCase(label: "image is a symlink", image: .symlink, reason: "invalid-image-path"),
        RefusalCase(label: "invalid email", email: "not-an-email", reason: "invalid-email"),
        RefusalCase(label: "email without top-level domain", email: "a@b", reason: "invalid-email"),
        RefusalCase(label: "local part starting with a dot", email: ".test@example.com", reason: "invalid-email"),
        RefusalCase(label: "local part ending with a dot", email: "test.@example.com", reason: "invalid-email"),
        RefusalCase(label: "local part with two dots in a row", email: "first..last@example.com", reason: "invalid-email"),
        RefusalCase(label: "domain in Unicode", email: "user@müller.de", reason: "invalid-email"),
        RefusalCase(label: "email of 255 characters", email: String(repeating: "a", count: 64) + "@" + String(repeating: "b", count: 186) + ".com",
                    reason: "invalid-email"),
        RefusalCase(label: "username of spaces only", username: "   ", reason: "invalid-username"),
        RefusalCase(label: "password of 7 characters", password: "seven77", reason: "password-too-short"),
        RefusalCase(label: "username of 65 characters", username: String(repeating: "u", count: 65), reason: "invalid-username"),
        RefusalCase(label: "username with a control character", username: "bad\u{7}name", reason: "invalid-username"),
        RefusalCase(label: "missing --username", username: nil, reason: "missing-username"),
        RefusalCase(label: "missing --email", email: nil, reason: "missing-email"),
    ]
}

@Suite struct RegisterCLITests {
    /// Writes the image of `input` under `folder` and returns the path to pass to `--image`.
    private func materialize(_ input: ImageInput, in folder: String) throws -> String? {
        let png = try readBytes(samplePNG)
        let path = folder + "/image.png"
        switch input {
        case .none: return nil
        case .textRenamedPNG: try writeBytes(Array("just some text, not a picture\n".utf8), to: path)
        case .jpegSOIOnly: try writeBytes([0xFF, 0xD8], to: path)
        case .jpegWithoutEnd: try writeBytes([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01], to: path)
        case .pngSignatureOnly: try writeBytes(Array(png.prefix(8)), to: path)
        case .threeMiB: try writeBytes(png + [UInt8](repeating: 0, count: 3 * 1024 * 1024 - png.count), to: path)
        case .dotDotPath:
            // A real, valid PNG, reached through `..`: refused for the path alone.
            try writeBytes(png, to: path)
            try FileManager.default.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: true)
            return folder + "/sub/../image.png"
        case .symlink:
            try writeBytes(png, to: path)
            try FileManager.default.createSymbolicLink(atPath: folder + "/link.png", withDestinationPath: path)
            return folder + "/link.png"
        }
        return path
    }

    @Test(arguments: RefusalCase.all)
    func refusalWritesNoAccountAndNoImage(_ refusal: RefusalCase) throws {
        try withTempDirectory("ledger-inputs") { inputs in
            try withLedgerDir { dir in
                let image = try materialize(refusal.image, in: inputs)
                let arguments = LedgerDir.registerArguments(email: refusal.email, username: refusal.username, image: image)
                let result = try dir.run(arguments, stdin: refusal.password + "\n")
                #expect(result.status == 1, "\(result)")
                let output = try parseObject(result.stdout)
                #expect(keys(output) == ["status", "registration", "step", "reason", "outcome"])
                #expect(output["status"] as? String == "failed")
                #expect(output["step"] as? String == "validation")
                #expect(output["outcome"] as? String == "rejected")
                #expect(output["reason"] as? String == refusal.reason)

                // Without --json: a clear one-line explanation.
                let text = try dir.run(arguments.filter { $0 != "--json" }, stdin: refusal.password + "\n")
                #expect(text.status == 1, "\(text)")
                #expect(text.stdout.contains("failed at step validation: \(refusal.reason) — "), "\(text)")
                #expect(text.stdout.contains("outcome: rejected"))

                // The log holds two Failed events and nothing else; no image file.
                let events = try dir.events()
                #expect(events.map { $0["type"] as? String } == ["Failed", "Failed"])
                for data in try dir.data(of: "Failed") {
                    #expect(data["step"] as? String == "validation")
                    #expect(data["reason"] as? String == refusal.reason)
                    #expect((data["message"] as? String)?.isEmpty == false)
                    #expect(data["uid"] == nil)
                }
                #expect(try dir.data(of: "AccountCreated").isEmpty)
                #expect(dir.imageFiles().isEmpty)
                #expect(try dir.run(["audit", "--json"]).status == 0)
            }
        }
    }

    @Test func passwordMustComeFromStdinWhenStdinIsNotATerminal() throws {
        try withLedgerDir { dir in
            let noFlag = try dir.run(["register", "--email", uniqueEmail(), "--username", "U"], stdin: "long enough password\n")
            #expect(noFlag.status == 2, "\(noFlag)")
            #expect(noFlag.stderr.contains("--password-stdin"))
            #expect(noFlag.stdout.isEmpty)
            let empty = try dir.run(["register", "--email", uniqueEmail(), "--username", "U", "--password-stdin"], stdin: "")
            #expect(empty.status == 2, "\(empty)")
            #expect(try dir.logBytes().isEmpty, "a usage error writes nothing")
        }
    }

    @Test func idempotencyKeyRepeatsTheFirstOutcomeAndAppendsNothing() throws {
        try withLedgerDir { dir in
            let email = uniqueEmail()
            let first = try dir.register(email: email, image: samplePNG, extra: ["--idempotency-key", "signup-42"])
            #expect(first.status == 0, "\(first)")
            let before = try dir.logBytes()
            let second = try dir.register(email: email, image: samplePNG, extra: ["--idempotency-key", "signup-42"])
            #expect(second.status == 0, "\(second)")
            #expect(try dir.logBytes() == before)
            let a = try parseObject(first.stdout), b = try parseObject(second.stdout)
            #expect(a["registration"] as? String == b["registration"] as? String)
            #expect(a["uid"] as? String == b["uid"] as? String)
            #expect(b["status"] as? String == "registered")
            #expect(b["token"] is NSNull, "the token is shown once")
            #expect(dir.imageFiles().count == 1)

            // The email in another case is the same email: still the first outcome.
            let upper = try dir.register(email: email.uppercased(), image: samplePNG, extra: ["--idempotency-key", "signup-42"])
            #expect(upper.status == 0, "\(upper)")
            #expect(try dir.logBytes() == before)

            // A rejected outcome repeats too.
            let rejected = try dir.register(email: "nope", extra: ["--idempotency-key", "bad-1"])
            #expect(rejected.status == 1)
            let afterRejected = try dir.logBytes()
            let again = try dir.register(email: "nope", extra: ["--idempotency-key", "bad-1"])
            #expect(again.status == 1)
            #expect(try dir.logBytes() == afterRejected)
            let r1 = try parseObject(rejected.stdout), r2 = try parseObject(again.stdout)
            #expect(r1["registration"] as? String == r2["registration"] as? String)
            #expect(r2["outcome"] as? String == "rejected")
            #expect(r2["reason"] as? String == "invalid-email")
        }
    }

    /// A repeat of a key with another email, username or image (or none) is refused, exit 1 with
    /// reason `idempotency-key-reused`, and appends nothing; it never claims a registration it was not.
    @Test func idempotencyKeyWithAnotherInputIsRefused() throws {
        try withLedgerDir { dir in
            let email = uniqueEmail()
            let key = ["--idempotency-key", "signup-7"]
            let first = try dir.register(email: email, username: "First User", image: samplePNG, extra: key)
            try #require(first.status == 0, "\(first)")
            let registration = try parseObject(first.stdout)["registration"] as? String
            let before = try dir.logBytes()
            let otherJPEG = dir.path + "/other.jpg"
            try writeBytes([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0xFF, 0xD9], to: otherJPEG)

            let repeats: [(label: String, email: String, username: String, image: String?)] = [
                ("other email", uniqueEmail(), "First User", samplePNG),
                ("other username", email, "Second User", samplePNG),
                ("other image", email, "First User", otherJPEG),
                ("no image", email, "First User", nil),
            ]
            for item in repeats {
                let result = try dir.register(email: item.email, username: item.username, image: item.image, extra: key)
                #expect(result.status == 1, "\(item.label): \(result)")
                let output = try parseObject(result.stdout)
                #expect(output["status"] as? String == "refused", "\(item.label)")
                #expect(output["reason"] as? String == "idempotency-key-reused", "\(item.label)")
                #expect(output["registration"] as? String == registration, "\(item.label)")
                #expect(try dir.logBytes() == before, "\(item.label): nothing appended")
            }
            let plain = try dir.run(["register", "--email", uniqueEmail(), "--username", "First User", "--password-stdin"] + key,
                                    stdin: "correct horse 1\n")
            #expect(plain.status == 1, "\(plain)")
            #expect(plain.stderrLines.count == 1)
            #expect(plain.stderr.hasPrefix("ledger: the idempotency key was first used"), "\(plain.stderr)")
            #expect(!plain.stdout.contains("registered"))
            #expect(try dir.logBytes() == before)
        }
    }

    /// A first attempt refused at validation binds its key too: a corrected repeat is refused, the same one repeats.
    @Test func idempotencyKeyOfARejectedAttemptBindsItsInput() throws {
        try withLedgerDir { dir in
            let key = ["--idempotency-key", "bad-2"]
            let rejected = try dir.register(email: "nope", extra: key)
            try #require(rejected.status == 1, "\(rejected)")
            let before = try dir.logBytes()
            let corrected = try dir.register(email: uniqueEmail(), extra: key)
            #expect(corrected.status == 1, "\(corrected)")
            #expect(try parseObject(corrected.stdout)["reason"] as? String == "idempotency-key-reused")
            let sameError = try dir.register(email: "nope", username: "Another Name", extra: key)
            #expect(try parseObject(sameError.stdout)["reason"] as? String == "invalid-email", "validated alike: the first outcome")
            #expect(try dir.logBytes() == before)
        }
    }

    /// The password is bound too: a repeat's password is checked against the first attempt's hash.
    /// A repeat is no sign-in: its password is not compared with the first attempt's (that would
    /// make `register` a password oracle outside the lockout). Right or wrong, it gets the same
    /// answer, starts no session, shows no token and appends nothing.
    @Test func anIdempotentRepeatIsNoPasswordOracle() throws {
        try withLedgerDir { dir in
            let email = uniqueEmail("pw")
            let key = ["--idempotency-key", "signup-password"]
            let first = try dir.register(email: email, username: "First User", password: "the first password", extra: key)
            try #require(first.status == 0, "\(first)")
            let before = try dir.logBytes()
            let right = try dir.register(email: email, username: "First User", password: "the first password", extra: key)
            let wrong = try dir.register(email: email, username: "First User", password: "another password", extra: key)
            #expect(right.status == wrong.status && right.stdout == wrong.stdout && right.stderr == wrong.stderr, "\(right) \(wrong)")
            let answer = try parseObject(wrong.stdout)
            #expect(answer["token"] is NSNull && answer["sessionId"] is NSNull, "\(answer)")
            #expect(try dir.logBytes() == before, "a repeat appends nothing")
        }
    }

    @Test func anEmptyIdempotencyKeyIsAUsageError() throws {
        try withLedgerDir { dir in
            let result = try dir.register(email: uniqueEmail(), extra: ["--idempotency-key", ""])
            #expect(result.status == 2, "\(result)")
            #expect(result.stderr.contains("--idempotency-key"), "\(result.stderr)")
            #expect(try dir.logBytes().isEmpty, "nothing appended")
        }
    }

    @Test func eightProcessesWithTheSameEmailMakeOneAccount() throws {
        try withLedgerDir { dir in
            let email = uniqueEmail("same")
            let running = try (0..<8).map { n in
                try dir.start(LedgerDir.registerArguments(email: email, username: "Racer \(n)"), stdin: "long enough password\n")
            }
            let results = try running.map { try $0.wait() }
            let winners = results.filter { $0.status == 0 }
            #expect(winners.count == 1, "\(results)")
            for loser in results where loser.status != 0 {
                #expect(loser.status == 1, "\(loser)")
                let output = try parseObject(loser.stdout)
                #expect(output["reason"] as? String == "email-already-in-use")
                #expect(output["step"] as? String == "account")
                #expect(output["outcome"] as? String == "rejected")
            }
            let users = try #require(try dir.json(["users"]) as? [[String: Any]])
            #expect(users.count == 1)
            #expect(users.first?["status"] as? String == "active")
            #expect(users.first?["email"] as? String == email)
            #expect(try dir.data(of: "AccountCreated").count == 1)
            let replay = try parseObject(try dir.run(["replay", "--json"]).stdout)
            #expect(replay["registrations"] as? [String: Int] ==
                    ["completed": 1, "rejected": 7, "compensated": 0, "compensation-pending": 0, "in-progress": 0])
            #expect(try dir.run(["audit", "--json"]).status == 0)
            #expect(try dir.run(["verify"]).status == 0)
        }
    }

    @Test func eightProcessesWithDifferentEmailsMakeEightAccounts() throws {
        try withLedgerDir { dir in
            let emails = (0..<8).map { uniqueEmail("racer\($0)") }
            let running = try emails.map { email in
                try dir.start(LedgerDir.registerArguments(email: email, username: "Racer", image: samplePNG), stdin: "long enough password\n")
            }
            let results = try running.map { try $0.wait() }
            #expect(results.allSatisfy { $0.status == 0 }, "\(results)")
            let users = try #require(try dir.json(["users"]) as? [[String: Any]])
            #expect(Set(users.compactMap { $0["email"] as? String }) == Set(emails))
            #expect(users.allSatisfy { $0["status"] as? String == "active" })
            #expect(dir.imageFiles().count == 8)
            #expect(try dir.data(of: "SessionStarted").count == 8)
            #expect(try dir.run(["audit", "--json"]).status == 0)
            #expect(try dir.run(["verify"]).status == 0)
            #expect(try pythonTool("verify_log.py", [dir.logPath]).status == 0)
        }
    }

    @Test func storedPasswordHashIsYescryptThatAnotherImplementationVerifies() throws {
        try withLedgerDir { dir in
            let email = uniqueEmail(), password = "Tr0ub4dor&3 horse"
            #expect(try dir.register(email: email, password: password).status == 0)
            let hash = try #require(try dir.data(of: "AccountCreated").first?["passwordHash"] as? String)
            // Made from the prepared (NFC) password and marked so: the crypt(3) string after `$nfc`.
            #expect(hash.hasPrefix("$nfc$y$"))
            let script = "import crypt,sys; h=sys.argv[1][len('$nfc'):]; print(crypt.crypt(sys.argv[2], h) == h)"
            let good = try run(Paths.python3, ["-W", "ignore", "-c", script, hash, password])
            #expect(good.status == 0, "\(good)")
            #expect(good.stdout == "True\n", "\(good)")
            let bad = try run(Paths.python3, ["-W", "ignore", "-c", script, hash, password + "x"])
            #expect(bad.stdout == "False\n", "\(bad)")
        }
    }

    @Test func emailIsNormalizedToLowercase() throws {
        try withLedgerDir { dir in
            let email = uniqueEmail()
            #expect(try dir.register(email: "  " + email.uppercased() + " ").status == 0)
            #expect(try dir.data(of: "AccountCreated").first?["email"] as? String == email)
            let dup = try dir.register(email: email)
            #expect(dup.status == 1)
            #expect(try parseObject(dup.stdout)["reason"] as? String == "email-already-in-use")
        }
    }

    /// The durability target: a registration without an image syncs its new account's data key
    /// once (data version 2: the key is durable before any line it encrypts), then the log once (its
    /// account, its profile and its first session are one write) — counted by failing each fsync in
    /// turn (`LEDGER_IO_FAULTS`; a failed fsync of the log ends with 3) on a folder that already holds a log.
    @Test func aRegistrationWithoutAnImageSyncsItsKeyThenTheLogOnce() throws {
        try withLedgerDir { dir in
            let setup = try dir.register(email: uniqueEmail(), env: noIOFaults)
            #expect(setup.status == 0)
            #expect(FileManager.default.fileExists(atPath: dir.path + "/events.keys"))
            var before: Int = try dir.events().count
            let key = try dir.register(email: uniqueEmail(), env: ioFaults("fsync=1"))
            #expect(key.status == 1, "\(key)")  // the key's sync: nothing of the account is written
            let refusal = try parseObject(key.stdout)
            #expect(refusal["step"] as? String == "account" && refusal["reason"] as? String == "io-error", "\(key)")
            #expect(try dir.events().dropFirst(before).map { $0["type"] as? String } == ["Failed"])
            before = try dir.events().count
            let first = try dir.register(email: uniqueEmail(), env: ioFaults("fsync=2"))
            #expect(first.status == 3, "\(first)")
            let types = try dir.events().dropFirst(before).map { $0["type"] as? String }
            #expect(types == ["AccountCreated", "ProfileWritten", "SessionStarted"])  // one write, one fsync
            let second = try dir.register(email: uniqueEmail(), env: ioFaults("fsync=3"))
            #expect(second.status == 0, "\(second)")  // there is no 3rd fsync
            let reply: [String: Any] = try parseObject(second.stdout)
            let session: String? = reply["sessionId"] as? String
            #expect(session != nil)
            #expect(try dir.run(["audit", "--json"], env: noIOFaults).status == 0)
        }
    }

    /// The same target with an image: the blob and its folder are synced first (2), then the new
    /// account's data key (1), then the account, the image, the profile and the first session are
    /// one write and one fsync of the log (1). Counted by failing each fsync in turn on a folder that
    /// already holds a log (and, made by the first registration, `profile_image/`): a failure of the
    /// blob's is the image step's and of the key's the account step's, so nothing is created and the
    /// blob is not kept; the 4th fsync is the log's, with all four events behind it.
    @Test func aRegistrationWithAnImageSyncsItsBlobTwiceItsKeyThenTheLogOnce() throws {
        try withLedgerDir { dir in
            let setup = try dir.register(email: uniqueEmail(), env: noIOFaults)
            #expect(setup.status == 0)
            #expect(dir.imageFiles().isEmpty)
            for fsync in [1, 2] {  // the blob's temp file, then profile_image/ after the rename
                let before = try dir.events().count
                let failed = try dir.register(email: uniqueEmail(), image: samplePNG, env: ioFaults("fsync=\(fsync)"))
                #expect(failed.status == 1, "fsync=\(fsync): \(failed)")
                let reply = try parseObject(failed.stdout)
                #expect(reply["step"] as? String == "image" && reply["outcome"] as? String == "rejected", "fsync=\(fsync): \(failed)")
                #expect(try dir.events().count == before + 1, "fsync=\(fsync): only its Failed")
                #expect(dir.imageFiles().isEmpty, "fsync=\(fsync): the blob is not kept")
            }
            var before = try dir.events().count
            let key = try dir.register(email: uniqueEmail(), image: samplePNG, env: ioFaults("fsync=3"))
            #expect(key.status == 1, "\(key)")
            let refusal = try parseObject(key.stdout)
            #expect(refusal["step"] as? String == "account" && refusal["outcome"] as? String == "rejected", "\(key)")
            #expect(try dir.events().dropFirst(before).map { $0["type"] as? String } == ["Failed"], "only its Failed")
            #expect(dir.imageFiles().isEmpty, "the blob is not kept")
            before = try dir.events().count
            let third = try dir.register(email: uniqueEmail(), image: samplePNG, env: ioFaults("fsync=4"))
            #expect(third.status == 3, "\(third)")
            let types = try dir.events().dropFirst(before).map { $0["type"] as? String }
            #expect(types == ["AccountCreated", "ImageStored", "ProfileWritten", "SessionStarted"])  // one write, one fsync
            #expect(dir.imageFiles().count == 1)
            _ = try dir.run(["recover"], env: noIOFaults)
            let fourth = try dir.register(email: uniqueEmail(), image: samplePNG, env: ioFaults("fsync=5"))
            #expect(fourth.status == 0, "\(fourth)")  // there is no 5th fsync
            #expect(try parseObject(fourth.stdout)["sessionId"] is String)
            #expect(dir.imageFiles().count == 2)
            #expect(try dir.run(["audit", "--json"], env: noIOFaults).status == 0)
        }
    }
}
