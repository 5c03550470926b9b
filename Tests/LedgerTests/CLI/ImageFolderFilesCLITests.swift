import Foundation
import LedgerKit
import Testing

// What `audit` says of the files in `profile_image/` and what `recover` does with them agree:
// every anomaly that points to `recover` is cleared by it; a file the ledger never writes is a
// `foreign-file`, left for the operator, and a link there is removed as a name, never followed.

@Suite struct ImageFolderFilesCLITests {
    /// The anomalies `audit --json` reports, and its exit status.
    private func audit(_ dir: LedgerDir) throws -> (anomalies: [[String: Any]], status: Int32) {
        let result = try dir.run(["audit", "--json"])
        return (try parseObject(result.stdout)["anomalies"] as? [[String: Any]] ?? [], result.status)
    }

    @Test func everyAnomalyThatPointsToRecoverIsClearedByIt() throws {
        try withTempDirectory { outside in
            try withLedgerDir { dir in
                let ok = try dir.register(email: uniqueEmail(), image: samplePNG)
                try #require(ok.status == 0, "\(ok)")
                let kept = dir.imageFiles()
                let target = outside + "/precious"
                try writeBytes([7, 7, 7], to: target)
                let link = UUID().uuidString.lowercased()
                try FileManager.default.createSymbolicLink(atPath: dir.imageFolder + "/" + link, withDestinationPath: target)
                let temporary = UUID().uuidString.lowercased() + ".tmp-999999999"  // no such process
                try writeBytes([1, 2, 3], to: dir.imageFolder + "/" + temporary)
                try writeBytes(Array("my notes\n".utf8), to: dir.imageFolder + "/notes.txt")

                let before = try audit(dir)
                #expect(before.status == 1)
                let foreign = before.anomalies.filter { $0["kind"] as? String == "foreign-file" }
                #expect(foreign.count == 1 && foreign.first?["file"] as? String == "notes.txt", "\(before.anomalies)")
                let message = foreign.first?["message"] as? String
                #expect(message?.contains("recover") == false, "a foreign file is not recover's to clear")
                let orphans = before.anomalies.filter { $0["kind"] as? String == "orphan-image-file" }.compactMap { $0["imageName"] as? String }
                #expect(Set(orphans) == [link, temporary])
                let text = try dir.run(["audit"])
                #expect(text.stdout.contains("foreign-file file=notes.txt: profile_image/notes.txt is not a file ledger writes"), "\(text)")

                let recover = try dir.run(["recover", "--json"])
                #expect(recover.status == 0, "\(recover)")
                #expect(Set(try parseObject(recover.stdout)["removedImages"] as? [String] ?? []) == [link, temporary])
                #expect(dir.imageFiles() == (kept + ["notes.txt"]).sorted(), "the foreign file is left")
                #expect(try readBytes(target) == [7, 7, 7], "the link's target is never touched")

                let after = try audit(dir)
                let pointing = after.anomalies.filter { ($0["message"] as? String)?.contains("`ledger recover`") == true }
                #expect(pointing.isEmpty, "nothing recover should clear is left: \(after.anomalies)")
                #expect(after.anomalies.compactMap { $0["kind"] as? String } == ["foreign-file"])
                #expect(after.status == 1)

                try FileManager.default.moveItem(atPath: dir.imageFolder + "/notes.txt", toPath: outside + "/notes.txt")
                #expect(try audit(dir).status == 0, "moved out: a healthy ledger")
            }
        }
    }

    /// A crash is a reboot: the pid in a temporary blob's name (`<uuid>.tmp-<pid>`) may then name an
    /// unrelated live process. Whether its write still runs is the registration lock's word, not the
    /// pid's: a temporary file no running registration noted is an orphan, whatever process has that
    /// pid now (found by `Tests/Drills/crash_states.py`: the temporary blob of a `register` cut by a
    /// power loss stayed forever once its pid was reused).
    @Test func aTemporaryBlobWhosePidWasReusedAfterARebootIsAnOrphan() throws {
        try withLedgerDir { dir in
            let ok = try dir.register(email: uniqueEmail(), image: samplePNG)
            try #require(ok.status == 0, "\(ok)")
            let kept = dir.imageFiles()
            let temporary = UUID().uuidString.lowercased() + ".tmp-\(getpid())"  // a live process: this one
            try writeBytes([1, 2, 3], to: dir.imageFolder + "/" + temporary)
            let before = try audit(dir)
            #expect(before.status == 1)
            #expect(before.anomalies.compactMap { $0["imageName"] as? String } == [temporary], "\(before.anomalies)")
            let recover = try dir.run(["recover", "--json"])
            #expect(recover.status == 0, "\(recover)")
            #expect(try parseObject(recover.stdout)["removedImages"] as? [String] == [temporary], "\(recover)")
            #expect(dir.imageFiles() == kept)
            #expect(try audit(dir).status == 0)
        }
    }

    @Test func namesAreSortedIntoImagesTemporariesAndForeignFiles() {
        let uid = "711f81a0-b631-47a4-8f7e-2b1c0d9e3a55"
        #expect(BlobFolderEntry(name: uid) == .image(uid))
        #expect(BlobFolderEntry(name: uid + ".tmp-999999999") == .temporary(uid + ".tmp-999999999", image: uid))
        #expect(BlobFolderEntry(name: uid + ".tmp-\(getpid())") == .temporary(uid + ".tmp-\(getpid())", image: uid))
        for name in ["notes.txt", uid.uppercased(), "x.tmp-12", uid + ".tmp-", uid + ".tmp-abc", uid + ".bak"] {
            #expect(BlobFolderEntry(name: name) == .foreign(name), "\(name)")
        }
    }
}
