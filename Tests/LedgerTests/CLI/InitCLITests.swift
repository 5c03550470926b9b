import Foundation
import Testing

// MARK: - InitCLITests

/// `ledger init` on the file store: makes the data directory (and nothing in it), idempotent, and
/// with `--json` says so as one object.
@Suite struct InitCLITests {
    @Test func initMakesTheDataDirectoryAndSaysSoInJSON() throws {
        try withTempDirectory { path in
            let data = path + "/new/data"
            let first = try ledger("init", "--data", data, "--json")
            #expect(first.status == 0, "\(first)")
            let ready = try parseObject(first.stdout)
            #expect(ready["status"] as? String == "ready" && ready["store"] as? String == "file" && ready["data"] as? String == data, "\(first)")
            var isFolder: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: data, isDirectory: &isFolder) && isFolder.boolValue)
            #expect(try FileManager.default.contentsOfDirectory(atPath: data).isEmpty, "the first write makes the log")
            let again = try ledger("init", "--data", data)
            #expect(again.status == 0 && again.stdout.hasPrefix("file store ready in \(data)"), "\(again)")
        }
    }
}
