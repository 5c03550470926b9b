import LedgerDomain
import LedgerKit
import Testing

// MARK: - ParallelScanTests

/// The scanner decodes and hashes the lines of each chunk on all cores before checking the chain in
/// order. On a log long enough to take that path, it must report exactly what a plain line-by-line
/// check reports, whatever the damage.
struct ParallelScanTests {
    /// Every problem, by a sequential check of each complete line (the reference).
    private func referenceProblems(_ bytes: [UInt8]) -> [LogProblem] {
        var checker = ChainChecker()
        var problems: [LogProblem] = []
        for line in splitLines(bytes) where line.last == 0x0A {
            line.dropLast().withUnsafeBufferPointer { body in
                do throws(LogProblem) {
                    let (envelope, bodyLength) = try LineCodec.decode(body, lineNumber: checker.lines + 1)
                    let hash = SHA256.hex(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: body[0..<bodyLength])))
                    do throws(LogProblem) { _ = try checker.check(envelope, bodyHash: hash) } catch { problems.append(error) }
                } catch {
                    checker.skipUndecodable()
                    problems.append(error)
                }
            }
        }
        return problems
    }

    /// A 3,000-line log (more than a chunk's worth of lines for the parallel path).
    private func makeLog(_ dir: String) throws -> [UInt8] { try Fixtures.mixedLog(in: dir, seed: 5) }

    @Test(arguments: ["intact", "flipped-byte", "bad-json", "duplicate-line", "dropped-line", "blank-line", "several"])
    func theParallelScanReportsWhatALineByLineCheckReports(_ damage: String) throws {
        try withTempDirectory { dir in
            var lines = splitLines(try makeLog(dir))
            #expect(lines.count == 3_000)
            switch damage {
            case "flipped-byte": lines[1_234][40] ^= 0x01
            case "bad-json": lines[2_000] = Array("{\"seq\":2001,\n".utf8)
            case "duplicate-line": lines.insert(lines[1_500], at: 1_501)
            case "dropped-line": lines.remove(at: 700)
            case "blank-line": lines.insert([0x0A], at: 2_999)
            case "several":
                lines[10][60] ^= 0x02
                lines[1_023][100] ^= 0x04
                lines[2_048] = Array("not json\n".utf8)
            default: break
            }
            let bytes = lines.flatMap { $0 }
            let path = "\(dir)/damaged.jsonl"
            try writeBytes(bytes, to: path)
            let report = try LogVerifier.verify(path: path)
            let expected = referenceProblems(bytes)
            #expect(report.problems.map(\.description) == Array(expected.prefix(report.problems.count)).map(\.description))
            #expect(report.problems.isEmpty == (damage == "intact"))
            if damage == "intact" { #expect(report.events == 3_000) }
        }
    }
}
