#!/usr/bin/env python3
"""Write the NFC tables of LedgerDomain and the NFC test vectors, from Python's unicodedata.

Usage: python3 Events/tools/gen_nfc_tables.py

Writes:
  Sources/LedgerDomain/Text/UnicodeNFCTables.swift  the data `UnicodeNFC` normalizes with
  Tests/LedgerTests/Fixtures/nfc_vectors.txt        input;NFC-output lines the tests check against

The Unicode version is pinned: the script refuses to run unless unicodedata is Unicode 14.0.0, so a
rerun on another Python cannot silently move the tables (and the password hashes) to other data.
Everything is deterministic (fixed seed), so a rerun gives the same bytes.

Tables (all sorted, searched by binary search in Swift; no dictionary literals, so swiftc is quick):
  decompositions      UInt64  scalar << 32 | offset << 8 | length, into `decomposedScalars`
  decomposedScalars   UInt32  the full (recursive) canonical decompositions, back to back
  combiningClasses    UInt32  scalar << 8 | canonical combining class (nonzero classes only)
  compositions        UInt64  first << 42 | second << 21 | composite (primary composites only)
Hangul syllables are left out of every table: UnicodeNFC decomposes and composes them by arithmetic.
"""
import random
import sys
import unicodedata
from pathlib import Path

UNICODE_VERSION = "14.0.0"
if unicodedata.unidata_version != UNICODE_VERSION:
    sys.exit(f"gen_nfc_tables.py: Python's unicodedata is Unicode {unicodedata.unidata_version}, "
             f"the tables are pinned to Unicode {UNICODE_VERSION}; run with a Python whose "
             f"unicodedata.unidata_version is {UNICODE_VERSION}")

ROOT = Path(__file__).resolve().parents[2]
TABLES = ROOT / "Sources/LedgerDomain/Text/UnicodeNFCTables.swift"
DECOMPOSITION_TABLES = ROOT / "Sources/LedgerDomain/Text/UnicodeNFCTables+Decompositions.swift"
DECOMPOSED_TABLES = ROOT / "Sources/LedgerDomain/Text/UnicodeNFCTables+DecomposedScalars.swift"
ASSIGNED_TABLES = ROOT / "Sources/LedgerDomain/Text/UnicodeNFCTables+Assigned.swift"
VECTORS = ROOT / "Tests/LedgerTests/Fixtures/nfc_vectors.txt"
SEED = 0x4E46_4314  # "NFC" and the Unicode major version

# Hangul syllables (UAX #15 / Unicode 3.12): handled by arithmetic, never by the tables.
S_BASE, L_BASE, V_BASE, T_BASE = 0xAC00, 0x1100, 0x1161, 0x11A7
L_COUNT, V_COUNT, T_COUNT = 19, 21, 28
S_COUNT = L_COUNT * V_COUNT * T_COUNT


def is_hangul_syllable(cp):
    return S_BASE <= cp < S_BASE + S_COUNT


def scalars():
    """Every Unicode scalar value (code points without the surrogates)."""
    return (cp for cp in range(0x110000) if not 0xD800 <= cp <= 0xDFFF)


def canonical_mapping(cp):
    """The single-step canonical decomposition mapping of cp, or None (no or compatibility mapping)."""
    field = unicodedata.decomposition(chr(cp))
    if not field or field.startswith("<"):
        return None
    return [int(part, 16) for part in field.split()]


def full_decomposition(cp):
    """The canonical decomposition applied until nothing changes (Hangul not included)."""
    mapping = canonical_mapping(cp)
    if mapping is None:
        return [cp]
    return [out for part in mapping for out in full_decomposition(part)]


def ccc(cp):
    return unicodedata.combining(chr(cp))


def nfc(cps):
    return [ord(ch) for ch in unicodedata.normalize("NFC", "".join(map(chr, cps)))]


# MARK: - The tables

decompositions = {}  # cp -> full canonical decomposition
for cp in scalars():
    if is_hangul_syllable(cp):
        continue
    full = full_decomposition(cp)
    if full != [cp]:
        assert "".join(map(chr, full)) == unicodedata.normalize("NFD", chr(cp)), hex(cp)
        decompositions[cp] = full

combining_classes = {cp: ccc(cp) for cp in scalars() if ccc(cp) != 0}

# A pair (a, b) -> c is a primary composite when c's canonical mapping is exactly two code points and c
# is not in the full composition exclusion set (script-specific and post-composition-version exclusions,
# singletons, non-starter decompositions). unicodedata has no exclusion list, so ask NFC itself:
# c is not excluded exactly when NFC of its mapping gives c back.
compositions = {}  # (a, b) -> c
for cp in scalars():
    mapping = canonical_mapping(cp)
    if mapping is not None and len(mapping) == 2 and nfc(mapping) == [cp]:
        assert tuple(mapping) not in compositions
        compositions[tuple(mapping)] = cp
assert not any(is_hangul_syllable(c) for c in compositions.values())

# Below this bound every scalar is NFC_QC=Yes with class 0 and never the second of a pair, so text made
# only of such scalars is already NFC (the fast path).
second_elements = {b for (_, b) in compositions} | set(range(V_BASE, V_BASE + V_COUNT)) \
    | set(range(T_BASE + 1, T_BASE + T_COUNT))
quick_bound = min(cp for cp in scalars()
                  if ccc(cp) != 0 or nfc([cp]) != [cp] or cp in second_elements)


# MARK: - Self-check: the same algorithm as UnicodeNFC.swift, on these tables, against unicodedata

def table_nfc(cps):
    decomposed = []
    for cp in cps:
        if is_hangul_syllable(cp):
            index = cp - S_BASE
            decomposed += [L_BASE + index // (V_COUNT * T_COUNT), V_BASE + index % (V_COUNT * T_COUNT) // T_COUNT]
            if index % T_COUNT:
                decomposed.append(T_BASE + index % T_COUNT)
        else:
            decomposed += decompositions.get(cp, [cp])
    marks = [(cp, combining_classes.get(cp, 0)) for cp in decomposed]
    for i in range(1, len(marks)):  # stable insertion sort of each run of nonzero classes
        j = i
        while j > 0 and marks[j][1] != 0 and marks[j - 1][1] > marks[j][1]:
            marks[j - 1], marks[j] = marks[j], marks[j - 1]
            j -= 1
    out, starter = [], None
    for cp, cls in marks:
        if starter is not None:
            last = combining_classes.get(out[-1], 0) if len(out) - 1 != starter else None
            if last is None or (last != 0 and last < cls):
                first = out[starter]
                composite = compositions.get((first, cp))
                if composite is None and L_BASE <= first < L_BASE + L_COUNT and V_BASE <= cp < V_BASE + V_COUNT:
                    composite = S_BASE + ((first - L_BASE) * V_COUNT + cp - V_BASE) * T_COUNT
                if composite is None and is_hangul_syllable(first) and (first - S_BASE) % T_COUNT == 0 \
                        and T_BASE < cp < T_BASE + T_COUNT:
                    composite = first + cp - T_BASE
                if composite is not None:
                    out[starter] = composite
                    continue
        if cls == 0:
            starter = len(out)
        out.append(cp)
    return out


for cp in scalars():
    assert table_nfc([cp]) == nfc([cp]), hex(cp)


# MARK: - Swift output

def swift_array(name, kind, values, doc, per_line):
    lines = [f"    /// {line}" for line in doc]
    lines.append(f"    static let {name}: [{kind}] = [")
    width = 16 if kind == "UInt64" else 8
    for start in range(0, len(values), per_line):
        chunk = values[start:start + per_line]
        lines.append("        " + " ".join(f"0x{value:0{width}X}," for value in chunk))
    lines.append("    ]")
    return "\n".join(lines)


decomposition_index, decomposed_scalars = [], []
for cp in sorted(decompositions):
    full = decompositions[cp]
    assert len(full) < 256 and len(decomposed_scalars) < (1 << 24)
    decomposition_index.append(cp << 32 | len(decomposed_scalars) << 8 | len(full))
    decomposed_scalars += full

class_entries = [cp << 8 | cls for cp, cls in sorted(combining_classes.items())]
composition_entries = sorted(a << 42 | b << 21 | c for (a, b), c in compositions.items())

decomposition_table = swift_array("decompositions", "UInt64", decomposition_index, [
    f"{len(decomposition_index)} scalars with a canonical decomposition, sorted: `scalar << 32 | offset << 8 | length`,",
    "where `decomposedScalars[offset..<offset + length]` is the full (recursive) canonical decomposition.",
], 4)
decomposed_table = swift_array("decomposedScalars", "UInt32", decomposed_scalars, [
    f"The full canonical decompositions, back to back ({len(decomposed_scalars)} scalars), already in canonical order.",
], 8)
class_table = swift_array("combiningClasses", "UInt32", class_entries, [
    f"{len(class_entries)} scalars with a nonzero canonical combining class, sorted: `scalar << 8 | class`.",
], 8)
composition_table = swift_array("compositions", "UInt64", composition_entries, [
    f"{len(composition_entries)} primary composites, sorted: `first << 42 | second << 21 | composite`.",
    "Composition exclusions, singletons and non-starter decompositions are not here.",
], 4)

# The assigned code points of this version (general category other than Cn), as ranges: what a
# password may hold is decided against the pinned version, not the toolchain's newer one.
assigned_ranges, start = [], None
for cp in range(0x110000):
    assigned = unicodedata.category(chr(cp)) != "Cn"
    if assigned and start is None:
        start = cp
    if not assigned and start is not None:
        assigned_ranges.append(start << 32 | (cp - 1)); start = None
if start is not None:
    assigned_ranges.append(start << 32 | 0x10FFFF)
assigned_table = swift_array("assignedRanges", "UInt64", assigned_ranges, [
    f"{len(assigned_ranges)} ranges of assigned code points (any general category but Cn), sorted: `first << 32 | last`.",
], 4)

HEADER = f"// GENERATED by Events/tools/gen_nfc_tables.py from Unicode {UNICODE_VERSION} (Python unicodedata). Do not edit."

swift = f"""{HEADER}

// MARK: - UnicodeNFCTables

/// The Unicode {UNICODE_VERSION} character data that `UnicodeNFC` works with, as sorted integer arrays searched
/// by binary search (array literals of integers compile quickly; dictionary literals of this size would not):
/// here the combining classes and the primary composites; the decompositions and the assigned code points are
/// in files of their own. Hangul syllables are not in any table: `UnicodeNFC` decomposes and composes them by
/// arithmetic.
enum UnicodeNFCTables {{
    /// The Unicode version the tables were generated from.
    static let unicodeVersion = "{UNICODE_VERSION}"

    /// Every scalar below this value has combining class 0, survives NFC on its own and is never the second
    /// scalar of a composition, so text made only of such scalars is already NFC.
    static let quickCheckBound: UInt32 = 0x{quick_bound:04X}

{class_table}

{composition_table}
}}
"""

decomposition_swift = f"""{HEADER}

// MARK: - UnicodeNFCTables: canonical decompositions

extension UnicodeNFCTables {{
{decomposition_table}
}}
"""

decomposed_swift = f"""{HEADER}

// MARK: - UnicodeNFCTables: the scalars of the canonical decompositions

extension UnicodeNFCTables {{
{decomposed_table}
}}
"""

assigned_swift = f"""{HEADER}

// MARK: - UnicodeNFCTables: assigned code points

extension UnicodeNFCTables {{
{assigned_table}
}}
"""
TABLES.parent.mkdir(parents=True, exist_ok=True)
TABLES.write_text(swift)
DECOMPOSITION_TABLES.write_text(decomposition_swift)
DECOMPOSED_TABLES.write_text(decomposed_swift)
ASSIGNED_TABLES.write_text(assigned_swift)


# MARK: - Test vectors

rng = random.Random(SEED)
covered = sorted(set(cp for cp in scalars() if unicodedata.decomposition(chr(cp)) or ccc(cp) != 0))
marks_pool = sorted(combining_classes)
bases = [ord(ch) for ch in "aeiouAEIOUcnsyzwCNSYZ"] + [0x0391, 0x03B1, 0x03C9, 0x0415, 0x0438, 0x05D0, 0x0915,
                                                    0x0B47, 0x0BC6, 0x0CC6, 0x0D46, 0x0DD9, 0x1025, 0x1B05,
                                                    0x3046, 0x30A6, 0x1100, 0x00C7, 0x00DC, 0x01B0, 0x1FBF]
firsts = sorted({a for (a, _) in compositions})
seconds = sorted({b for (_, b) in compositions})
jamo = list(range(L_BASE, L_BASE + L_COUNT + 1)) + list(range(V_BASE - 1, V_BASE + V_COUNT + 1)) \
    + list(range(T_BASE, T_BASE + T_COUNT + 1)) + [0xA960, 0xD7B0, 0xD7CB]
syllables = list(range(S_BASE, S_BASE + S_COUNT))
lines = []


def emit(cps):
    output = nfc(cps)
    assert table_nfc(cps) == output, cps
    lines.append(" ".join(f"{cp:04X}" for cp in cps) + ";" + " ".join(f"{cp:04X}" for cp in output))


# Hand-picked edges first.
for case in ([0x65, 0x301], [0x212B], [0x958], [0x1100, 0x1161, 0x11A8], [0xAC00, 0x11A8], [0xAC00, 0x11A7],
             [0x1100, 0x11A8], [0x61, 0x323, 0x302], [0x61, 0x302, 0x323], [0x61, 0x301, 0x301],
             [0x344], [0x61, 0x344], [0x0F73], [0x0B47, 0x0B3E], [0x0B47, 0x0300, 0x0B3E], [0x1E0B, 0x323]):
    emit(case)

# Every scalar with a decomposition (canonical or compatibility) or a nonzero class, in shuffled groups,
# each maybe after a base and before marks, so it meets neighbours it can compose or reorder with.
order = covered[:]
rng.shuffle(order)
at = 0
while at < len(order):
    count = rng.randint(1, 4)
    cps = []
    for cp in order[at:at + count]:
        if rng.random() < 0.5:
            cps.append(rng.choice(bases + firsts))
        cps.append(cp)
        for _ in range(rng.choice([0, 0, 1, 2])):
            cps.append(rng.choice(marks_pool + seconds))
    emit(cps)
    at += count

# Every Hangul syllable, sixteen to a line, as the syllable, as jamo, or as an LV syllable and a T.
rng.shuffle(syllables)
for start in range(0, len(syllables), 16):
    cps = []
    for s in syllables[start:start + 16]:
        index = s - S_BASE
        l, v, t = L_BASE + index // (V_COUNT * T_COUNT), V_BASE + index % (V_COUNT * T_COUNT) // T_COUNT, index % T_COUNT
        form = rng.randrange(3)
        if form == 0:
            cps.append(s)
        elif form == 1:
            cps += [l, v] + ([T_BASE + t] if t else [])
        else:
            cps += [s - t] + ([T_BASE + t] if t else [])
        if rng.random() < 0.2:
            cps.append(rng.choice(jamo + marks_pool))
    emit(cps)

# Random mixed sequences.
pools = [bases, marks_pool, covered, firsts, seconds, jamo, syllables, list(range(0x20, 0x7F))]
for _ in range(1200):
    emit([rng.choice(rng.choice(pools)) for _ in range(rng.randint(1, 12))])

VECTORS.parent.mkdir(parents=True, exist_ok=True)
header = [f"# NFC test vectors, Unicode {UNICODE_VERSION}, generated by Events/tools/gen_nfc_tables.py. Do not edit.",
          "# Each line: input scalars;NFC of the input (Python unicodedata), hex, space separated."]
VECTORS.write_text("\n".join(header + lines) + "\n")

print(f"Unicode {UNICODE_VERSION}: {len(decomposition_index)} decompositions ({len(decomposed_scalars)} scalars), "
      f"{len(class_entries)} combining classes, {len(composition_entries)} compositions, "
      f"quick-check bound U+{quick_bound:04X}")
for path in (TABLES, DECOMPOSITION_TABLES, ASSIGNED_TABLES):
    print(f"wrote {path.relative_to(ROOT)}")
print(f"wrote {VECTORS.relative_to(ROOT)} ({len(lines)} vectors)")
