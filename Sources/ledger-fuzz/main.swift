// ledger-fuzz: the hostile-input drill. A deterministic, seeded mutation loop over the log line
// decoder (JSONReader, LineCodec, ChainChecker, LogScanner) and the image checker (ImageInspector,
// RegistrationValidator). Exit 0 when every input ended in a value or the declared error and every
// invariant held; 1 on an invariant failure; 2 on bad usage; 70 on a hang. A crash is a death by signal,
// with the input named on standard error first.
//
//   ledger-fuzz decoder|image|all [--iterations N] [--seed S] [--max-seconds T] [--start I]
//                                 [--timeout SECS] [--corpus FILE] [--no-specials]
import Glibc
import LedgerDomain
import LedgerKit

// MARK: - Options

let usage = """
usage: ledger-fuzz decoder|image|all [--iterations N] [--seed S] [--max-seconds T] [--start I]
                                     [--timeout SECS] [--corpus FILE] [--no-specials]
  --iterations N   random inputs to run (default 100000); in `all` even inputs go to the decoder, odd to the image checker
  --seed S         the seed (default: from the clock; printed in the summary)
  --max-seconds T  stop starting new inputs after T seconds
  --start I        the index of the first input (replay one input with --start I --iterations 1)
  --timeout SECS   the CPU time one input may take before it counts as a hang (default 2; specials get 10x);
                   one still running after 5x that in wall-clock time is a hang too
  --corpus FILE    a log whose lines seed the decoder (default: Events/samples/demo/events.jsonl when found)
  --no-specials    skip the fixed hostile inputs run before the random ones
"""

func die(_ message: String, _ status: Int32) -> Never {
    let text = "ledger-fuzz: \(message)\n"
    _ = text.withCString { write(2, $0, strlen($0)) }
    exit(status)
}

func say(_ text: String) {
    _ = (text + "\n").withCString { write(1, $0, strlen($0)) }
}

struct Options {
    var mode = ""
    var iterations = 100_000
    var seed: UInt64?
    var maxSeconds: Double?
    var start = 0
    var timeout: UInt32 = 2
    var corpus: String?
    var specials = true

    init(_ arguments: [String]) {
        var rest = arguments[...]
        func value<T>(_ flag: String, _ what: String, _ parse: (String) -> T?) -> T {
            guard let next = rest.popFirst() else { die("\(flag) needs a value\n\(usage)", 2) }
            guard let parsed = parse(next) else { die("\(flag) must be \(what), not \(next)\n\(usage)", 2) }
            return parsed
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "decoder", "image", "all":
                guard mode.isEmpty else { die("one target only\n\(usage)", 2) }
                mode = argument
            case "--iterations": iterations = value(argument, "a count") { Int($0).flatMap { $0 >= 0 ? $0 : nil } }
            case "--seed": seed = value(argument, "an unsigned integer") { UInt64($0) }
            case "--max-seconds": maxSeconds = value(argument, "positive seconds") { Double($0).flatMap { $0 > 0 ? $0 : nil } }
            case "--start": start = value(argument, "an index") { Int($0).flatMap { $0 >= 0 ? $0 : nil } }
            case "--timeout": timeout = value(argument, "positive whole seconds") { UInt32($0).flatMap { $0 > 0 ? $0 : nil } }
            case "--corpus": corpus = value(argument, "a path") { $0 }
            case "--no-specials": specials = false
            case "-h", "--help": say(usage); exit(0)
            default: die("unexpected argument \(argument)\n\(usage)", 2)
            }
        }
        if mode.isEmpty { die("name a target: decoder, image or all\n\(usage)", 2) }
    }
}

func now() -> Double { seconds(of: CLOCK_MONOTONIC) }

/// The CPU time this thread has used: what one input costs, whatever else the machine is running
/// (a loaded machine slows an input down in wall-clock time, never in CPU time).
func cpuNow() -> Double { seconds(of: CLOCK_THREAD_CPUTIME_ID) }

func seconds(of clock: clockid_t) -> Double {
    var time = timespec()
    clock_gettime(clock, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// The wall-clock time an input may run before the watchdog ends it, for a CPU limit of `seconds`:
/// a backstop for an input that blocks without using the CPU, loose enough that a loaded machine never trips it.
func wallLimit(_ seconds: UInt32) -> UInt32 { seconds * 5 }

/// The lines of the demo log (or `--corpus`), found relative to the working directory or to this binary.
func corpusLines(_ path: String?) -> (lines: [[UInt8]], source: String) {
    var candidates: [String] = []
    if let path { candidates = [path] } else {
        candidates.append("Events/samples/demo/events.jsonl")
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if count > 0 {
            var folder = String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            for _ in 0..<6 {  // .build/<triple>/<configuration>/ledger-fuzz → the repository
                folder = FileSystem.directoryName(folder)
                candidates.append(folder + "/Events/samples/demo/events.jsonl")
            }
        }
    }
    for candidate in candidates where FileSystem.exists(candidate) {
        guard let bytes = try? FileSystem.read(candidate, limit: 64 << 20) else { continue }
        let lines = bytes.split(separator: 0x0A).map(Array.init)
        return (lines, candidate)
    }
    if let path { die("cannot read --corpus \(path)", 2) }
    return ([], "generated lines only (no demo log found)")
}

// MARK: - Run

let options = Options(Array(CommandLine.arguments.dropFirst()))
let seed = options.seed ?? UInt64(UInt(bitPattern: time(nil))) &* 2_654_435_761 ^ UInt64(getpid())
let (demo, corpusSource) = corpusLines(options.corpus)
let decoder = DecoderTarget(sha256: { SHA256.hex($0) }, demoLines: demo)
var image = ImageTarget()
let scanner: ScannerTarget
do { scanner = try ScannerTarget() } catch { die("\(error)", 1) }

var replay = "ledger-fuzz \(options.mode) --seed \(seed) --no-specials"
if let corpus = options.corpus { replay += " --corpus \(corpus)" }
Watchdog.install(replay: replay)

struct Failure { let label: String; let message: String; let bytes: [UInt8] }
var failures: [Failure] = []
var decoderInputs = 0, imageInputs = 0, specialInputs = 0
var slowest = (seconds: 0.0, label: "-")
let started = now()

@MainActor func record(_ broken: [String], label: String, bytes: [UInt8]) {
    for message in broken {
        failures.append(Failure(label: label, message: message, bytes: bytes))
        if failures.count <= 20 {
            let preview = bytes.prefix(160).map { $0 >= 0x20 && $0 < 0x7F ? String(UnicodeScalar($0)) : "\\x" + String($0, radix: 16) }.joined()
            say("INVARIANT FAILURE \(label): \(message)\n  input (\(bytes.count) bytes): \(preview)\(bytes.count > 160 ? "…" : "")")
        }
    }
}

@MainActor func timed(_ label: String, _ body: () -> Void) {
    let t0 = cpuNow()
    body()
    let elapsed = cpuNow() - t0
    if elapsed > slowest.seconds { slowest = (elapsed, label) }
    if elapsed > Double(options.timeout) * (label.hasPrefix("special") ? 10 : 1) {
        say("ledger-fuzz: HANG: \(label) took \(elapsed) s of CPU")
        exit(Watchdog.hangStatus)
    }
}

if options.specials && options.mode != "image" {
    var rng = SplitMix64(seed: seed, index: UInt64.max)
    for (k, special) in Special.all(line: decoder.corpus[0], decoder: decoder).enumerated() {
        Watchdog.begin(index: k, target: 2, seconds: wallLimit(options.timeout * 10))
        timed("special #\(k) (\(special.name))") {
            record(special.verify(decoder: decoder, &rng), label: "special #\(k) (\(special.name))", bytes: special.bytes)
        }
        specialInputs += 1
    }
}

for index in options.start..<(options.start + options.iterations) {
    if index & 255 == 0, let limit = options.maxSeconds, now() - started > limit { break }
    let target = options.mode == "all" ? index % 2 : (options.mode == "decoder" ? 0 : 1)
    var rng = SplitMix64(seed: seed, index: UInt64(index))
    Watchdog.begin(index: index, target: target, seconds: wallLimit(options.timeout))
    if target == 0 {
        decoderInputs += 1
        let (bytes, valid) = decoder.generate(&rng)
        timed("input #\(index) (decoder)") {
            record(decoder.run(bytes, valid: valid, &rng), label: "input #\(index) (decoder)", bytes: bytes)
            if rng.chance(3) {  // now and then, several inputs as one file through the scanner
                var lines = (0..<rng.int(in: 1...6)).map { _ in rng.chance(50) ? rng.pick(decoder.corpus) : decoder.generate(&rng).bytes }
                lines.insert(bytes, at: rng.below(lines.count + 1))
                if rng.chance(5) { lines.insert([], at: rng.below(lines.count + 1)) }
                if rng.chance(2) {  // a line longer than the scanner's chunk
                    lines.insert(decoder.adding("pad", [UInt8](repeating: UInt8(ascii: "1"), count: LogScanner.chunkSize + rng.below(1 << 20)), toDataOf: rng.pick(decoder.corpus)), at: 0)
                }
                record(scanner.run(lines, terminated: rng.chance(85), stats: &decoder.stats), label: "input #\(index) (decoder, scanned)", bytes: bytes)
            }
        }
    } else {
        imageInputs += 1
        let bytes = image.generate(&rng)
        timed("input #\(index) (image)") {
            record(image.run(bytes, &rng), label: "input #\(index) (image)", bytes: bytes)
        }
    }
    if failures.count > 1000 { say("ledger-fuzz: stopping after 1000 invariant failures"); break }
}
Watchdog.stop()

// MARK: - Summary

let seconds = now() - started
var resources = rusage()
getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &resources)
let stats = decoder.stats
func counts(_ table: [String: Int]) -> String { table.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") }
say("corpus: \(corpusSource) (\(demo.count) lines) + \(decoder.corpus.count - demo.count) generated lines")
if specialInputs > 0 { say("specials: \(specialInputs) fixed hostile inputs (deep nesting, huge numbers, bad UTF-8, lone surrogates, 8 MB strings, 200000 members)") }
say("decoder: \(stats.json) JSON values, \(stats.decoded) envelopes (\(stats.facts) read in place too), \(stats.events) events, \(stats.scans) scanned files; problems: \(counts(stats.problems))")
say("image: \(counts(image.accepted)); validation: \(counts(image.validations))")
say("slowest: \(slowest.label) \(Int(slowest.seconds * 1000)) ms of CPU; max RSS \(resources.ru_maxrss / 1024) MB")
let total = decoderInputs + imageInputs + specialInputs
say("fuzzed \(total) inputs (decoder \(decoderInputs + specialInputs), image \(imageInputs)) in \(Int(seconds.rounded())) s: 0 crashes, 0 hangs, \(failures.count) invariant failures; seed \(seed)")
if !failures.isEmpty {
    say("replay one input: \(replay) --start I --iterations 1")
    exit(1)
}
exit(0)
