// ledger-drill: a tool for the reliability drills, not for operators.
//   ledger-drill append DIR COUNT           append COUNT single-event batches (SignInFailed) to DIR's log
//   ledger-drill group DIR THREADS COUNT [accounts]
//                                           THREADS threads each append COUNT single-event batches through
//                                           one group committer; prints a JSON summary: every acknowledged
//                                           event id, every refusal (thread, batch, message), the groups written.
//                                           With `accounts`, each batch is an AccountCreated of a new uid
//                                           (so each makes a data key) instead of a SignInFailed.
import Glibc
import LedgerDomain
import LedgerKit
import Synchronization

func fail(_ message: String, _ status: Int32) -> Never {
    let line = "ledger-drill: \(message)\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(status)
}

/// A single-event batch of a stream of its own (a sign-in failure of a made-up address, or with
/// `account` a new account of a new uid).
func batch(_ n: Int, random: SecureRandom, account: Bool = false) -> StreamAppend {
    if account {
        let uid = Identifiers.uuid(fromRandom: random.bytes(16))
        let created = AccountCreated(uid: uid, email: "drill-\(getpid())-\(n)@example.com",
                                     passwordHash: "$y$j9T$abcdefghijklmnop$" + String(repeating: "A", count: 43))
        return StreamAppend([.accountCreated(created)], to: StreamCategory.registration.stream(uid), expected: .noStream)
    }
    let stream = StreamCategory.signin.stream(Identifiers.uuid(fromRandom: random.bytes(16)))
    let event = LedgerEvent.signInFailed(SignInFailed(email: "drill-\(getpid())-\(n)@example.com", reason: .unknownEmail))
    return StreamAppend([event], to: stream, expected: .noStream)
}

do { StoreTuning.install(try StoreTuning.fromProcessEnvironment()) } catch { fail("\(error)", 2) }
let arguments = CommandLine.arguments
switch (arguments.count, arguments.count > 1 ? arguments[1] : "") {
case (4, "append"):
    guard let count = Int(arguments[3]), count >= 0 else { fail("usage: ledger-drill append DIR COUNT", 2) }
    let store = FileEventStore(directory: arguments[2])
    let random = SecureRandom()
    for n in 0..<count {
        do { _ = try store.append([batch(n, random: random)], condition: nil) } catch { fail("\(error)", 1) }
    }
case (5, "group"), (6, "group"):
    guard let threads = Int(arguments[3]), let count = Int(arguments[4]), threads >= 1, count >= 0,
          arguments.count == 5 || arguments[5] == "accounts" else {
        fail("usage: ledger-drill group DIR THREADS COUNT [accounts]", 2)
    }
    let accounts = arguments.count == 6
    let committer = GroupCommitter(store: FileEventStore(directory: arguments[2]))
    let acknowledged = Mutex<[String]>([]), refused = Mutex<[JSONValue]>([])
    OwnThreads.run(threads) { thread in
        let random = SecureRandom()
        for n in 0..<count {
            do {
                let events = try committer.append([batch(thread * count + n, random: random, account: accounts)], condition: nil)
                acknowledged.withLock { $0 += events.map(\.envelope.id) }
            } catch {
                refused.withLock {
                    $0.append(.object(JSONObject([("thread", .int(thread)), ("batch", .int(n)), ("message", .string("\(error)"))])))
                }
            }
        }
    }
    let summary = JSONObject([("acknowledged", .array(acknowledged.withLock { $0 }.map(JSONValue.string))),
                              ("refused", .array(refused.withLock { $0 })), ("groups", .int(committer.groupsWritten))])
    print(JSONWriter.string(.object(summary)))
default:
    fail("usage: ledger-drill append DIR COUNT | group DIR THREADS COUNT [accounts]", 2)
}
