import Foundation
import LedgerKit
import Testing

// `ledger login` / `logout` / `sessions` end to end, the lockout, and the secrets rules:
// the password never reaches a file or an output; the token is kept only as its SHA-256.

@Suite struct SessionCLITests {
    private let password = "correct horse battery"

    /// Registers `email` and returns its uid.
    private func registered(_ dir: LedgerDir, _ email: String) throws -> String {
        let result = try dir.register(email: email, password: password)
        try #require(result.status == 0, "\(result)")
        return try #require(try parseObject(result.stdout)["uid"] as? String)
    }

    @Test func loginStartsASession() throws {
        try withLedgerDir { dir in
            let email = uniqueEmail()
            let uid = try registered(dir, email)
            let login = try dir.login(email: email.uppercased(), password: password)
            #expect(login.status == 0, "\(login)")
            let output = try parseObject(login.stdout)
            #expect(keys(output) == ["status", "sessionId", "uid", "token", "expiresAt"])
            #expect(output["status"] as? String == "signed-in")
            #expect(output["uid"] as? String == uid)
            let sessionId = try #require(output["sessionId"] as? String)
            let token = try #require(output["token"] as? String)
            let started = try #require(try dir.data(of: "SessionStarted").first { $0["sessionId"] as? String == sessionId })
            #expect(started["uid"] as? String == uid)
            #expect(started["tokenHash"] as? String == SHA256.hex(token))
            #expect(started["expiresAt"] as? String == output["expiresAt"] as? String)
            #expect(try dir.data(of: "SignInFailed").isEmpty)
        }
    }

    @Test func unknownEmailAndWrongPasswordLookTheSame() throws {
        try withLedgerDir { dir in
            let email = uniqueEmail()
            _ = try registered(dir, email)
            for json in [true, false] {
                let unknown = try dir.login(email: uniqueEmail("nobody"), password: password, json: json)
                let wrong = try dir.login(email: email, password: "not the password", json: json)
                #expect(unknown.status == 1, "\(unknown)")
                #expect(wrong.status == 1, "\(wrong)")
                #expect(unknown.stdout == wrong.stdout)
                #expect(unknown.stderr == wrong.stderr)
                #expect(!(unknown.stdout + unknown.stderr).isEmpty, "a refusal says something")
                #expect(!(wrong.stdout + wrong.stderr).contains("wrong-password"))
                #expect(!(unknown.stdout + unknown.stderr).contains("unknown-email"))
            }
            let reasons = try dir.data(of: "SignInFailed").compactMap { $0["reason"] as? String }
            #expect(reasons == ["unknown-email", "wrong-password", "unknown-email", "wrong-password"])
            #expect(try dir.data(of: "SignInFailed")[1]["email"] as? String == email)
            #expect(try dir.data(of: "SessionStarted").count == 1, "only register's session")
        }
    }

    @Test func fiveWrongPasswordsLockTheAccount() throws {
        try withLedgerDir { dir in
            let email = uniqueEmail("locked")
            _ = try registered(dir, email)
            for _ in 0..<5 { #expect(try dir.login(email: email, password: "guess guess").status == 1) }
            let wrong = try dir.login(email: email, password: "guess guess")
            let right = try dir.login(email: email, password: password)
            #expect(right.status == 1, "locked: even the right password is refused: \(right)")
            #expect(right.stdout == wrong.stdout, "a locked account looks like any refusal")
            let reasons = try dir.data(of: "SignInFailed").compactMap { $0["reason"] as? String }
            #expect(reasons == Array(repeating: "wrong-password", count: 5) + ["locked", "locked"])
            #expect(try dir.data(of: "SessionStarted").count == 1)

            let audit = try dir.run(["audit", "--json"])
            #expect(audit.status == 0, "no anomaly: \(audit)")
            let rows = try parseObject(audit.stdout)["signInFailures"] as? [[String: Any]] ?? []
            let row = try #require(rows.first { $0["email"] as? String == email })
            #expect(keys(row) == ["email", "failures", "locked"])
            #expect(row["locked"] as? Bool == true)
            #expect(row["failures"] as? Int == 7)
        }
    }

    @Test func logoutEndsTheSessionOnce() throws {
        try withLedgerDir { dir in
            let email = uniqueEmail()
            let uid = try registered(dir, email)
            let login = try parseObject(try dir.login(email: email, password: password).stdout)
            let sessionId = try #require(login["sessionId"] as? String)

            let logout = try dir.run(["logout", "--session", sessionId])
            #expect(logout.status == 0, "\(logout)")
            let ended = try dir.data(of: "SessionEnded")
            #expect(ended.count == 1)
            #expect(ended.first?["sessionId"] as? String == sessionId)
            #expect(ended.first?["uid"] as? String == uid)
            #expect(ended.first?["reason"] as? String == "logout")

            let sessions = try #require(try dir.json(["sessions"]) as? [[String: Any]])
            let row = try #require(sessions.first { $0["sessionId"] as? String == sessionId })
            #expect(row["status"] as? String == "ended")
            #expect(row["endedAt"] as? String != nil)
            #expect(sessions.filter { $0["status"] as? String == "active" }.count == 1, "register's session stays active")
            let active = try #require(try dir.json(["sessions", "--active"]) as? [[String: Any]])
            #expect(!active.contains { $0["sessionId"] as? String == sessionId })

            let before = try dir.logBytes()
            let again = try dir.run(["logout", "--session", sessionId])
            #expect(again.status == 1, "\(again)")
            #expect(again.stderr.contains(sessionId))
            let unknown = try dir.run(["logout", "--session", UUID().uuidString.lowercased()])
            #expect(unknown.status == 1, "\(unknown)")
            #expect(try dir.logBytes() == before)
        }
    }

    @Test func passwordNeverReachesAFileOrAnOutputAndTheTokenIsOnlyHashed() throws {
        try withLedgerDir { dir in
            let canary = "canary-\(UUID().uuidString)-pw"
            let wrongCanary = "wrong-canary-\(UUID().uuidString)"
            let email = uniqueEmail("canary")
            var outputs: [ProcessResult] = []

            let register = try dir.register(email: email, password: canary, image: samplePNG)
            outputs.append(register)
            #expect(register.status == 0, "\(register)")
            let registerToken = try #require(try parseObject(register.stdout)["token"] as? String)
            outputs.append(try dir.login(email: email, password: canary))
            outputs.append(try dir.login(email: email, password: canary, json: false))
            outputs.append(try dir.login(email: email, password: wrongCanary))
            outputs.append(try dir.login(email: email, password: wrongCanary, json: false))
            #expect(outputs.map(\.status) == [0, 0, 0, 1, 1])
            let loginToken = try #require(try parseObject(outputs[1].stdout)["token"] as? String)
            // Failure paths too: a compensated sign-up, a crashed one (its lock file stays), a refused one.
            outputs.append(try dir.register(email: uniqueEmail("canary"), password: canary, image: samplePNG,
                                            env: ["LEDGER_FAILPOINTS": "ProfileWritten=error"]))
            outputs.append(try dir.register(email: uniqueEmail("canary"), password: canary, image: samplePNG,
                                            env: ["LEDGER_FAILPOINTS": "ImageStored=crash"]))
            outputs.append(try dir.register(email: "not-an-email", password: canary))
            outputs.append(try dir.run(["register", "--email", uniqueEmail(), "--username", "Text", "--password-stdin"], stdin: canary + "\n"))
            outputs.append(try dir.run(["users", "--json"]))
            outputs.append(try dir.run(["audit"]))
            outputs.append(try dir.run(["events", "--json"]))
            #expect(outputs[6].status == 137, "\(outputs[6])")

            // Every file under the data folder, while the crashed registration's lock is there and after recover.
            let secrets = [canary, wrongCanary, registerToken, loginToken]
            func scanFiles() throws -> [String] {
                let files = dir.allFiles()
                for path in files {
                    let text = String(decoding: try readBytes(path), as: UTF8.self)
                    for secret in secrets { #expect(!text.contains(secret), "\(path) holds a secret") }
                }
                return files
            }
            let files = try scanFiles()
            #expect(files.contains(dir.logPath))
            #expect(files.contains { $0.contains("/locks/") }, "the crashed registration leaves its lock file: \(files)")
            outputs.append(try dir.run(["recover"]))
            #expect(outputs.last?.status == 0)
            _ = try scanFiles()
            for output in outputs {
                for secret in [canary, wrongCanary] {
                    #expect(!output.stdout.contains(secret) && !output.stderr.contains(secret), "\(output)")
                }
            }
            let hashes = try dir.data(of: "SessionStarted").compactMap { $0["tokenHash"] as? String }
            #expect(hashes.contains(SHA256.hex(registerToken)))
            #expect(hashes.contains(SHA256.hex(loginToken)))
        }
    }
}
