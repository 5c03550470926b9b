import LedgerDomain

// MARK: - KeyStore: the keys of a group, made at once

extension KeyStore {
    /// The keys of `subjects` as `createKey(for:random:)` gives them one by one (a live key found,
    /// else a new random key; `subject-erased` or `torn-slot` for that subject alone), made under
    /// one hold of the lock: each subject looked up once however often it is named, the new keys
    /// placed in memory first (so two new subjects whose windows meet never take one slot), then
    /// written with one `pwrite` per run of adjacent slots. The new keys are synced before this
    /// returns when `syncsEachWrite` is on, else by the next `sync()` (which, when it fails,
    /// empties them again). A failed write or sync throws for all of them and keeps none of them
    /// as a key (`writeNewSlots`).
    /// O(k) lookups and writes for k subjects; a table that must grow is grown and the whole call
    /// started again (nothing was written yet). A subject of `existing` (one the log already names)
    /// is never given a new key: absent, it is `missing-key`.
    func createKeys(for subjects: [SubjectID], random: any RandomSource,
                    existing: Set<SubjectID> = []) throws(KeyStoreError) -> [SubjectID: Result<[UInt8], KeyStoreError>] {
        var wanted: [SubjectID] = [], seen = Set<SubjectID>()
        for subject in subjects where seen.insert(subject).inserted { wanted.append(subject) }
        guard !wanted.isEmpty else { return [:] }
        return try whileLocked { () throws(KeyStoreError) -> [SubjectID: Result<[UInt8], KeyStoreError>]? in
            var keys: [SubjectID: Result<[UInt8], KeyStoreError>] = [:]
            var placed: [Int: [UInt8]] = [:]
            for subject in wanted {
                switch try probe(subject, placed: placed) {
                case .found(_, let slot) where slot.state == .live: keys[subject] = .success(slot.key)
                case .found: keys[subject] = .failure(KeyStoreError(.subjectErased, "the key of \(subject) was erased; it is never made again"))
                case .torn(let index, _): keys[subject] = .failure(Self.torn(index, path))
                case .free where existing.contains(subject): keys[subject] = .failure(KeyStoreError.missing(subject))
                case .free(let index):
                    let key = random.bytes(AESGCM.keySize)
                    guard key.count == AESGCM.keySize else { throw KeyStoreError(.io, "the random source gave \(key.count) bytes, not 32") }
                    placed[index] = KeySlot(state: .live, subject: subject, key: key).encoded()
                    keys[subject] = .success(key)
                case .full:
                    try grow()
                    return nil
                }
            }
            try writeNewSlots(placed)
            return keys
        }
    }

    /// Writes the new slots `placed` (index → bytes), one `pwrite` per run of adjacent indices,
    /// and syncs them or leaves them for `sync()`. A failed write empties every slot it may have
    /// left whole (those of the runs before it, and its own run's when it holds more than one: a
    /// lone slot cut part-way is torn, never a key, and stays as `createKey` leaves it), so no
    /// other writer finds a key that is not on disk; a failed sync empties them all.
    private func writeNewSlots(_ placed: [Int: [UInt8]]) throws(KeyStoreError) {
        guard !placed.isEmpty else { return }
        let indices = placed.keys.sorted()
        var first = 0
        while first < indices.count {
            var last = first
            while last + 1 < indices.count, indices[last + 1] == indices[last] + 1 { last += 1 }
            var run: [UInt8] = []
            run.reserveCapacity((last - first + 1) * KeyStoreLayout.slotSize)
            for index in indices[first...last] { run += placed[index]! }
            do throws(KeyStoreError) {
                try KeyStoreError.mapping {
                    try run.withUnsafeBytes { try file.write($0, at: KeyStoreLayout.offset(ofSlot: indices[first])) }
                }
            } catch {
                emptySlots(Array(indices[..<(last > first ? last + 1 : first)]))
                throw error
            }
            first = last + 1
        }
        guard syncsEachWrite else {
            noteUnsynced(indices)
            return
        }
        do throws(KeyStoreError) {
            try KeyStoreError.mapping { try file.syncData() }
        } catch {
            emptySlots(indices)
            throw error
        }
    }
}
