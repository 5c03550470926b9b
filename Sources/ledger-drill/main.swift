// ledger-drill: a tool for the reliability drills, not for operators.
//   ledger-drill append DIR COUNT   append COUNT single-event batches (SignInFailed) to DIR's log
import Glibc
import LedgerDomain
import LedgerKit

func fail(_ message: String, _ status: Int32) -> Never {
    let line = "ledger-drill: \(message)\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(status)
}

let arguments = CommandLine.arguments
guard arguments.count == 4, arguments[1] == "append", let count = Int(arguments[3]), count >= 0 else {
    fail("usage: ledger-drill append DIR COUNT", 2)
}
let store = FileEventStore(directory: arguments[2])
let random = SecureRandom()
for n in 0..<count {
    let stream = StreamCategory.signin.stream(Identifiers.uuid(fromRandom: random.bytes(16)))
    let event = LedgerEvent.signInFailed(SignInFailed(email: "drill-\(getpid())-\(n)@example.com", reason: .unknownEmail))
    do {
        _ = try store.append([event], to: stream, expected: .noStream)
    } catch {
        fail("\(error)", 1)
    }
}
