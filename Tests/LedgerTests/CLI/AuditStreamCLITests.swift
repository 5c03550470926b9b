import Foundation
import Testing

// MARK: - AuditStreamCLITests

/// `audit` writes its anomalies as it finds them, in pieces of about 64 KiB, instead of holding the
/// list: with the image folder gone (one `missing-image-file` per stored image, hundreds of KiB of
/// JSON) the output is still one JSON document holding every anomaly once, in the order of the
/// text output, with exit 1.
@Suite struct AuditStreamCLITests {
    @Test func manyAnomaliesAreWrittenWholeInBothForms() throws {
        try withTempDirectory("audit-stream") { folder in
            let log = try GeneratedLog.make(in: folder, events: 40_000, seed: 5)
            let json = try run(Paths.ledger, ["audit", "--log", log, "--json"])
            #expect(json.status == 1)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json.stdout.prefix(200))")
            let anomalies = try #require(object["anomalies"] as? [[String: String]])
            #expect(json.stdout.utf8.count > 3 << 16, "longer than a few of the writer's pieces")
            let images = try run(Paths.ledger, ["images", "--log", log, "--json"])
            let stored = try #require(try JSONSerialization.jsonObject(with: Data(images.stdout.utf8)) as? [[String: Any]])
                .filter { $0["status"] as? String == "stored" }.compactMap { $0["imageName"] as? String }
            let missing = anomalies.filter { $0["kind"] == "missing-image-file" }.compactMap { $0["imageName"] }
            #expect(missing.count > 1000 && missing == stored, "one per stored image, in the images' order")
            #expect(object.keys.sorted() == ["accountChanges", "anomalies", "failedRegistrations", "sessionsRevoked", "signInFailures"])

            let text = try run(Paths.ledger, ["audit", "--log", log], env: ["NO_COLOR": "1"])
            #expect(text.status == 1)
            let lines = text.stdoutLines
            let heading = try #require(lines.firstIndex(of: "ANOMALIES"))
            let listed = lines[(heading + 1)...].filter { $0.hasPrefix("  ") }
            #expect(listed.count == anomalies.count)
            #expect(zip(listed, anomalies).allSatisfy { line, anomaly in line.hasPrefix("  \(anomaly["kind"] ?? "?") ") })
            #expect(!lines.contains("No anomalies."))
        }
    }
}
