import Foundation
import LedgerDomain
import LedgerKit
import Testing

// MARK: - SignedHeadToolTests

/// `Events/tools/verify_signed_head.py`, the check of a signed head that needs no ledger: it
/// accepts what `SignedHead.sign` and the witness write, and refuses a tampered size, a damaged
/// signature, a missing cosignature and a key of another name.
@Suite struct SignedHeadToolTests {
    @Test("the Python verifier accepts a signed, cosigned head and prints its origin, size and root")
    func accepts() throws {
        try withTempDirectory { dir in
            let log = try TestKeys.log(), witnessKey = try TestKeys.witness()
            try writeBytes(Array((log.verifierKey.text + "\n").utf8), to: dir + "/log.vkey")
            try writeBytes(Array((witnessKey.verifierKey.text + "\n").utf8), to: dir + "/w1.vkey")
            let chain = SyntheticLog(signer: log, size: 3000)
            let witness = try Witness(logKey: log.verifierKey, signer: witnessKey, statePath: dir + "/state", clock: FixedClock())
            let cosigned = try witness.addCheckpoint(chain.request(old: 0))
            let note = try chain.head() + cosigned.line + "\n"
            try writeBytes(Array(note.utf8), to: dir + "/head")
            let result = try pythonTool("verify_signed_head.py", [dir + "/head", "--vkey", dir + "/log.vkey", "--witness-vkey", dir + "/w1.vkey", "--json"])
            #expect(result.status == 0, "\(result)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            let root = try chain.root(3000)
            #expect(object["origin"] as? String == "example.com/ledger" && object["treeSize"] as? Int == 3000)
            #expect(object["rootHash"] as? String == root.base64 && object["rootHex"] as? String == root.hex)
            let plain = try pythonTool("verify_signed_head.py", [dir + "/head", "--vkey", dir + "/log.vkey"])
            #expect(plain.status == 0 && plain.stdout == "ok: example.com/ledger size 3000 root \(root.base64) (\(root.hex))\n")
            try writeBytes(Array((note + cosigned.line + "\n").utf8), to: dir + "/twice")
            #expect(try pythonTool("verify_signed_head.py", [dir + "/twice", "--vkey", dir + "/log.vkey", "--witness-vkey", dir + "/w1.vkey"]).status == 0)
        }
    }

    @Test("the Python verifier refuses a tampered size, a damaged signature, a missing cosignature and another key's name")
    func refuses() throws {
        try withTempDirectory { dir in
            let log = try TestKeys.log(), witnessKey = try TestKeys.witness()
            try writeBytes(Array((log.verifierKey.text + "\n").utf8), to: dir + "/log.vkey")
            try writeBytes(Array((witnessKey.verifierKey.text + "\n").utf8), to: dir + "/w1.vkey")
            let renamed = try TestKeys.log("example.com/renamed", seed: 1)
            try writeBytes(Array((renamed.verifierKey.text + "\n").utf8), to: dir + "/renamed.vkey")
            let chain = SyntheticLog(signer: log, size: 77)
            let note = try chain.head()
            let signatureLine = String(note.split(separator: "\n").last!)
            var damaged = Array(signatureLine.utf8)
            damaged[damaged.count - 6] = damaged[damaged.count - 6] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            let cases: [(String, String, [String])] = [
                ("size", note.replacingFirst("\n77\n", "\n78\n"), []),
                ("signature", note.replacingFirst(signatureLine, String(decoding: damaged, as: UTF8.self)), []),
                ("duplicate", note + String(decoding: damaged, as: UTF8.self) + "\n", []),
                ("no cosignature", note, ["--witness-vkey", dir + "/w1.vkey"]),
                ("another name", note, ["--vkey", dir + "/renamed.vkey"]),
                ("witness key as the log's", note, ["--vkey", dir + "/w1.vkey"]),
                ("not a note", "hello\n", []),
            ]
            for (label, text, extra) in cases {
                try writeBytes(Array(text.utf8), to: dir + "/head")
                let vkey = extra.first == "--vkey" ? [] : ["--vkey", dir + "/log.vkey"]
                let result = try pythonTool("verify_signed_head.py", [dir + "/head"] + vkey + extra)
                #expect(result.status == 1 && result.stdout.isEmpty && result.stderrLines.count == 1, "\(label): \(result)")
            }
        }
    }
}
