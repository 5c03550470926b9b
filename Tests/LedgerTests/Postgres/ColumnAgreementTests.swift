import Foundation
import LedgerDomain
@testable import LedgerKit
import Testing

// MARK: - ColumnAgreementTests

/// `ColumnSuspects.agree`, the by-text match `verify --store` makes between a row's `seq`, `id` and
/// `stream` columns and its line, never agrees where decoding the line would disagree: over real
/// lines of every type, their respellings and random damage (`LineMutations`), members given twice,
/// and columns changed a byte, a case, a digit or a suffix at a time. A line it does not agree
/// with is decoded by `PostgresColumnCheck`, so its only freedom is to agree less. Lines as ledger
/// writes them, with their own columns, must agree (or every row of a store would be read twice).
struct ColumnAgreementTests {
    /// The columns of a line as the store writes them: its seq, its id's text and its stream.
    private struct Columns {
        var seq: Int
        var id: [UInt8]
        var stream: [UInt8]
    }

    /// `agree` on byte arrays.
    private func agree(_ line: [UInt8], _ columns: Columns) -> Bool {
        line.withUnsafeBufferPointer { line in
            columns.id.withUnsafeBufferPointer { id in
                columns.stream.withUnsafeBufferPointer { stream in
                    ColumnSuspects.agree(line: line, seq: columns.seq, id: id, stream: stream)
                }
            }
        }
    }

    /// What the line says of the three, decoded in full; nil when it is no ledger line.
    private func decoded(_ line: [UInt8], _ seq: Int) -> Columns? {
        line.withUnsafeBufferPointer { line in
            (try? LineCodec.decode(line, lineNumber: seq)).map { Columns(seq: $0.0.seq, id: Array($0.0.id.utf8), stream: Array($0.0.stream.utf8)) }
        }
    }

    /// Columns a hand could have written over `columns`.
    private func changed(_ columns: Columns, _ random: SeededRandom) -> [Columns] {
        var out: [Columns] = []
        for delta in [-1, 1, 10, -columns.seq, 1 << 40] { out.append(Columns(seq: columns.seq + delta, id: columns.id, stream: columns.stream)) }
        for text in [\Columns.id, \Columns.stream] {
            var copy = columns
            let bytes = columns[keyPath: text]
            copy[keyPath: text] = Array(String(decoding: bytes, as: UTF8.self).uppercased().utf8); out.append(copy)
            copy[keyPath: text] = bytes + Array("x".utf8); out.append(copy)
            copy[keyPath: text] = Array(bytes.dropLast()); out.append(copy)
            copy[keyPath: text] = []; out.append(copy)
            copy[keyPath: text] = bytes + Array(#"","x":""#.utf8); out.append(copy)
            copy[keyPath: text] = bytes + [0x5C]; out.append(copy)
            if !bytes.isEmpty {
                var flipped = bytes
                flipped[random.next(flipped.count)] ^= UInt8(1 << random.next(7))
                copy[keyPath: text] = flipped; out.append(copy)
            }
        }
        out.append(Columns(seq: columns.seq, id: columns.stream, stream: columns.id))
        return out
    }

    /// Respellings that give a member twice, the second time with other text.
    private func doubled(_ line: [UInt8], _ columns: Columns) -> [[UInt8]] {
        let text = String(decoding: line, as: UTF8.self)
        let stream = String(decoding: columns.stream, as: UTF8.self), id = String(decoding: columns.id, as: UTF8.self)
        var out: [String] = []
        for (member, value, other) in [("stream", stream, stream + "x"), ("id", id, "00000000-0000-4000-8000-000000000000")] {
            let first = #""\#(member)":"\#(value)","#
            if let range = text.range(of: first) { out.append(text.replacingCharacters(in: range, with: first + #""\#(member)":"\#(other)","#)) }
            if let end = text.lastIndex(of: "}") { out.append(text[..<end] + #","\#(member)":"\#(other)"}"#) }
        }
        if let range = text.range(of: #"{"seq":\#(columns.seq),"#) { out.append(text.replacingCharacters(in: range, with: #"{"seq":\#(columns.seq),"seq":\#(columns.seq + 1),"#)) }
        return out.map { Array($0.utf8) }
    }

    @Test(arguments: 0..<6)
    func agreementNeverHidesAColumnTheLineContradicts(seed: Int) throws {
        let random = SeededRandom(seed: UInt64(seed) + 31)
        var agreed = 0, checked = 0
        for line in try LineMutations.realLines() {
            guard let own = decoded(line, 1) else { continue }
            #expect(agree(line, own), "a line as ledger writes it disagrees with its own columns: \(String(decoding: line, as: UTF8.self))")
            let lines = [line] + LineMutations.mutations(of: line, random: random) + doubled(line, own)
            for candidate in lines {
                for columns in [own] + changed(own, random) where agree(candidate, columns) {
                    agreed += 1
                    guard let said = decoded(candidate, columns.seq) else { continue }  // no ledger line: the scanner names it
                    checked += 1
                    #expect(said.seq == columns.seq && said.id == columns.id && said.stream == columns.stream,
                            "agreed with columns \(columns.seq) \(String(decoding: columns.id, as: UTF8.self)) \(String(decoding: columns.stream, as: UTF8.self)) that line \(String(decoding: candidate, as: UTF8.self)) contradicts")
                }
            }
        }
        #expect(agreed > 0 && checked > 0)
    }
}
