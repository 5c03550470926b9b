// MARK: - UnicodeNFC

/// Unicode Normalization Form C (UAX #15), built on our own generated tables (`UnicodeNFCTables`, Unicode 14.0.0),
/// so the pure core needs neither Foundation, ICU nor the standard library's underscored normalization API.
///
/// Passwords are normalized with it before hashing (RFC 8265 OpaqueString), so two keyboards that type the same
/// password as different scalars (`é` precomposed, or `e` and a combining acute) hash the same. The result must
/// never move once a hash depends on it: the tables are pinned to one Unicode version (`unicodeVersion`), and a
/// new version is a deliberate change.
///
/// Note that Swift's `==` on `String` already compares by canonical equivalence; NFC matters where the exact
/// scalars (or their UTF-8 bytes) leave Swift, as they do when a password is hashed.
public enum UnicodeNFC {
    /// The Unicode version of the character data the normalization follows.
    public static let unicodeVersion = "14.0.0"

    /// `text` in Normalization Form C: fully canonically decomposed, combining marks put in canonical order
    /// (stable sort by combining class), then canonically recomposed, Hangul syllables included.
    public static func normalize(_ text: String) -> String {
        if isPlainlyNormalized(text) { return text }
        var scalars = decompose(text.unicodeScalars)
        sortCombiningMarks(&scalars)
        compose(&scalars)
        var view = String.UnicodeScalarView()
        for entry in scalars {
            // Every value comes from a valid scalar or from the tables, which hold valid scalars only.
            if let scalar = Unicode.Scalar(entry.value) { view.append(scalar) }
        }
        return String(view)
    }

    /// True when `scalar` is assigned in Unicode 14.0.0 (any general category but Cn): the pinned
    /// version decides, not the toolchain's newer one, so a password never holds a code point whose
    /// normalization this version does not know.
    public static func isAssigned(_ scalar: Unicode.Scalar) -> Bool {
        let ranges = UnicodeNFCTables.assignedRanges
        var low = 0, high = ranges.count
        while low < high {  // the first range whose first scalar is above `scalar`
            let middle = (low + high) / 2
            if UInt32(ranges[middle] >> 32) <= scalar.value { low = middle + 1 } else { high = middle }
        }
        return low > 0 && scalar.value <= UInt32(truncatingIfNeeded: ranges[low - 1])
    }

    /// True when `text` is already in Normalization Form C, scalar for scalar.
    public static func isNormalized(_ text: String) -> Bool {
        // Compare scalars, not strings: `String ==` holds for any canonically equivalent pair.
        isPlainlyNormalized(text) || text.unicodeScalars.elementsEqual(normalize(text).unicodeScalars)
    }

    // MARK: - Fast path

    /// True when every scalar is below the quick-check bound (U+0300): such text is NFC as it stands.
    private static func isPlainlyNormalized(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0.value < UnicodeNFCTables.quickCheckBound }
    }

    // MARK: - Steps

    /// A scalar of the text being normalized, with its canonical combining class.
    private struct Entry {
        /// The scalar value.
        var value: UInt32
        /// Its canonical combining class (0 for starters).
        var combiningClass: UInt8

        /// `value` with its class looked up.
        init(_ value: UInt32) {
            self.value = value
            self.combiningClass = UnicodeNFC.combiningClass(of: value)
        }
    }

    /// The full canonical decomposition of `scalars`, each with its combining class.
    private static func decompose(_ scalars: String.UnicodeScalarView) -> [Entry] {
        var out: [Entry] = []
        out.reserveCapacity(scalars.count + 8)
        for scalar in scalars {
            let value = scalar.value
            if Hangul.isSyllable(value) {
                Hangul.decompose(value) { out.append(Entry($0)) }
            } else if let range = decompositionRange(of: value) {
                for index in range { out.append(Entry(UnicodeNFCTables.decomposedScalars[index])) }
            } else {
                out.append(Entry(value))
            }
        }
        return out
    }

    /// Puts each run of combining marks (nonzero class) in canonical order: a stable sort by class, so marks of
    /// the same class keep their order (insertion sort: runs are short).
    private static func sortCombiningMarks(_ scalars: inout [Entry]) {
        guard scalars.count > 1 else { return }
        for index in 1..<scalars.count where scalars[index].combiningClass != 0 {
            var position = index
            let moving = scalars[position]
            while position > 0, scalars[position - 1].combiningClass > moving.combiningClass {
                scalars[position] = scalars[position - 1]
                position -= 1
            }
            scalars[position] = moving
        }
    }

    /// Canonical composition of decomposed, ordered `scalars`: each scalar joins the last starter when that
    /// starter and it have a primary composite and nothing between them blocks it (a scalar between blocks when
    /// its class is 0 or not lower than the candidate's).
    private static func compose(_ scalars: inout [Entry]) {
        var out: [Entry] = []
        out.reserveCapacity(scalars.count)
        var starter: Int? = nil
        for entry in scalars {
            if let starterIndex = starter {
                let adjacent = starterIndex == out.count - 1
                // When not adjacent, the last kept scalar is a mark (a kept starter would be the starter).
                let lastClass = out[out.count - 1].combiningClass
                if adjacent || (lastClass != 0 && lastClass < entry.combiningClass),
                   let composite = composition(of: out[starterIndex].value, with: entry.value) {
                    out[starterIndex] = Entry(composite)
                    continue
                }
            }
            if entry.combiningClass == 0 { starter = out.count }
            out.append(entry)
        }
        scalars = out
    }

    // MARK: - Table lookups

    /// The canonical combining class of `value` (0 when the table has no entry).
    private static func combiningClass(of value: UInt32) -> UInt8 {
        if value < UnicodeNFCTables.quickCheckBound { return 0 }
        let table = UnicodeNFCTables.combiningClasses
        guard let index = search(table.count, for: UInt64(value), key: { UInt64(table[$0] >> 8) }) else { return 0 }
        return UInt8(truncatingIfNeeded: table[index])
    }

    /// Where the full canonical decomposition of `value` sits in `decomposedScalars`, or nil when it has none.
    private static func decompositionRange(of value: UInt32) -> Range<Int>? {
        let table = UnicodeNFCTables.decompositions
        guard let index = search(table.count, for: UInt64(value), key: { table[$0] >> 32 }) else { return nil }
        let offset = Int((table[index] >> 8) & 0xFF_FFFF)
        return offset..<(offset + Int(table[index] & 0xFF))
    }

    /// The primary composite of `first` followed by `second`, or nil when the pair does not compose.
    private static func composition(of first: UInt32, with second: UInt32) -> UInt32? {
        if let composite = Hangul.compose(first, second) { return composite }
        let table = UnicodeNFCTables.compositions
        let pair = UInt64(first) << 21 | UInt64(second)
        guard let index = search(table.count, for: pair, key: { table[$0] >> 21 }) else { return nil }
        return UInt32(truncatingIfNeeded: table[index] & 0x1F_FFFF)
    }

    /// Binary search of a sorted table of `count` entries for the one whose `key` is `target`.
    private static func search(_ count: Int, for target: UInt64, key: (Int) -> UInt64) -> Int? {
        var low = 0
        var high = count
        while low < high {
            let middle = low + (high - low) / 2
            let found = key(middle)
            if found == target { return middle }
            if found < target { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    // MARK: - Hangul

    /// Hangul syllables, decomposed and composed by arithmetic (The Unicode Standard, section 3.12) rather than
    /// by table: 11,172 syllables, each a leading consonant (L), a vowel (V) and an optional trailing consonant (T).
    private enum Hangul {
        /// The first syllable, U+AC00.
        static let syllableBase: UInt32 = 0xAC00
        /// The first leading consonant jamo, U+1100.
        static let leadingBase: UInt32 = 0x1100
        /// The first vowel jamo, U+1161.
        static let vowelBase: UInt32 = 0x1161
        /// One before the first trailing consonant jamo (U+11A8): a trailing index of 0 means "no T".
        static let trailingBase: UInt32 = 0x11A7
        /// The number of leading consonants.
        static let leadingCount: UInt32 = 19
        /// The number of vowels.
        static let vowelCount: UInt32 = 21
        /// The number of trailing consonants, plus one for "none".
        static let trailingCount: UInt32 = 28
        /// Syllables per leading consonant.
        static let blockCount = vowelCount * trailingCount
        /// All syllables.
        static let syllableCount = leadingCount * blockCount

        /// True for the precomposed syllables U+AC00...U+D7A3.
        static func isSyllable(_ value: UInt32) -> Bool {
            value >= syllableBase && value < syllableBase + syllableCount
        }

        /// Emits the jamo of syllable `value`: L, V, and T when there is one.
        static func decompose(_ value: UInt32, _ emit: (UInt32) -> Void) {
            let index = value - syllableBase
            emit(leadingBase + index / blockCount)
            emit(vowelBase + (index % blockCount) / trailingCount)
            let trailing = index % trailingCount
            if trailing != 0 { emit(trailingBase + trailing) }
        }

        /// The syllable of L + V, or of an LV syllable + T; nil for any other pair.
        static func compose(_ first: UInt32, _ second: UInt32) -> UInt32? {
            if first >= leadingBase, first < leadingBase + leadingCount, second >= vowelBase, second < vowelBase + vowelCount {
                return syllableBase + ((first - leadingBase) * vowelCount + (second - vowelBase)) * trailingCount
            }
            if isSyllable(first), (first - syllableBase) % trailingCount == 0,
               second > trailingBase, second < trailingBase + trailingCount {
                return first + (second - trailingBase)
            }
            return nil
        }
    }
}
