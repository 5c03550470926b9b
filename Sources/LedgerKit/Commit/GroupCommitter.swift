import Dispatch
import LedgerDomain
import Synchronization

// MARK: - GroupCommitter

/// Group commit for the threads of one process: each caller hands its batch over and waits; the
/// first caller that finds nobody writing leads: it takes every waiting batch that touches nothing
/// another taken batch touches (`GroupedAppend.independent`; the others wait for the next group),
/// appends them at once (`GroupAppends.appendGroup`: one write and one `fdatasync` on the file store,
/// one transaction on PostgreSQL), hands each
/// caller its own outcome, and passes the lead to the first caller still waiting. A caller returns
/// only once its own batch is durable or refused; a failed sync (or commit) fails every batch it
/// covered (and a file store refuses every later append: it is poisoned, as a lone writer's is).
///
/// Between processes nothing changes: each group is appended under the store's append lock (the
/// log's `flock`, PostgreSQL's append advisory lock) like any other append, so the rules hold
/// across processes as they do today.
public final class GroupCommitter: @unchecked Sendable {
    // @unchecked: `store` is used only by the caller that leads, and one caller leads at a time
    // (`State.leading`, changed only under `state`'s lock, and handed over under it); the rest of
    // the shared state is behind that lock.

    /// One waiting batch and what becomes of it.
    private final class Waiter: @unchecked Sendable {
        // @unchecked: `outcome` and `leads` are written under `GroupCommitter.state`'s lock before
        // `wake` is signalled, and read by the waiting thread after it is woken.
        let batch: GroupedAppend
        /// What the batch touches (`GroupedAppend.touches`), worked out once, by its caller.
        let touches: Set<String>
        var outcome: Result<[RecordedEvent], any Error>?
        var leads = false
        let wake = DispatchSemaphore(value: 0)
        init(_ batch: GroupedAppend) { self.batch = batch; touches = batch.touches }
    }

    private struct State {
        var waiting: [Waiter] = []
        var leading = false
        var groups = 0
    }

    private let store: any GroupAppends
    private let state = Mutex(State())

    /// Group commit over `store`, which nothing else in this process appends to.
    public init(store: any GroupAppends) { self.store = store }

    /// How many groups were written so far (each one write and one `fdatasync`).
    public var groupsWritten: Int { state.withLock { $0.groups } }

    /// How many batches wait for a group now (not counting those being written): for tests that
    /// line batches up behind a group.
    var batchesWaiting: Int { state.withLock { $0.waiting.count } }

    /// Appends `parts` under `condition` as one batch, in a group with whatever other batches wait
    /// meanwhile; blocks the calling thread until the batch is durable (its events) or refused.
    public func append(_ parts: [StreamAppend], condition: AppendCondition?) throws -> [RecordedEvent] {
        // The caller's own thread checks its batch and works out what it touches: the leader only
        // checks conditions and writes.
        try append(GroupedAppend(parts, condition: condition).validatedNow())
    }

    /// `append(_:condition:)` of a batch whose parts were checked already (`validated`).
    func append(_ batch: GroupedAppend) throws -> [RecordedEvent] {
        let me = Waiter(batch)
        let leads = state.withLock { state in
            state.waiting.append(me)
            if state.leading { return false }
            state.leading = true
            return true
        }
        if !leads {
            me.wake.wait()
            if let outcome = me.outcome { return try outcome.get() }
            precondition(me.leads, "a waiter was woken with neither an outcome nor the lead")
        }
        lead(until: me)
        return try me.outcome!.get()
    }

    /// Writes groups until `me`'s batch has its outcome, then passes the lead on (or drops it when
    /// nobody waits).
    private func lead(until me: Waiter) {
        while true {
            let group: [Waiter] = state.withLock { state in
                var taken: [Waiter] = [], touched = Set<String>(), left: [Waiter] = []
                for waiter in state.waiting {
                    if touched.isDisjoint(with: waiter.touches) { taken.append(waiter); touched.formUnion(waiter.touches) } else { left.append(waiter) }
                }
                state.waiting = left
                return taken
            }
            let outcomes = store.appendGroup(group.map(\.batch))
            let next: Waiter? = state.withLock { state in
                state.groups += 1
                for (waiter, outcome) in zip(group, outcomes) { waiter.outcome = outcome }
                guard me.outcome != nil else { return nil }
                guard let first = state.waiting.first else {
                    state.leading = false
                    return nil
                }
                first.leads = true
                return first
            }
            for waiter in group where waiter !== me { waiter.wake.signal() }
            if me.outcome != nil {
                next?.wake.signal()
                return
            }
        }
    }
}

// MARK: - GroupAppends

/// A store that appends a group of independent batches (`GroupedAppend.independent`) at once, each
/// batch checked and answered on its own: the file store with one write and one `fdatasync`
/// (`FileEventStore.appendGroup`), PostgreSQL in one transaction (`PostgresEventStore.appendGroup`).
/// What `GroupCommitter` drives.
public protocol GroupAppends: AnyObject {
    /// Appends `batches`, each all or nothing and checked on its own (its parts' versions, its
    /// condition); returns each batch's recorded events or its refusal, in order. A failure of the
    /// write or commit they share fails every batch written with it; none is retried.
    func appendGroup(_ batches: [GroupedAppend]) -> [Result<[RecordedEvent], any Error>]
}
