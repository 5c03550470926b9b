import Foundation
import LedgerKit
import Testing

// MARK: - UnreadableKeyStoreReadTests

/// A key store that is there but cannot be opened (a symbolic link to the real one, a folder, a
/// FIFO, a file that is not a key store): every read command refuses with one line naming it,
/// instead of printing every person as erased with exit 0; a folder without a key store, or with
/// one whose creation was cut short, reads as before, and `verify` still reports what it cannot
/// open as `missing-key`.
@Suite struct UnreadableKeyStoreReadTests {
    @Test func readsRefuseAKeyStoreTheyCannotOpen() throws {
        try withLedgerDir { dir in
            #expect(try dir.register(email: "reader@example.com", username: "Reader").status == 0)
            let keys = dir.path + "/events.keys", real = dir.path + "/../keys-\(UUID().uuidString)"
            try FileManager.default.moveItem(atPath: keys, toPath: real)
            defer { try? FileManager.default.removeItem(atPath: real) }
            let places: [(String, () throws -> Void, Int32, String)] = [
                ("a symbolic link", { try FileManager.default.createSymbolicLink(atPath: keys, withDestinationPath: real) }, 3, "not-regular-file"),
                ("a folder", { try FileManager.default.createDirectory(atPath: keys, withIntermediateDirectories: false) }, 3, "not-regular-file"),
                ("a FIFO", { #expect(mkfifo(keys, 0o600) == 0) }, 3, "not-regular-file"),
                ("not a key store", { try writeBytes(Array(repeating: 7, count: 100), to: keys) }, 1, "damaged"),
            ]
            for (what, make, status, code) in places {
                try make()
                for command in [["users"], ["replay"], ["events"], ["audit"], ["sessions"]] {
                    let result = try dir.run(command + ["--json"])
                    #expect(result.status == status, "\(what): \(command): \(result)")
                    #expect(!result.stdout.contains("\"erased\":true") && !result.stdout.contains("[erased]"), "\(what): \(command)")
                    let error = try? parseObject(result.stdout)
                    #expect(error?["code"] as? String == code, "\(what): \(command): \(result.stdout)")
                    #expect((error?["message"] as? String)?.contains("events.keys") == true, "\(what): \(command)")
                }
                for writer in [try dir.login(email: "reader@example.com", password: "correct horse 1"),
                               try dir.register(email: "writer@example.com", username: "Writer")] {
                    #expect(writer.status == status && writer.stdout.contains("\"code\":\"\(code)\"") && writer.stdout.contains("events.keys"),
                            "a writer names the key store too: \(what): \(writer)")
                }
                let verified = try dir.run(["verify"])
                #expect(verified.status == 1 && verified.stdout.contains("missing-key"), "\(what): \(verified)")
                try FileManager.default.removeItem(atPath: keys)
            }
            // A first writer's creation cut short (empty, or zeros without a header): read as no key
            // store; but beside a log that holds lines, no writer makes it anew (every key would be lost).
            for bytes in [[UInt8](), [UInt8](repeating: 0, count: 128 + 1024 * 128)] {
                try writeBytes(bytes, to: keys)
                let users = try dir.run(["users", "--json"])
                #expect(users.status == 0 && users.stdout.contains("\"erased\":true"), "\(bytes.count) bytes: \(users)")
                #expect(users.stderr.contains("has no key store (events.keys) beside it"), "a read says why: \(users)")
                let log = try dir.logBytes()
                let registered = try dir.register(email: "second@example.com", username: "Second")
                #expect(registered.status == 1 && registered.stdout.contains("keys were lost"), "\(bytes.count) bytes: \(registered)")
                #expect(try dir.logBytes() == log && (try readBytes(keys)) == bytes, "nothing written")
                try FileManager.default.removeItem(atPath: keys)
            }
            // Zeros of another size than a new table's (a sparse gigabyte): refused at once, never read whole.
            try writeBytes([], to: keys)
            #expect(truncate(keys, 1 << 30) == 0)
            let zeros = try dir.run(["users", "--json"])
            #expect(zeros.status == 1 && zeros.stdout.contains("has no header"), "\(zeros)")
            try FileManager.default.removeItem(atPath: keys)
            // Another folder's key store (valid, without this log's subjects): no writer writes into it,
            // with its index or without.
            try withLedgerDir { other in
                #expect(try other.register(email: "elsewhere@example.com", username: "Elsewhere").status == 0)
                try writeBytes(try readBytes(other.path + "/events.keys"), to: dir.path + "/events.keys.foreign")
            }
            try writeBytes(try readBytes(real), to: dir.path + "/events.keys.own")
            // Sign-ins enough that the log's last 64 KiB name no subject at all: its first lines still do.
            let own = try readBytes(dir.path + "/events.keys.own")
            try writeBytes(own, to: keys)
            for _ in 0..<140 { #expect(try dir.login(email: "reader@example.com", password: "correct horse 1").status == 0) }
            try writeBytes(try readBytes(dir.path + "/events.keys.foreign"), to: keys)
            let foreign = try readBytes(keys), log = try dir.logBytes()
            for removingIndex in [false, true] {
                if removingIndex { try? FileManager.default.removeItem(atPath: dir.path + "/events.jsonl.index") }
                let registered = try dir.register(email: "third@example.com", username: "Third")
                #expect(registered.status == 1 && registered.stdout.contains("keys were lost"), "index removed: \(removingIndex): \(registered)")
                #expect(try dir.logBytes() == log && (try readBytes(keys)) == foreign, "nothing written")
            }
            try FileManager.default.removeItem(atPath: keys)
            // No key store at all (a log copied without it): read, its members erased.
            let users = try dir.run(["users", "--json"])
            #expect(users.status == 0 && users.stdout.contains("\"erased\":true"), "\(users)")
            #expect(users.stderr.contains("has no key store (events.keys) beside it"), "a read says why: \(users)")
            try FileManager.default.moveItem(atPath: real, toPath: keys)
            #expect(try dir.run(["users", "--json"]).stdout.contains("reader@example.com"))
        }
    }
}
