import Foundation
import LedgerDomain
import LedgerKit

// MARK: - LineMutations

/// Real log lines of every type and valid and invalid respellings of them, for the decoders' differential tests.
enum LineMutations {
    /// Lines of every type, with escapes and non-ASCII text in `data`.
    static func realLines() throws -> [[UInt8]] {
        try withTempDirectory { dir in
            // A version 1 folder (the demo log's lines first, no key store): the in-place lane reads
            // data version 1 lines; a version 2 line's encrypted members take the full decoder.
            try FileManager.default.copyItem(atPath: Paths.demoLog, toPath: dir + "/events.jsonl")
            let store = FileEventStore(directory: dir, clock: FixedClock(step: 1), random: SeededRandom(seed: 9))
            for (n, type) in EventType.allCases.enumerated() {
                _ = try store.append([Fixtures.event(type, n)], to: Fixtures.stream(for: type, n), expected: .noStream)
            }
            // A batch of three lines, in two streams: lines with `"batch":[1,3]` … `[3,3]`.
            let registration = Fixtures.stream(.registration, 90)
            _ = try store.append([StreamAppend([Fixtures.event(.accountCreated, 90), Fixtures.event(.profileWritten, 90)], to: registration, expected: .noStream),
                                  StreamAppend([Fixtures.event(.sessionStarted, 91)], to: Fixtures.stream(.session, 91), expected: .noStream)],
                                 condition: nil)
            return splitLines(try readBytes(store.logPath)).map { Array($0.dropLast()) }
        }
    }

    /// Valid and invalid respellings of `line`.
    static func mutations(of line: [UInt8], random: SeededRandom) -> [[UInt8]] {
        let text = String(decoding: line, as: UTF8.self)
        var out: [[UInt8]] = []
        let swaps: [(String, String)] = [
            (#"{"seq":"#, #"{ "seq":"#), (#"{"seq":"#, #"{"seq": "#), (#","id":"#, #" ,"id":"#), (#","data":"#, #","data": "#),
            (#"{"seq":1,"#, #"{"seq":1.0,"#), (#"{"seq":1,"#, #"{"seq":1e0,"#), (#"{"seq":1,"#, #"{"seq":01,"#),
            (#"{"seq":"#, #"{"seq":-"#), (#","v":1,"#, #","v":1.0,"#), (#","v":1,"#, #","v":0,"#),
            (#""type":"A"#, #""type":"\u0041"#), (#""type":"S"#, #""type":"\u0053"#), (#","stream":"r"#, #","stream":"\u0072"#),
            (#","prev":""#, #","prev":" "#), (#"T"#, #"t"#), (#"Z""#, #"z""#), (#""}"#, #"" }"#), (#","hash":"#, #","hash" :"#),
            (#","data":{"#, #","data":["#), (#","data":{"#, #","data":{"x":1,"#), (#"}"prev""#, #"} "prev""#),
            (#","at":""#, #","at":"\u0032"#), (#""uid":"#, #""uid":"#), (#","id":""#, #","id":"\u0030"#),
            // The `batch` member: respelled, malformed, out of its place, given twice, and added to a line without it.
            (#","batch":[1,3]"#, ""), (#""batch":[1,"#, #""batch":[0,"#), (#""batch":["#, #""batch": ["#), (#""batch":[1,"#, #""batch":[1 ,"#),
            (#","batch":[1,3]"#, #","batch":[1,1]"#), (#","batch":[1,3]"#, #","batch":[4,3]"#), (#","batch":[1,3]"#, #","batch":[1,3,1]"#),
            (#","batch":[1,3]"#, #","batch":[1.0,3]"#), (#","batch":[1,3]"#, #","batch":["1",3]"#), (#","batch":[1,3]"#, #","batch":{}"#),
            (#","batch":[1,3]"#, #","batch":[1,3],"batch":[1,3]"#), (#","batch":[1,3]"#, #","batch":[1]"#), (#","batch":[1,3]"#, #","batch":null"#),
            (#","batch":[1,3]"#, #","batch":[01,3]"#), (#","batch":[1,3]"#, #","batch":[1,2147483648]"#), (#","batch":[1,3]"#, #","batch":[2147483647,2147483647]"#),
            (#","batch":[1,3]"#, #","batch":[-1,3]"#), (#","batch":[2,3],"data":"#, #","data":"#), (#","batch":[3,3]"#, #","batch":[3,3] "#),
            (#","data":"#, #","batch":[2,2],"data":"#), (#","prev":"#, #","batch":[1,2],"prev":"#), (#","stream":"#, #","batch":[1,2],"stream":"#),
        ]
        for (from, to) in swaps where text.contains(from) {
            if let range = text.range(of: from) { out.append(Array(text.replacingCharacters(in: range, with: to).utf8)) }
        }
        out.append(line + [0x20])
        out.append([0x20] + line)
        out.append(Array(line.dropLast()))
        out.append(Array(line.prefix(line.count / 2)))
        for _ in 0..<40 {
            var copy = line
            let at = random.next(copy.count)
            switch random.next(4) {
            case 0: copy[at] ^= UInt8(1 << random.next(8))
            case 1: copy.remove(at: at)
            case 2: copy.insert(random.pick(Array(#" "\{}[],:0a"#.utf8) + [0x00, 0xC3, 0xFF]), at: at)
            default: copy[at] = random.pick(Array(#""\{}0-.eE"#.utf8))
            }
            out.append(copy)
        }
        return out
    }
}
