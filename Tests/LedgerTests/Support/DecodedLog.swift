import Foundation
import Glibc
import LedgerDomain
import LedgerKit

// MARK: - The log as readers decode it

/// The events of the log at `path`, read and verified as ledger's readers read them: the personal
/// members of data version 2 lines opened with the key ring of the log's folder (`events.keys`), so
/// `event` holds plain text while `envelope.data` holds what is stored. Empty when there is no log;
/// damage throws.
func decodedEvents(ofLog path: String) throws -> [RecordedEvent] {
    guard FileManager.default.fileExists(atPath: path) else { return [] }
    let log = try FileDescriptor(path: path, flags: O_RDONLY)
    var checker = ChainChecker(opener: KeyRing(directory: FileSystem.directoryName(path)))
    var events: [RecordedEvent] = []
    var damage: LogProblem?
    try LogScanner.scan(log, checker: &checker) { item in
        switch item {
        case .event(let event, _, _): events.append(event); return true
        case .problem(let problem, _, _): damage = problem; return false
        case .tornTail: return false
        }
    }
    if let damage { throw SystemTestError("\(path) is damaged: \(damage)") }
    return events
}

/// Every complete line of `log` (JSON lines, as stored in the data folder `directory` or exported
/// from it), parsed as a JSON object, with each encrypted member of a data version 2 line replaced
/// by its text, opened with the folder's keys (`null` when its subject's key is erased or missing,
/// as `decrypt_log.py` shows it). Line by line, without checking the chain: damaged and torn logs
/// read too. A line that is not a JSON object, or a member that does not open, throws.
func openedJSONLines(_ log: [UInt8], directory: String) throws -> [[String: Any]] {
    try openedJSONLines(log, opener: KeyRing(directory: directory))
}

/// Every complete line of `log` parsed, its encrypted members opened with `ring` (e.g. a
/// `PostgresKeyRing` for a PostgreSQL store's export), as `openedJSONLines(_:directory:)` does.
func openedJSONLines(_ log: [UInt8], opener ring: any PersonalDataOpener) throws -> [[String: Any]] {
    try splitLines(log).map { line in
        guard var object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
            throw SystemTestError("log line is not an object")
        }
        guard (object["v"] as? Int) == 2, let id = object["id"] as? String, let type = (object["type"] as? String).flatMap(EventType.init),
              var data = object["data"] as? [String: Any] else { return object }
        for (name, value) in data {
            guard let member = encryptedMember(value) else { continue }
            switch ring.open(member, eventID: id, type: type, name: name) {
            case .text(let text): data[name] = text
            case .erased, .missingKey: data[name] = NSNull()
            case .unreadable(let why): throw SystemTestError("\(type.rawValue).\(name) of \(id) does not open: \(why)")
            }
        }
        object["data"] = data
        return object
    }
}

/// `value` (a member of a parsed line's `data`) as an encrypted member, when it is one.
private func encryptedMember(_ value: Any) -> EncryptedMember? {
    guard let object = value as? [String: Any], object.count == 3, let subject = object["subject"] as? String,
          let nonce = object["nonce"] as? String, let ciphertext = object["ciphertext"] as? String else { return nil }
    return try? EncryptedMember(json: .object(JSONObject([("subject", .string(subject)), ("nonce", .string(nonce)),
                                                          ("ciphertext", .string(ciphertext))])))
}

/// Every string in `value` (parsed JSON: e.g. a log's opened lines), at any depth, member names
/// included: what a canary looks through, so that a secret kept in a personal member is found
/// though the log stores it encrypted.
func strings(in value: Any) -> [String] {
    switch value {
    case let text as String: [text]
    case let array as [Any]: array.flatMap { strings(in: $0) }
    case let object as [String: Any]: object.flatMap { [$0.key] + strings(in: $0.value) }
    default: []
    }
}
