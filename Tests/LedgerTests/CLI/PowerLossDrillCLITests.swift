import Foundation
import Testing

// `LEDGER_FAILPOINTS=EVENT=power-loss`: the write that holds EVENT is durable only up to the line
// before it, then the process dies, as a power cut mid-write leaves it: a batch cut short, which
// is not part of the log (the `recover` drill of Docs/Reliability.md), through the built `ledger`.

@Suite struct PowerLossDrillCLITests {
    @Test func aRegistrationCutBeforeItsProfileIsNotPartOfTheLog() throws {
        try withLedgerDir { dir in
            let cut = try dir.register(email: uniqueEmail("cut"), image: samplePNG, env: ["LEDGER_FAILPOINTS": "ProfileWritten=power-loss"])
            #expect(cut.status == 137, "killed: \(cut)")
            #expect(cut.stdout.isEmpty, "nothing acknowledged")
            let lines = try dir.events()
            #expect(lines.compactMap { $0["type"] as? String } == ["AccountCreated", "ImageStored"], "only the lines before ProfileWritten")
            #expect(lines.compactMap { $0["batch"] as? [Int] } == [[1, 4], [2, 4]], "as the whole batch's write has them")
            let blob = try #require(dir.imageFiles().first)

            // Lines 1-2 of a batch of 4: a batch cut short, a torn tail; the blob is an orphan.
            let audit = try dir.run(["audit", "--json"])
            #expect(audit.status == 1, "\(audit)")
            let anomalies = try parseObject(audit.stdout)["anomalies"] as? [[String: Any]] ?? []
            #expect(anomalies.compactMap { $0["kind"] as? String } == ["orphan-image-file"])
            let verify = try dir.run(["verify"])
            #expect(verify.status == 1 && verify.stdout.contains("line 1: torn-tail: the log ends inside a batch"), "\(verify)")

            let recover = try dir.run(["recover", "--json"])
            #expect(recover.status == 0, "\(recover)")
            let report = try parseObject(recover.stdout)
            #expect(report["repairedTornTail"] as? Bool == true)
            #expect((report["interrupted"] as? [String])?.isEmpty == true)
            #expect(report["removedImages"] as? [String] == [blob])
            #expect(try dir.events().isEmpty)
            #expect(dir.imageFiles().isEmpty)
            #expect(try dir.run(["audit", "--json"]).status == 0)
            #expect(try dir.run(["verify"]).status == 0)
        }
    }

    @Test func aCutBeforeTheBatchsFirstLineLeavesOnlyTheBlob() throws {
        try withLedgerDir { dir in
            #expect(try dir.register(email: uniqueEmail("healthy")).status == 0)
            let before = try dir.logBytes()
            let cut = try dir.register(email: uniqueEmail("first"), image: samplePNG, env: ["LEDGER_FAILPOINTS": "AccountCreated=power-loss"])
            #expect(cut.status == 137, "\(cut)")
            #expect(try dir.logBytes() == before, "no line of the batch is durable")
            let blob = try #require(dir.imageFiles().first)
            let audit = try dir.run(["audit", "--json"])
            let anomalies = try parseObject(audit.stdout)["anomalies"] as? [[String: Any]] ?? []
            #expect(anomalies.compactMap { $0["kind"] as? String } == ["orphan-image-file"], "\(audit)")
            let recover = try parseObject(try dir.run(["recover", "--json"]).stdout)
            #expect(recover["removedImages"] as? [String] == [blob])
            #expect(dir.imageFiles().isEmpty)
        }
    }

    @Test func aLoginCutBeforeItsSessionWritesNothing() throws {
        try withLedgerDir { dir in
            let email = uniqueEmail("login")
            #expect(try dir.register(email: email).status == 0)
            let before = try dir.logBytes()
            let login = try dir.run(["login", "--email", email, "--password-stdin", "--json"], stdin: "correct horse 1\n",
                                    env: ["LEDGER_FAILPOINTS": "SessionStarted=power-loss"])
            #expect(login.status == 137, "\(login)")
            #expect(login.stdout.isEmpty, "no token shown")
            #expect(try dir.logBytes() == before)
        }
    }
}
