import Foundation
import Testing

// `export --keys FILE` carries a data version 2 log's key store beside the export: the exported log
// verifies and reads with it (`verify --keys`), and without it its personal data is `missing-key`.

@Suite struct ExportKeysCLITests {
    @Test func anExportCarriesItsKeysOnlyWhenAsked() throws {
        try withTempDirectory { path in
            let dir = LedgerDir(path: path + "/data")
            #expect(try dir.register(email: "kept@example.com", username: "Kept").status == 0)
            let gone = try dir.register(email: "gone@example.com", username: "Gone")
            let uid = try #require(try parseObject(gone.stdout)["uid"] as? String)
            #expect(try dir.run(["account", "delete", uid]).status == 0)
            let keys = path + "/backup.keys", export = path + "/export.jsonl"
            let exported = try dir.run(["export", "--keys", keys])
            #expect(exported.status == 0, "\(exported)")
            try Data(exported.stdout.utf8).write(to: URL(fileURLWithPath: export))
            var info = stat()
            #expect(stat(keys, &info) == 0 && info.st_mode & 0o777 == 0o600, "the key file is private")
            // Without its keys the export verifies as a chain but its personal data is lost.
            let alone = try run(Paths.ledger, ["verify", export, "--json"])
            #expect(alone.status == 1 && alone.stdout.contains("missing-key"), "\(alone)")
            #expect(try run(Paths.ledger, ["verify", export, "--keys", keys]).status == 0)
            // The keys open what users prints; the erased account stays erased in the copy.
            let decrypted = try pythonTool("decrypt_log.py", [export, keys])
            #expect(decrypted.status == 0 && decrypted.stdout.contains("kept@example.com") && !decrypted.stdout.contains("gone@example.com"),
                    "\(decrypted)")
            // A version 1 log has no keys to export.
            let v1 = LedgerDir(path: path + "/v1")
            try FileManager.default.createDirectory(atPath: v1.path, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Paths.demoLog, toPath: v1.logPath)
            let refused = try v1.run(["export", "--keys", path + "/none.keys"])
            #expect(refused.status == 1 && !FileManager.default.fileExists(atPath: path + "/none.keys"), "\(refused)")
            let missing = try run(Paths.ledger, ["verify", export, "--keys", path + "/absent.keys"])
            #expect(missing.status == 3, "\(missing)")
        }
    }
}
