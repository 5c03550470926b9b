// MARK: - libFuzzer entry (coverage-guided; not part of the SwiftPM build)
//
// Compiled only with `-D LIBFUZZER`, together with the LedgerDomain sources as one module, e.g.
//
//   swiftc -sanitize=fuzzer -parse-as-library -O -swift-version 6 -D LIBFUZZER -module-name LedgerFuzzCoverage \
//     $(find Sources/LedgerDomain -name '*.swift') \
//     Sources/ledger-fuzz/{SplitMix64+Drill,Mutator,JSONGen,DecoderTarget,ImageTarget,LibFuzzerEntry}.swift \
//     -o /tmp/ledger-libfuzzer
//   LEDGER_FUZZ_TARGET=decoder /tmp/ledger-libfuzzer -max_len=4096 -timeout=2 -max_total_time=300 CORPUS_DIR
//
// Without libcrypto the chain checks use each line's declared hash (which gets past the hash gate).
// `LEDGER_FUZZ_TARGET=image` fuzzes the image checker instead. A broken invariant aborts, so libFuzzer
// keeps the input as a crash.
#if LIBFUZZER
import Glibc

nonisolated(unsafe) private let libFuzzerDecoder = DecoderTarget(sha256: nil, demoLines: [])
nonisolated(unsafe) private var libFuzzerImage = ImageTarget()
private let libFuzzerTarget: String = getenv("LEDGER_FUZZ_TARGET").map { String(cString: $0) } ?? "decoder"

@_cdecl("LLVMFuzzerTestOneInput")
public func libFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    if bytes.last == 0x0A { bytes.removeLast() }  // corpus files may be whole log lines
    var rng = SplitMix64(seed: UInt64(size))
    let failures = libFuzzerTarget == "image" ? libFuzzerImage.run(bytes, &rng) : libFuzzerDecoder.run(bytes, &rng)
    if !failures.isEmpty {
        for failure in failures {
            let line = "ledger-fuzz invariant: \(failure)\n"
            _ = line.withCString { write(2, $0, strlen($0)) }
        }
        abort()
    }
    return 0
}
#endif
