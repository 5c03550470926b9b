import Foundation
import LedgerDomain
import Testing

/// The catalogue in code matches the catalogue in `Events/`: names, schemas, categories.
struct EventCatalogueTests {
    static let catalogue = ["AccountCreated", "ImageStored", "ProfileWritten", "Failed", "ImageDeleted", "AccountDeleted",
                            "SessionStarted", "SessionEnded", "SignInFailed", "AccountDisabled", "AccountEnabled",
                            "EmailVerificationRequested", "EmailVerified", "PasswordResetRequested", "PasswordChanged", "EmailChanged",
                            "PersonalDataErased", "AddressDataErased", "LogMigrated"]

    @Test func wireNamesAreExactlyTheCatalogue() {
        #expect(EventType.allCases.map(\.rawValue) == Self.catalogue)
        for name in Self.catalogue { #expect(EventType(rawValue: name)?.rawValue == name) }
        #expect(EventType(rawValue: "accountCreated") == nil)
        #expect(EventType.allCases.allSatisfy { $0.currentVersion == 1 })
    }

    @Test(arguments: EventType.allCases)
    func everyTypeHasASchema(type: EventType) throws {
        let path = Paths.repo("Events/schema/data/\(type.rawValue).schema.json")
        let schema = try #require(try JSONSerialization.jsonObject(with: Data(readBytes(path))) as? [String: Any], "\(path)")
        #expect(schema["type"] as? String == "object")
        #expect(schema["properties"] is [String: Any])
        // Our payload writes every member the schema requires.
        let required = Set(schema["required"] as? [String] ?? [])
        for n in [1, 2] {
            let written = Set(Fixtures.event(type, n).data.keys)
            #expect(required.isSubset(of: written), "\(type.rawValue) writes \(written), schema requires \(required)")
        }
    }

    @Test func noSchemaWithoutAType() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Paths.repo("Events/schema/data"))
        let names = Set(files.filter { $0.hasSuffix(".schema.json") }.map { String($0.dropLast(".schema.json".count)) })
        #expect(names == Set(Self.catalogue))
    }

    /// The envelope schema's type list and stream categories agree with the code.
    @Test func envelopeSchemaAgrees() throws {
        let schema = try #require(try JSONSerialization.jsonObject(with: Data(readBytes(Paths.repo("Events/schema/envelope.schema.json")))) as? [String: Any])
        #expect(schema["required"] as? [String] == ["seq", "id", "at", "type", "v", "stream", "data", "prev", "hash"])
        let properties = try #require(schema["properties"] as? [String: Any])
        #expect((properties["type"] as? [String: Any])?["enum"] as? [String] == Self.catalogue)
        for rule in try #require(schema["allOf"] as? [[String: Any]]) {
            let types = ((rule["if"] as? [String: Any])?["properties"] as? [String: Any]).flatMap { ($0["type"] as? [String: Any])?["enum"] as? [String] } ?? []
            let pattern = (((rule["then"] as? [String: Any])?["properties"] as? [String: Any])?["stream"] as? [String: Any])?["pattern"] as? String
            for name in types {
                let type = try #require(EventType(rawValue: name))
                let categories = StreamCategory.allCases.filter(type.belongs(in:)).map(\.rawValue)
                #expect(pattern == (categories.count == 1 ? "^\(categories[0])-" : "^(\(categories.joined(separator: "|")))-"), "\(name)")
            }
        }
    }

    @Test func categories() {
        #expect(EventType.allCases.filter { $0.category == .session } == [.sessionStarted, .sessionEnded])
        #expect(EventType.allCases.filter { $0.category == .signin } == [.signInFailed, .addressDataErased])
        #expect(EventType.allCases.filter { $0.category == .migration } == [.logMigrated])
        #expect(EventType.allCases.filter { $0.category == .registration }.count == 6)
        #expect(EventType.allCases.filter { $0.category == .account }
                == [.accountDisabled, .accountEnabled, .emailVerificationRequested, .emailVerified, .passwordResetRequested, .passwordChanged, .emailChanged,
                    .personalDataErased])
        // The two deletions also belong in an account's stream (its owner or an operator deleted it), and nothing else does twice.
        #expect(EventType.allCases.filter { $0.belongs(in: .account) && $0.category != .account } == [.imageDeleted, .accountDeleted])
        #expect(EventType.allCases.allSatisfy { type in StreamCategory.allCases.filter(type.belongs(in:)).count == (type.category == .registration && type.belongs(in: .account) ? 2 : 1) })
        #expect(StreamName.parse("account-" + Fixtures.uuid(1))?.category == .account)
        #expect(StreamName.parse("accounts-" + Fixtures.uuid(1)) == nil)
        #expect(StreamName.parse("session-" + Fixtures.uuid(1))?.category == .session)
        #expect(StreamName.parse("session-" + Fixtures.uuid(1))?.id == Fixtures.uuid(1))
        for bad in ["session", "session-", "Session-" + Fixtures.uuid(1), "session-" + Fixtures.uuid(0xabc).uppercased(), "session_" + Fixtures.uuid(1)] {
            #expect(StreamName.parse(bad) == nil, "\(bad)")
        }
    }
}
