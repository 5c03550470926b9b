// MARK: - JSONValue

/// A parsed JSON value; objects keep their members in source order.
public enum JSONValue: Equatable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number without fraction or exponent that fits in `Int`.
    case int(Int)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object, members in source order (keys are unique).
    case object(JSONObject)
}

// MARK: - JSONObject

/// A JSON object with unique keys, kept in insertion order. Lookups are linear: objects here are small.
public struct JSONObject: Equatable, Sendable {
    /// The members in order.
    public private(set) var members: [(key: String, value: JSONValue)]

    /// An object from ordered members; later duplicates replace earlier ones.
    public init(_ members: [(String, JSONValue)] = []) {
        self.members = []
        self.members.reserveCapacity(members.count)
        if members.count < 16 {
            for (key, value) in members { self[key] = value }
            return
        }
        // Wide objects (checkpoints): index positions so building stays linear.
        var position: [String: Int] = [:]
        for (key, value) in members {
            if let index = position[key] {
                self.members[index].value = value
            } else {
                position[key] = self.members.count
                self.members.append((key, value))
            }
        }
    }

    /// An object from members whose keys are already known to be unique (the reader checks them),
    /// without the per-member search of `init(_:)`, which is quadratic in the member count.
    init(uniqueMembers members: [(key: String, value: JSONValue)]) {
        self.members = members
    }

    /// The value of `key`, or nil when absent; setting nil removes it.
    public subscript(key: String) -> JSONValue? {
        get { members.first(where: { $0.key == key })?.value }
        set {
            if let index = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[index].value = newValue } else { members.remove(at: index) }
            } else if let newValue {
                members.append((key, newValue))
            }
        }
    }

    /// The keys in order.
    public var keys: [String] { members.map(\.key) }

    /// Members compare equal regardless of order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        return lhs.members.allSatisfy { rhs[$0.key] == $0.value }
    }
}

// MARK: - Accessors

extension JSONValue {
    /// The string, if this is one.
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    /// The integer, if this is an integral number.
    public var intValue: Int? { if case .int(let i) = self { i } else { nil } }
    /// The object, if this is one.
    public var objectValue: JSONObject? { if case .object(let o) = self { o } else { nil } }
    /// True for `null`.
    public var isNull: Bool { self == .null }

    /// The JSON type name used in error messages (`string`, `integer`, ...).
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .int: "integer"
        case .double: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}
