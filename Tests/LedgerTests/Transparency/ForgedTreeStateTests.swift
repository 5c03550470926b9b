import Foundation
import LedgerDomain
@testable import LedgerKit
import Testing

// A tree state forged to reproduce a signed root (its records kept from the old history, its
// header re-sealed to name the rewritten log's last line) never vouches for the rewritten log:
// `verify --signed-head` computes the root from the lines.

@Suite struct ForgedTreeStateTests {
    @Test func aReSealedTreeStateCannotHideARewrittenHistory() throws {
        try withTempDirectory { folder in
            let keys = try SignedHeadKeys(folder: folder)
            try withTreeLedger(events: 400) { dir, _ in
                try writeBytes(Array(try dir.run(["head", "--key", keys.path("log.skey")]).stdout.utf8), to: folder + "/head.note")
                let oldState = try readBytes(treePath(dir))
                let (_, oldMark) = try #require(TreeFile.decode(header: Array(oldState.prefix(TreeFile.headerSize))))
                let mark = try #require(oldMark)
                // The attacker rewrites line 100 (same length) and re-chains every later line ...
                var envelopes = try LogRewriting.envelopes(try readBytes(dir.logPath))
                envelopes[99].at = Timestamp(millis: envelopes[99].at.millis + 1)
                let rewritten = LogRewriting.chained(envelopes)
                try writeBytes(rewritten, to: dir.logPath)
                // ... and keeps the old records under a header re-sealed for the new last line.
                let newLast = try #require(try LogRewriting.envelopes(rewritten).last)
                let header = TreeFile.encode(leaves: 400, mark: TreeMark(head: Head(seq: newLast.seq, hash: newLast.hash),
                                                                         lineStart: mark.lineStart, lineEnd: mark.lineEnd))
                try writeBytes(header + oldState.dropFirst(TreeFile.headerSize), to: treePath(dir))
                let verdict = try signedHeadVerdict({ try dir.run($0) }, note: folder + "/head.note", vkey: keys.path("log.vkey"))
                #expect(verdict.status == 1 && verdict.kinds.contains("signed-head-mismatch"), "\(verdict.result)")
                #expect(!verdict.result.stdout.contains("\"matches\":true"), "\(verdict.result)")
            }
        }
    }

    /// A header whose checksum holds but whose line offsets cannot be a file's (2^64 − 1) is damage:
    /// the state is rebuilt, no command traps.
    @Test func aReSealedHeaderWithImpossibleOffsetsIsDamageNotATrap() throws {
        try withTreeLedger(events: 50) { dir, log in
            #expect(try dir.run(["head"]).status == 0)  // the state, made
            var state = try readBytes(treePath(dir))
            for i in 24..<32 { state[i] = 0xFF }
            let sum = state.withUnsafeBytes { Checksum64.of(UnsafeRawBufferPointer(rebasing: $0[0..<80])) }
            withUnsafeBytes(of: sum.littleEndian) { for (k, byte) in $0.enumerated() { state[80 + k] = byte } }
            try writeBytes(state, to: treePath(dir))
            let head = try dir.run(["head", "--json"]), root = try log.root(50)
            #expect(head.status == 0 && head.stdout.contains(root), "\(head)")
            #expect(try dir.run(["verify"]).status < 128)
        }
    }
}
