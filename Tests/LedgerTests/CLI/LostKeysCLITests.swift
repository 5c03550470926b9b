import Foundation
@testable import LedgerKit
import Testing

// Keys lost without an erasure, a cut batch's ciphertexts, blank account names and over-long input
// lines, through the built `ledger` (found by an attack on the command line).

@Suite struct LostKeysCLITests {
    static let password = "correct horse 1"

    /// An emptied key store (as a crash while it was made, or a careless hand, leaves it): the right
    /// password is refused as damage (`damaged`, exit 1, as every damaged log), never as a wrong
    /// password: nothing is counted towards the lockout, no key is made anew for the account, and
    /// the password still signs in once the key store is back.
    @Test(arguments: ["truncated", "slot-zeroed"])
    func aLostKeyIsDamageNeverAWrongPassword(_ how: String) throws {
        try withLedgerDir { dir in
            let registered = try dir.register(email: "k@example.com")
            let uid = try #require(try parseObject(registered.stdout)["uid"] as? String)
            let keysPath = dir.path + "/events.keys"
            let saved = try readBytes(keysPath)
            if how == "truncated" { try writeBytes([], to: keysPath) } else { try writeBytes(Self.slotsZeroed(saved), to: keysPath) }
            let logBefore = try dir.logBytes()
            for _ in 0..<6 {
                let login = try dir.login(email: "k@example.com", password: Self.password)
                #expect(login.status == 1 && login.stdout.contains(#""code":"damaged""#) && login.stderr.contains("key is missing"), "\(login)")
            }
            let change = try dir.run(["account", "change-password", "--email", "k@example.com", "--password-stdin", "--json"],
                                     stdin: Self.password + "\nanother password 2\n")
            #expect(change.status == 1 && change.stdout.contains(#""code":"damaged""#), "\(change)")
            let disable = try dir.run(["account", "disable", uid, "--reason", "why", "--json"])
            #expect(disable.status == 1 && disable.stdout.contains("keys were lost"), "no new key is made for the account: \(disable)")
            #expect(try dir.logBytes() == logBefore, "nothing appended, nothing counted")
            try writeBytes(saved, to: keysPath)
            #expect(try dir.login(email: "k@example.com", password: Self.password).status == 0, "the lockout counted nothing")
            #expect(try dir.run(["verify"]).status == 0)
        }
    }

    /// A read whose members did not open without an erasure (keys lost) still prints, the members
    /// as erased, but says so on standard error and sends to `verify`; an erasure reads as none.
    @Test func aReadSaysWhenMembersDidNotOpen() throws {
        try withLedgerDir { dir in
            let registered = try dir.register(email: "lost@example.com")
            let uid = try #require(try parseObject(registered.stdout)["uid"] as? String)
            #expect(try dir.register(email: "kept@example.com").status == 0)
            let clean = try dir.run(["users", "--json"])
            #expect(clean.status == 0 && clean.stderr.isEmpty, "\(clean)")
            let keysPath = dir.path + "/events.keys"
            let saved = try readBytes(keysPath)
            try writeBytes(Self.slotsZeroed(saved), to: keysPath)
            for command in [["users", "--json"], ["replay", "--json"], ["user", uid]] {
                let read = try dir.run(command, env: ["LEDGER_CHECKPOINT_EVERY": "0"])
                #expect(read.status == 0 && !read.stdout.contains("lost@example.com"), "\(command): \(read)")
                #expect(read.stderr.contains("2 subjects") && read.stderr.contains("did not open") && read.stderr.contains("ledger verify"), "\(command): \(read)")
            }
            try writeBytes(saved, to: keysPath)
            #expect(try dir.run(["account", "delete", uid]).status == 0)
            let erased = try dir.run(["users", "--json"], env: ["LEDGER_CHECKPOINT_EVERY": "0"])
            #expect(erased.status == 0 && erased.stderr.isEmpty && !erased.stdout.contains("lost@example.com"), "an erasure is no loss: \(erased)")
        }
    }

    /// `keys` (a key store's bytes) with every slot zeroed: every key lost, the header kept.
    static func slotsZeroed(_ keys: [UInt8]) -> [UInt8] {
        var bytes = keys
        for i in KeyStoreLayout.headerSize..<bytes.count { bytes[i] = 0 }
        return bytes
    }

    /// Keys lost and the writers' index gone (an erasure, or any deletion, removes it): a writer
    /// that folds the log meets emails it cannot read, and refuses instead of deciding on them (an
    /// email read as erased would be free for a second live account).
    @Test func withKeysLostAndNoIndexNoWriterDecides() throws {
        try withLedgerDir { dir in
            #expect(try dir.register(email: "gina@example.com").status == 0)
            #expect(try dir.register(email: "hank@example.com").status == 0)
            let keysPath = dir.path + "/events.keys"
            let saved = try readBytes(keysPath)
            try writeBytes(Self.slotsZeroed(saved), to: keysPath)
            for cache in ["events.jsonl.index", "events.jsonl.index.checkpoint"] { try? FileManager.default.removeItem(atPath: dir.path + "/" + cache) }
            let before = try dir.logBytes()
            let again = try dir.register(email: "gina@example.com", username: "Mallory")
            #expect(again.status == 1 && again.stderr.contains("keys were lost"), "\(again)")
            let login = try dir.login(email: "gina@example.com", password: Self.password)
            #expect(login.status == 1 && login.stdout.contains(#""code":"damaged""#), "\(login)")
            let move = try dir.run(["account", "change-email", "--email", "hank@example.com", "--new-email", "gina@example.com", "--password-stdin", "--json"],
                                   stdin: Self.password + "\n")
            #expect(move.status == 1 && move.stdout.contains(#""code":"damaged""#), "\(move)")
            #expect(try dir.logBytes() == before, "nothing appended, nothing counted")
            try writeBytes(saved, to: keysPath)
            #expect(try dir.login(email: "gina@example.com", password: Self.password).status == 0)
            #expect(try dir.register(email: "gina@example.com", username: "Mallory").status == 1, "the email is still taken")
            let audit = try dir.run(["audit", "--json"])
            #expect(audit.status == 0, "\(audit)")
            #expect(try dir.run(["verify"]).status == 0)
        }
    }

    /// A registration cut by a power loss leaves its lines in `events.jsonl.broken` without their
    /// ciphertexts: with the key store in hand, nothing of the person who never registered opens.
    @Test func aCutRegistrationKeepsNoCiphertextInTheBrokenFile() throws {
        try withLedgerDir { dir in
            let cut = try dir.register(email: "b@example.com", env: ["LEDGER_FAILPOINTS": "SessionStarted=power-loss"])
            #expect(cut.status != 0, "\(cut)")
            #expect(try dir.run(["recover"]).status == 0)
            let broken = String(decoding: try readBytes(dir.path + "/events.jsonl.broken"), as: UTF8.self)
            #expect(broken.contains("AccountCreated") && broken.contains(#""ciphertext":""#), "\(broken)")
            #expect(broken.firstMatch(of: /"(ciphertext|hash|prev)":"[^"]/) == nil, "no ciphertext or line hash is kept: \(broken)")
            #expect(try dir.run(["verify"]).status == 0)
        }
    }

    @Test func brokenTailKeepsEverythingButCiphertexts() {
        let line = Array(#"{"email":{"subject":"account-x","nonce":"AAAA","ciphertext":"c2VjcmV0"},"b":1}"#.utf8)
        #expect(BrokenTail.kept(line) == Array(#"{"email":{"subject":"account-x","nonce":"AAAA","ciphertext":""},"b":1}"#.utf8))
        let cutInside = Array(#"{"a":{"ciphertext":"c2Vj"#.utf8) + [0x0A] + Array(#"{"x":2}"#.utf8)
        #expect(BrokenTail.kept(cutInside) == Array(#"{"a":{"ciphertext":""#.utf8) + [0x0A] + Array(#"{"x":2}"#.utf8))
        let plain = Array(#"{"seq":3,"type":"SessionEnded"}"#.utf8)
        #expect(BrokenTail.kept(plain) == plain)
        // Without the line's hashes a guess sealed again with the key and nonce cannot be confirmed.
        let hashed = Array(#"{"seq":4,"prev":"00ff","data":{"tokenHash":"ab"},"hash":"12cd"}"#.utf8)
        #expect(BrokenTail.kept(hashed) == Array(#"{"seq":4,"prev":"","data":{"tokenHash":"ab"},"hash":""}"#.utf8))
    }

    /// An erased account's email reads as the empty text: a blank UID|EMAIL names no account (exit 2).
    @Test func aBlankAccountNameIsAUsageError() throws {
        try withLedgerDir { dir in
            #expect(try dir.register(email: "a@example.com").status == 0)
            #expect(try dir.register(email: "b@example.com").status == 0)
            #expect(try dir.run(["account", "delete", "b@example.com"]).status == 0)
            for blank in ["", " ", "\t"] {
                let user = try dir.run(["user", blank, "--json"])
                #expect(user.status == 2 && !user.stdout.contains("uid"), "\(user)")
                let history = try dir.run(["user", blank, "--history"])
                #expect(history.status == 2 && history.stdout.isEmpty, "\(history)")
                let disable = try dir.run(["account", "disable", blank, "--json"])
                #expect(disable.status == 2, "\(disable)")
            }
        }
    }

    /// A line of standard input longer than 4 KiB is refused at once: its rest is never taken for
    /// the next line, and no password is checked.
    @Test func anOverlongInputLineIsRefusedAtOnce() throws {
        try withLedgerDir { dir in
            #expect(try dir.register(email: "c@example.com").status == 0)
            let before = try dir.logBytes()
            let long = String(repeating: "a", count: 4106)
            let change = try dir.run(["account", "change-password", "--email", "c@example.com", "--password-stdin", "--json"],
                                     stdin: long + "\nnewpassword2\n")
            #expect(change.status == 2 && change.stderr.contains("longer than 4096 bytes"), "\(change)")
            let reset = try dir.run(["account", "reset-password", "--token-stdin", "--json"], stdin: long + "\nnewpassword2\n")
            #expect(reset.status == 2 && reset.stderr.contains("longer than 4096 bytes"), "\(reset)")
            #expect(try dir.logBytes() == before, "nothing checked, nothing counted")
        }
    }
}
