#if canImport(LedgerDomain)
import LedgerDomain
#endif

// MARK: - Outcome counters

/// What the inputs led to, so a run shows it reached past the JSON reader into the checks.
struct DecoderStats {
    /// Inputs that were one JSON value.
    var json = 0
    /// Inputs that decoded as an envelope.
    var decoded = 0
    /// Inputs read in place by `LineCodec.readInPlace` (and compared with the full decoder).
    var facts = 0
    /// Chain checks that returned an event.
    var events = 0
    /// Problems by kind (decoder and chain checker).
    var problems: [String: Int] = [:]
    /// Scanner runs (multi-line files through `LogScanner`).
    var scans = 0
}

// MARK: - DecoderTarget

/// Feeds bytes to `JSONReader.parse`, `LineCodec.decode` and `ChainChecker.check` and checks what comes back.
/// The only acceptable outcomes are a value or the declared error type (typed throws make any other error
/// type a compile error); a trap or a hang ends the process and is reported by `main`.
final class DecoderTarget {
    /// SHA-256 hex of a body; nil when built without libcrypto (then only the declared hash is used).
    let sha256: ((UnsafeRawBufferPointer) -> String)?
    /// Valid log lines (without newline) to mutate: the demo log's and generated ones.
    private(set) var corpus: [[UInt8]] = []
    /// Outcome counters.
    var stats = DecoderStats()

    init(sha256: ((UnsafeRawBufferPointer) -> String)?, demoLines: [[UInt8]]) {
        self.sha256 = sha256
        corpus = demoLines
        if sha256 != nil {
            var rng = SplitMix64(seed: 0x1EDB_E200)
            corpus += Self.validChain(count: 27, &rng, sha256: hash)
        }
        if corpus.isEmpty { corpus = [Array("{}".utf8)] }
    }

    func hash(_ bytes: ArraySlice<UInt8>) -> String {
        bytes.withUnsafeBytes { sha256!($0) }
    }

    // MARK: Running one input

    /// Runs every decoder-side check on `bytes`; returns the invariants it broke (empty when none).
    /// `valid` says the line was built by `LineCodec` from a valid event, so it must decode and check.
    func run(_ bytes: [UInt8], valid: Bool = false, _ rng: inout SplitMix64) -> [String] {
        var failures: [String] = []
        bytes.withUnsafeBufferPointer { buffer in
            checkReader(buffer, &failures)
            checkFacts(buffer, &failures)
            let lineNumber = 1 + rng.below(1000)
            let decoded: (Envelope, bodyLength: Int)
            do throws(LogProblem) {
                decoded = try LineCodec.decode(buffer, lineNumber: lineNumber)
            } catch {
                count(error)
                if error.kind != .invalidJSON { failures.append("decode threw \(error.kind.rawValue), not invalid-json: \(error)") }
                if error.line != lineNumber { failures.append("decode reported line \(error.line), not \(lineNumber)") }
                if valid { failures.append("a valid line built by LineCodec did not decode: \(error)") }
                return
            }
            stats.decoded += 1
            checkDecoded(buffer, decoded.0, bodyLength: decoded.bodyLength, &failures)
            if !checkChain(buffer, decoded.0, bodyLength: decoded.bodyLength, &rng, &failures) && valid {
                failures.append("a valid line built by LineCodec was refused right after its predecessor")
            }
        }
        return failures
    }

    private func count(_ problem: LogProblem) { stats.problems[problem.kind.rawValue, default: 0] += 1 }

    /// `LineCodec.readInPlace` (replay's in-place reader): facts only for a line the full path
    /// accepts, and then the same event, id, `prev`, `hash` and body length.
    private func checkFacts(_ buffer: UnsafeBufferPointer<UInt8>, _ failures: inout [String]) {
        guard let facts = LineCodec.readInPlace(buffer) else { return }
        stats.facts += 1
        guard let (envelope, bodyLength) = try? LineCodec.decodeGeneric(buffer, lineNumber: 1),
              case .event(let event) = ChainChecker.prepare(envelope) else {
            failures.append("readInPlace read a line the full decoder refuses")
            return
        }
        if facts.event != ViewEvent(RecordedEvent(envelope: envelope, event: event)) { failures.append("readInPlace and the full decoder disagree on the event") }
        if facts.id != UUIDBits(uuid: envelope.id) || facts.prev != Digest32(hex: envelope.prev) || facts.hash != Digest32(hex: envelope.hash)
            || facts.bodyLength != bodyLength {
            failures.append("readInPlace and the full decoder disagree on the envelope")
        }
    }

    /// `JSONReader.parse`: an error points inside the input; a value survives write → read → write unchanged.
    private func checkReader(_ buffer: UnsafeBufferPointer<UInt8>, _ failures: inout [String]) {
        let value: JSONValue
        do {
            value = try JSONReader.parse(buffer)
        } catch {
            if error.offset < 0 || error.offset > buffer.count {
                failures.append("JSONError offset \(error.offset) outside 0...\(buffer.count)")
            }
            return
        }
        stats.json += 1
        let written = JSONWriter.bytes(value)
        do {
            let again = try JSONReader.parse(written)
            if JSONWriter.bytes(again) != written { failures.append("JSON write → read → write changed the text") }
        } catch {
            failures.append("JSONWriter wrote text JSONReader refuses: \(error)")
        }
    }

    /// What a successful decode promises about the line.
    private func checkDecoded(_ buffer: UnsafeBufferPointer<UInt8>, _ envelope: Envelope, bodyLength: Int, _ failures: inout [String]) {
        if bodyLength <= 0 || bodyLength + LineCodec.suffixLength != buffer.count {
            failures.append("bodyLength \(bodyLength) does not leave the fixed hash suffix of a \(buffer.count)-byte line")
            return
        }
        let suffix = Array(buffer[bodyLength...])
        let expected = LineCodec.hashMarker + Array(envelope.hash.utf8) + Array("\"}".utf8)
        if suffix != expected { failures.append("the decoded hash is not the one at the end of the line") }
        if (try? JSONReader.parse(buffer)) == nil { failures.append("decoded a line JSONReader refuses") }
        if envelope.seq < 1 || envelope.v < 1 { failures.append("decoded seq \(envelope.seq) / v \(envelope.v) below 1") }
        if !Identifiers.isLowercaseUUID(envelope.id) { failures.append("decoded an id that is not a lowercase UUID") }
        if !Timestamp.isCanonical(envelope.at.rfc3339) { failures.append("decoded an at that does not print canonically") }
        if StreamName.parse(envelope.stream) == nil { failures.append("decoded a malformed stream") }
        if !Identifiers.isLowerHex(envelope.prev) || !Identifiers.isLowerHex(envelope.hash) { failures.append("decoded a prev/hash that is not 64 hex") }
    }

    /// Checks the envelope three ways: from an empty log with the real hash, right after its declared
    /// predecessor with the real hash, and right after it with the declared hash (to get past the hash
    /// gate to the type and schema checks). The same line twice in a row must never be accepted twice.
    /// True when the check right after the declared predecessor accepted the line.
    private func checkChain(_ buffer: UnsafeBufferPointer<UInt8>, _ envelope: Envelope, bodyLength: Int,
                            _ rng: inout SplitMix64, _ failures: inout [String]) -> Bool {
        let real = sha256.map { $0(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: buffer[0..<bodyLength]))) }
        if let real {
            var fresh = ChainChecker()
            check(&fresh, envelope, bodyHash: real, &failures)
        }
        let previous = Head(seq: envelope.seq - 1, hash: envelope.prev)
        var after = ChainChecker(continuingAfter: previous)
        let accepted = check(&after, envelope, bodyHash: real ?? envelope.hash, &failures)
        // (A checker started after seq Int.max - 1 has no line number left for a second line.)
        if envelope.seq < Int.max && (rng.chance(25) || (accepted && real == nil)) {
            var declared = ChainChecker(continuingAfter: previous)
            let first = check(&declared, envelope, bodyHash: envelope.hash, &failures)
            if first && check(&declared, envelope, bodyHash: envelope.hash, &failures) {
                failures.append("the same line was accepted twice in a row")
            }
        }
        return accepted
    }

    /// One `check`, with its invariants; true when it returned an event.
    @discardableResult
    private func check(_ checker: inout ChainChecker, _ envelope: Envelope, bodyHash: String, _ failures: inout [String]) -> Bool {
        let before = checker.lines
        defer {
            if checker.lines != before + 1 { failures.append("check advanced the line count by \(checker.lines - before)") }
            if checker.head != Head(seq: envelope.seq, hash: envelope.hash) { failures.append("check left the head at another line") }
        }
        do throws(LogProblem) {
            let recorded = try checker.check(envelope, bodyHash: bodyHash)
            stats.events += 1
            if bodyHash != envelope.hash { failures.append("accepted a line whose body hash does not match") }
            // Field by field: `JSONObject ==` is quadratic in the member count and inputs here can be wide.
            let kept = recorded.envelope
            if kept.seq != envelope.seq || kept.id != envelope.id || kept.hash != envelope.hash || kept.data.members.count != envelope.data.members.count {
                failures.append("the recorded envelope differs from the decoded one")
            }
            if recorded.event.type.rawValue != envelope.type { failures.append("typed event \(recorded.event.type) for type \(envelope.type)") }
            do throws(EventDataError) {
                let again = try LedgerEvent.decode(type: recorded.event.type, data: recorded.event.data)
                if again != recorded.event { failures.append("\(envelope.type): data → event → data → event changed the event") }
            } catch {
                failures.append("\(envelope.type): the event's own data does not decode: \(error)")
            }
            return true
        } catch {
            count(error)
            if error.line != before + 1 { failures.append("check reported line \(error.line), not \(before + 1)") }
            if error.kind == .invalidJSON || error.kind == .tornTail { failures.append("check threw \(error.kind.rawValue)") }
            return false
        }
    }
}
