import Foundation
import LedgerDomain
import LedgerKit
import Testing

// MARK: - LineCodecFastPathTests

/// `LineCodec.decode` reads canonical lines in place and leaves every other spelling to the generic
/// JSON-tree decoder. Differential check: on real lines and on many mutations of them, the two
/// paths give the same envelope, or the same problem.
struct LineCodecFastPathTests {
    /// Both decoders' verdicts on `line`, as comparable text.
    private func verdicts(_ line: [UInt8]) -> (fast: String, generic: String, canonical: Bool) {
        line.withUnsafeBufferPointer { buffer in
            func describe(_ body: () throws(LogProblem) -> (Envelope, bodyLength: Int)) -> String {
                do throws(LogProblem) {
                    let (envelope, length) = try body()
                    return "\(envelope) \(length)"
                } catch {
                    return error.description
                }
            }
            return (describe { () throws(LogProblem) in try LineCodec.decode(buffer, lineNumber: 7) },
                    describe { () throws(LogProblem) in try LineCodec.decodeGeneric(buffer, lineNumber: 7) },
                    LineCodec.decodeCanonical(buffer) != nil)
        }
    }

    @Test func realLinesTakeTheFastPathAndAgree() throws {
        for line in try LineMutations.realLines() {
            let v = verdicts(line)
            #expect(v.canonical, "\(String(decoding: line, as: UTF8.self))")
            #expect(v.fast == v.generic)
        }
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func mutatedLinesAgree(seed: UInt64) throws {
        let random = SeededRandom(seed: seed)
        var checked = 0, canonical = 0
        for line in try LineMutations.realLines() {
            for mutated in LineMutations.mutations(of: line, random: random) {
                let v = verdicts(mutated)
                #expect(v.fast == v.generic, "\(String(decoding: mutated, as: UTF8.self))")
                checked += 1
                if v.canonical { canonical += 1 }
            }
        }
        #expect(checked > 1_000)
        #expect(canonical > 0 && canonical < checked)  // both paths were exercised
    }
}
