import Foundation
import LedgerDomain
import LedgerKit
import Testing

// MARK: - WitnessCLITests

/// `ledger witness` end to end, with keys from `ledger keygen`: the fork of two logs sharing a
/// prefix refused with the state unchanged, each refusal's `--json` kind and HTTP status, the
/// cosignature checked by the Python verifier, and hostile input (a huge standard input, a linked
/// .skey, a wrong key file) refused with one line.
@Suite struct WitnessCLITests {
    /// A folder with a log key pair (`log.*`) and a witness key pair (`w1.*`) made by `ledger keygen`.
    static func keys(in dir: String) throws -> NoteSigner {
        #expect(try ledger("keygen", "--name", "example.com/ledger", "--out", "log", cwd: dir).status == 0)
        #expect(try ledger("keygen", "--name", "witness.example/w1", "--out", "w1", "--cosigner", cwd: dir).status == 0)
        return try NoteKeyFiles.readSigner(dir + "/log.skey")
    }

    /// Runs `ledger witness` in `dir` on `request`.
    static func witness(_ request: [UInt8], in dir: String, json: Bool = true) throws -> ProcessResult {
        try run(Paths.ledger, ["witness", "--log-vkey", "log.vkey", "--key", "w1.skey", "--state", "w1.state"] + (json ? ["--json"] : []),
                stdin: String(decoding: request, as: UTF8.self), cwd: dir)
    }

    /// The JSON object a run printed.
    static func object(_ result: ProcessResult) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
    }

    @Test("a fork is refused with exit 1 (size-conflict 409, then bad-proof 422) and the state unchanged; an extension is cosigned")
    func forkRefused() throws {
        try withTempDirectory { dir in
            let key = try Self.keys(in: dir)
            var honest = SyntheticLog(signer: key, size: 300, shared: 250, prefix: "honest")
            let forked = SyntheticLog(signer: key, size: 300, shared: 250, prefix: "forked")
            let first = try Self.witness(honest.request(old: 0, size: 250), in: dir, json: false)
            #expect(first.status == 0 && first.stdoutLines.count == 1 && first.stdout.hasPrefix("— witness.example/w1 "), "\(first)")
            #expect(try Self.witness(honest.request(old: 250), in: dir).status == 0)
            let state = try readBytes(dir + "/w1.state")
            let conflict = try Self.witness(forked.request(old: 250), in: dir)
            let refusal = try Self.object(conflict)
            #expect(conflict.status == 1 && refusal["status"] as? String == "refused" && refusal["code"] as? String == "size-conflict")
            #expect(refusal["httpStatus"] as? Int == 409 && refusal["size"] as? Int == 300)
            #expect(conflict.stderrLines.count == 1 && conflict.stderr.hasPrefix("ledger: size-conflict: ") && conflict.stderr.contains("300"))
            let plain = try Self.witness(forked.request(old: 250), in: dir, json: false)
            #expect(plain.status == 1 && plain.stdout == "300\n" && plain.stderrLines.count == 1, "\(plain)")
            let fork = try Self.witness(forked.request(old: 300), in: dir)
            let forkObject = try Self.object(fork)
            #expect(fork.status == 1 && forkObject["code"] as? String == "bad-proof" && forkObject["httpStatus"] as? Int == 422)
            #expect(try readBytes(dir + "/w1.state") == state)
            for i in 300..<320 { honest.append("honest-\(i)") }
            let extended = try Self.witness(honest.request(old: 300), in: dir)
            let cosigned = try Self.object(extended)
            #expect(extended.status == 0 && cosigned["status"] as? String == "cosigned" && cosigned["size"] as? Int == 320 && cosigned["oldSize"] as? Int == 300)
            let line = try #require(cosigned["cosignature"] as? String)
            let note = try honest.head() + line + "\n"
            let witnessKey = try NoteKeyFiles.readVerifier(dir + "/w1.vkey")
            #expect(try SignedHead.verify(Array(note.utf8), logKey: key.verifierKey, witnessKeys: [witnessKey]).size == 320)
        }
    }

    @Test("each refusal's --json kind and HTTP status: unknown-origin 404, bad-signature 403, bad-request 400, state-damaged")
    func refusalKinds() throws {
        try withTempDirectory { dir in
            let key = try Self.keys(in: dir)
            let chain = SyntheticLog(signer: key, size: 5)
            func kind(_ request: [UInt8]) throws -> (Int32, String?, Int?) {
                let result = try Self.witness(request, in: dir)
                #expect(result.stderrLines.count == (result.status == 0 ? 0 : 1), "\(result)")
                let object = try Self.object(result)
                return (result.status, object["code"] as? String, object["httpStatus"] as? Int)
            }
            let other = SyntheticLog(signer: try TestKeys.log("example.com/other"), size: 5)
            #expect(try kind(other.request(old: 0)) == (1, "unknown-origin", 404))
            let impostor = SyntheticLog(signer: try TestKeys.log("example.com/ledger", seed: 77), size: 5)
            #expect(try kind(impostor.request(old: 0)) == (1, "bad-signature", 403))
            #expect(try kind(Array("old 0\n".utf8)) == (1, "bad-request", 400))
            #expect(try kind(Array(("old 9\n\n" + (try chain.head())).utf8)) == (1, "bad-request", 400))
            #expect(!FileManager.default.fileExists(atPath: dir + "/w1.state"))
            #expect(try kind(chain.request(old: 0)) == (0, nil, nil))
            let state = try readText(dir + "/w1.state")
            try writeBytes(Array(state.replacingFirst("\n5\n", "\n6\n").utf8), to: dir + "/w1.state")
            let damaged = try Self.witness(chain.request(old: 5), in: dir)
            let damagedObject = try Self.object(damaged)
            #expect(damaged.status == 1 && damagedObject["code"] as? String == "state-damaged")
        }
    }

    @Test("hostile input: a huge standard input is bad-request without being buffered; a linked .skey and wrong key files are refused")
    func hostileInput() throws {
        try withTempDirectory { dir in
            _ = try Self.keys(in: dir)
            let huge = [UInt8](repeating: UInt8(ascii: "A"), count: 8 * 1024 * 1024)
            let big = try Self.witness(huge, in: dir)
            let bigObject = try Self.object(big)
            #expect(big.status == 1 && bigObject["code"] as? String == "bad-request")
            try FileManager.default.createSymbolicLink(atPath: dir + "/linked.skey", withDestinationPath: dir + "/w1.skey")
            let linked = try run(Paths.ledger, ["witness", "--log-vkey", "log.vkey", "--key", "linked.skey", "--state", "s", "--json"], stdin: "", cwd: dir)
            #expect(linked.status == 3 && linked.stdout.contains("\"code\":\"not-regular-file\""), "\(linked)")
            let swapped = try run(Paths.ledger, ["witness", "--log-vkey", "w1.vkey", "--key", "w1.skey", "--state", "s", "--json"], stdin: "", cwd: dir)
            #expect(swapped.status == 2 && swapped.stdout.contains("\"code\":\"malformed-key\""), "\(swapped)")
            let logAsWitness = try run(Paths.ledger, ["witness", "--log-vkey", "log.vkey", "--key", "log.skey", "--state", "s"], stdin: "", cwd: dir)
            #expect(logAsWitness.status == 2 && !logAsWitness.stderr.contains("PRIVATE"))
            try writeBytes(Array("PRIVATE+KEY+x+00000000+AAAA\nsecond line\n".utf8), to: dir + "/bad.skey")
            let bad = try run(Paths.ledger, ["witness", "--log-vkey", "log.vkey", "--key", "bad.skey", "--state", "s"], stdin: "", cwd: dir)
            #expect(bad.status == 2 && !bad.stderr.contains("AAAA") && bad.stderrLines.count == 1, "\(bad)")
            #expect(try run(Paths.ledger, ["witness", "--log-vkey", "log.vkey", "--key", "w1.skey"], stdin: "", cwd: dir).status == 2)
            #expect(!FileManager.default.fileExists(atPath: dir + "/s"))
        }
    }
}
