import Foundation
import LedgerKit
import Testing

// MARK: - Registration loops and their checks

/// What a loop of `ledger register` processes left: one line per acknowledged registration
/// (`EMAIL JSON`) and the standard error of every failed one.
struct RegistrationLoops {
    /// The folder holding `ok.N` and `err.N`.
    let folder: String
    /// The loops still running.
    let processes: [RunningProcess]

    /// Starts `procs` bash loops of `per` registrations each against `url`. Odd-numbered loops race
    /// on the same emails (`shared-I@…`); even-numbered ones use emails of their own.
    static func start(folder: String, url: String, data: String, procs: Int, per: Int, tag: String) throws -> RegistrationLoops {
        let script = """
            p=$1; per=$2; tag=$3; d=$4
            for i in $(seq 1 "$per"); do
              if [ $((p % 2)) -eq 1 ]; then email="shared-$tag-$i@example.com"; else email="p$p-$tag-$i@example.com"; fi
              if out=$(printf 'drill-password-%s\\n' "$i" | "$LEDGER" register --email "$email" --username "P$p" --password-stdin --json 2>>"$d/err.$p"); then
                printf '%s %s\\n' "$email" "$out" >> "$d/ok.$p"
              else
                echo "exit $?" >> "$d/status.$p"
              fi
            done
            """
        let env = ["LEDGER_STORE": url, "LEDGER_DATA": data, "LEDGER": Paths.ledger, "LEDGER_HASH_COST": "1", "LEDGER_FAILPOINTS": ""]
        let processes = try (1...procs).map { p in
            try LedgerTests.start("/bin/bash", ["-c", script, "loop", String(p), String(per), tag, folder], env: env)
        }
        return RegistrationLoops(folder: folder, processes: processes)
    }

    /// Waits for every loop.
    func wait() throws { for process in processes { _ = try process.wait() } }

    /// Acknowledged registrations so far: (email, registration id).
    func acknowledged() throws -> [(email: String, registration: String)] {
        var out: [(String, String)] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasPrefix("ok.") {
            for line in try readText("\(folder)/\(name)").split(separator: "\n") {
                let parts = line.split(separator: " ", maxSplits: 1)
                let object = try parseJSON(String(parts[1])) as? [String: Any]
                out.append((String(parts[0]), object?["registration"] as? String ?? ""))
            }
        }
        return out
    }

    /// Everything the failed registrations wrote to standard error.
    func errors() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("err.") }.flatMap { name in
            try readText("\(folder)/\(name)").split(separator: "\n").map(String.init)
        }
    }
}

/// `ledger export --keys` of a store (`run` runs `ledger ARGS` against it) as a copy of its own in
/// `folder`: the lines in `export.jsonl`, the data keys in `export.keys`; the copy verifies on its
/// own (`ledger verify COPY --keys KEYS`, and `verify_log.py`, which checks the chain without keys).
/// Returns the copy's lines parsed, their personal members opened with the exported keys.
func exportedCopy(in folder: String, run: ([String]) throws -> ProcessResult,
                  sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]] {
    let copy = "\(folder)/export.jsonl", keys = "\(folder)/export.keys"
    let exported = try run(["export", "--keys", keys])
    guard exported.status == 0 else { throw SystemTestError("ledger export --keys failed: \(exported)") }
    try writeBytes(Array(exported.stdout.utf8), to: copy)
    let verify = try ledger("verify", copy, "--keys", keys)
    #expect(verify.status == 0, "\(verify)", sourceLocation: sourceLocation)
    #expect(try pythonTool("verify_log.py", [copy]).status == 0, sourceLocation: sourceLocation)
    return try openedJSONLines(try readBytes(copy), opener: KeyRing(keyStorePath: keys))
}

/// The checks of the file backend's concurrency drill, on an exported log (its lines parsed, their
/// personal members opened: `exportedCopy`): seqs 1…n without gap or duplicate, no two live
/// accounts share an email, live accounts = distinct acknowledged emails (when `exactAccounts`),
/// and every acknowledged registration is completed in the log.
func checkRegistrationLog(_ events: [[String: Any]], acknowledged: [(email: String, registration: String)], exactAccounts: Bool = true,
                          sourceLocation: SourceLocation = #_sourceLocation) throws {
    var seqs: [Int] = []
    var live: [String: String] = [:]
    var completed = Set<String>()
    for event in events {
        guard let data = event["data"] as? [String: Any], let type = event["type"] as? String, let stream = event["stream"] as? String else {
            throw SystemTestError("bad line \(event)")
        }
        seqs.append(event["seq"] as? Int ?? -1)
        switch type {
        case "AccountCreated":
            guard let email = data["email"] as? String else { throw SystemTestError("an AccountCreated whose email does not read: \(event)") }
            live[data["uid"] as? String ?? ""] = email
        case "AccountDeleted": live[data["uid"] as? String ?? ""] = nil
        case "ProfileWritten": completed.insert(String(stream.dropFirst("registration-".count)))
        default: break
        }
    }
    #expect(seqs == (seqs.isEmpty ? [] : Array(1...seqs.count)), "seq gap or duplicate", sourceLocation: sourceLocation)
    let emails = Array(live.values)
    #expect(emails.count == Set(emails).count, "two live accounts share an email", sourceLocation: sourceLocation)
    let ackedEmails = Set(acknowledged.map(\.email))
    #expect(acknowledged.count == ackedEmails.count, "an email was acknowledged twice", sourceLocation: sourceLocation)
    if exactAccounts {
        #expect(emails.count == ackedEmails.count, "\(emails.count) live accounts, \(ackedEmails.count) emails acknowledged", sourceLocation: sourceLocation)
    }
    let missing = acknowledged.filter { !completed.contains($0.registration) }
    #expect(missing.isEmpty, "acknowledged but not completed in the log: \(missing.prefix(5))", sourceLocation: sourceLocation)
}
