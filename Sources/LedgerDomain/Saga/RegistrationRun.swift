// MARK: - RegistrationRun

/// One registration's run as a pure machine, the saga's single entry point: the shell asks for an
/// `Instruction`, carries it out (an action's part outside the log, or one durable write) and
/// reports what happened; the run decides everything else from the saga's table — the next action
/// (`RegistrationSaga.nextAction`), the events and the terms of their write (`decide`), which events
/// wait to share a write and when they must be durable (before the blob folder is touched, and at
/// the end), and what a refused write is the outcome of. `ledger recover` runs the same machine
/// from the state folded out of the log, without a plan.
public struct RegistrationRun: Sendable {
    /// What the shell must do next.
    public enum Instruction: Equatable, Sendable {
        /// Do `action`'s part outside the log (the blob folder, the failpoint before its events),
        /// then report its outcome (`performed`).
        case perform(RegistrationSaga.Action)
        /// Append `events` to the registration's stream in one durable write, the stream at
        /// `version` (0: no stream yet), on `terms`; report `appended`, or `refused` with the outcome
        /// the refusal is for `outcomeOf`. Nil `outcomeOf`: a refusal ends the run (the shell throws it).
        case append([LedgerEvent], version: Int, terms: AppendTerms, outcomeOf: RegistrationSaga.Action?)
        /// The run is over: completed, rejected, compensated or compensation-pending (`state`).
        case finish
    }

    /// The registration as the saga sees it: the log's state with the events decided but not yet
    /// appended folded in.
    public private(set) var state: RegistrationState
    /// The blob this run wrote that a failure must discard until `ImageStored` is durable (never
    /// in `recover`, which writes none).
    public private(set) var writtenImage: String?
    /// The registration as the log holds it.
    private var durable: RegistrationState
    /// What the forward steps record (nil in `recover`, which only compensates).
    private let plan: RegistrationPlan?
    /// Whether the plan has an image step.
    private let withImage: Bool
    /// The events decided and not appended, in order; the action a refusal of them is the outcome
    /// of (nil: the refusal ends the run); their terms.
    private var held: [LedgerEvent] = []
    private var opener: RegistrationSaga.Action?
    private var terms = AppendTerms()
    /// What the run waits to hear, and the instruction it gave.
    private var waiting: Waiting = .start

    private enum Waiting: Sendable {
        case start
        case performing(RegistrationSaga.Action, Instruction)
        /// A write is out; `thenFinish` when the decision that flushed it stops the run.
        case appending(Instruction, thenFinish: Bool)
        case finished
    }

    /// A run of the registration whose log holds `start`; `withImage` defaults to the plan's (or
    /// to the log's, without one).
    public init(_ start: RegistrationState, plan: RegistrationPlan?, withImage: Bool? = nil) {
        state = start
        durable = start
        self.plan = plan
        self.withImage = withImage ?? plan.map { $0.image != nil } ?? start.withImage
    }

    /// The first instruction (and the current one, asked again).
    public mutating func start(at now: Timestamp) -> Instruction {
        switch waiting {
        case .start: return chooseNext(at: now)
        case .performing(_, let instruction), .appending(let instruction, _): return instruction
        case .finished: return .finish
        }
    }

    /// The action of the last `perform` came to `outcome`.
    public mutating func performed(_ outcome: RegistrationSaga.StepOutcome, at now: Timestamp) -> Instruction {
        guard case .performing(let action, _) = waiting else { return start(at: now) }
        switch action {
        case .writeImage where outcome == .done: writtenImage = plan?.image?.imageName
        case .discardImage: writtenImage = nil  // removed, or left for `recover` as an orphan
        default: break
        }
        return settle(action, outcome, at: now)
    }

    /// The last `append` is durable.
    public mutating func appended(at now: Timestamp) -> Instruction {
        guard case .appending(_, let thenFinish) = waiting else { return start(at: now) }
        durable = state
        return thenFinish ? finish() : chooseNext(at: now)
    }

    /// The store refused the last `append`; `outcome` is what that is for its `outcomeOf` action.
    public mutating func refused(_ outcome: RegistrationSaga.StepOutcome, at now: Timestamp) -> Instruction {
        guard case .appending(.append(_, _, _, let action?), _) = waiting else { return start(at: now) }
        state = durable
        return settle(action, outcome, at: now)
    }

    // MARK: - The table's loop

    /// The next action, after what is held is durable when the action needs that.
    private mutating func chooseNext(at now: Timestamp) -> Instruction {
        let action = RegistrationSaga.nextAction(state, withImage: withImage, writtenImage: writtenImage)
        if action.needsDurableLog, let write = flush(thenFinish: false) { return write }
        if case .finish = action { return finish() }
        let instruction = Instruction.perform(action)
        waiting = .performing(action, instruction)
        return instruction
    }

    /// Holds what `decide` makes of `action`'s `outcome`; a blob action's events, and what is held
    /// when the run stops, are written at once.
    private mutating func settle(_ action: RegistrationSaga.Action, _ outcome: RegistrationSaga.StepOutcome,
                                 at now: Timestamp) -> Instruction {
        let decision = RegistrationSaga.decide(action, outcome, state: state, plan: plan, at: now)
        switch decision {
        case .record(let events, let terms): hold(events, for: action.outcomeOfRefusedAppend ? action : nil, terms: terms)
        case .fail(let failure): hold([failure], for: nil)
        case .stop: break
        }
        let stops = decision == .stop
        guard action.touchesBlobs || stops else { return chooseNext(at: now) }
        if let write = flush(thenFinish: stops) { return write }
        return stops ? finish() : chooseNext(at: now)
    }

    /// Holds `events`, the outcome of `action` (what a refusal of the write they open is for).
    private mutating func hold(_ events: [LedgerEvent], for action: RegistrationSaga.Action?, terms: AppendTerms = AppendTerms()) {
        guard !events.isEmpty else { return }
        if held.isEmpty { opener = action }
        held += events
        self.terms = self.terms.merged(with: terms)
        for event in events { state.evolve(event) }
    }

    /// The write of what is held (nil when nothing is).
    private mutating func flush(thenFinish: Bool) -> Instruction? {
        guard !held.isEmpty else { return nil }
        let instruction = Instruction.append(held, version: durable.version, terms: terms, outcomeOf: opener)
        held = []; opener = nil; terms = AppendTerms()
        waiting = .appending(instruction, thenFinish: thenFinish)
        return instruction
    }

    private mutating func finish() -> Instruction {
        waiting = .finished
        return .finish
    }
}
