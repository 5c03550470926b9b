// ledger-bench: generates realistic v1 logs and times replay, verify, append and register.
//   ledger-bench generate --events N --out FILE [--seed S]
//   ledger-bench run [--events N] [--runs R] [--ledger PATH] [--work DIR] [--log FILE] [--appends K] [--seed S]
//   ledger-bench append --count K --dir DIR [--runs R] [--store URL] [--batch event|registration] [--tasks N] [--json]
//   ledger-bench registrations --count K --dir DIR [--runs R] [--store URL] [--processes N] [--tasks N] [--json]
// See Docs/Performance.md and Tests/Bench/compare.sh.
import Glibc
import LedgerKit

let usage = """
    usage: ledger-bench generate --events N --out FILE [--seed S]
           ledger-bench run [--events N] [--runs R] [--ledger PATH] [--work DIR] [--log FILE] [--appends K] [--seed S]
           ledger-bench append --count K --dir DIR [--runs R] [--store URL] [--batch event|registration] [--tasks N] [--json]
           ledger-bench registrations --count K --dir DIR [--runs R] [--store URL] [--processes N] [--tasks N] [--json]
    """

/// Writes `text` to standard error.
func complain(_ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

let arguments = CommandLine.arguments
let status: Int32
do {
    StoreTuning.install(try StoreTuning.fromProcessEnvironment())
    switch arguments.count > 1 ? arguments[1] : "" {
    case "generate": status = try GenerateCommand.run(arguments.dropFirst(2))
    case "run": status = try RunCommand.run(arguments.dropFirst(2))
    case "append": status = try AppendBenchmark.run(arguments.dropFirst(2))
    case "registrations": status = try RegistrationBenchmark.run(arguments.dropFirst(2))
    case "help", "--help", "-h":
        print(usage)
        status = 0
    default:
        throw BenchError.usage("a subcommand is needed")
    }
} catch let error as BenchError where error.status == 0 {
    print(usage)
    status = 0
} catch let error as BenchError {
    complain("ledger-bench: \(error)\n")
    if error.status == 2 { complain(usage + "\n") }
    status = error.status
} catch {
    complain("ledger-bench: \(error)\n")
    status = 1
}
exit(status)
