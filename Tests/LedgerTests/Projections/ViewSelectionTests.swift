import Foundation
import LedgerDomain
import LedgerKit
import Testing

// MARK: - ViewSelectionTests

/// A read that cannot save a checkpoint folds only the views it prints: those come out exactly as
/// in a fold of every view, the others empty (never stale), and sign-ins keep the users they read.
struct ViewSelectionTests {
    private let selections: [LedgerViews.Selection] = [
        .users, .sessions, .images, .registrations, .signIns, [.users, .sessions, .images, .registrations],
        [.registrations, .images, .signIns], [],
    ]

    /// Each view of `views` that `selection` keeps equals `full`'s; each other one is empty.
    private func expectNarrowed(_ views: LedgerViews, like full: LedgerViews, to selection: LedgerViews.Selection) {
        let kept = selection.contains(.signIns) ? selection.union(.users) : selection
        #expect(views.selection == kept)
        #expect(views.users == (kept.contains(.users) ? full.users : UserView()), "users, \(selection.rawValue)")
        #expect(views.sessions == (kept.contains(.sessions) ? full.sessions : SessionView()), "sessions, \(selection.rawValue)")
        #expect(views.images == (kept.contains(.images) ? full.images : ImageView()), "images, \(selection.rawValue)")
        #expect(views.registrations == (kept.contains(.registrations) ? full.registrations : RegistrationView()),
                "registrations, \(selection.rawValue)")
        #expect(views.signIns == (kept.contains(.signIns) ? full.signIns : SignInView()), "sign-ins, \(selection.rawValue)")
        #expect(views.events == full.events)
        #expect(views.head == full.head)
    }

    private let now = Timestamp(millis: 1_700_000_000_000)

    /// Runs `body` with the path of a fresh 3,000-line mixed log and its views folded in full.
    private func withMixedLog(seed: UInt64, _ body: (_ dir: String, _ log: String, _ full: LedgerViews) throws -> Void) throws {
        try withTempDirectory { dir in
            _ = try Fixtures.mixedLog(in: dir, seed: seed)
            let log = dir + "/events.jsonl"
            try body(dir, log, try ViewLoader.load(path: log, asOf: nil, now: now).views)
        }
    }

    @Test func aNarrowedLoadFoldsTheSelectedViewsExactly() throws {
        try withMixedLog(seed: 3) { _, log, full in
            #expect(full.selection == .all)
            #expect(full.events == 3_000)
            #expect(!full.signIns.rows.isEmpty && !full.sessions.rows.isEmpty && !full.images.rows.isEmpty)
            for selection in selections {
                // `--as-of` past the head reads every line, and cannot save a checkpoint.
                let narrowed = try ViewLoader.load(path: log, asOf: .seq(5_000), now: now, views: selection).views
                expectNarrowed(narrowed, like: full, to: selection)
            }
            // A read that may save a checkpoint folds every view whatever it was asked for.
            #expect(try ViewLoader.load(path: log, asOf: nil, now: now, views: .users).views == full)
            // Narrowed views are never saved as a checkpoint (a load would trust them to hold all views).
            let narrowed = try ViewLoader.load(path: log, asOf: .seq(5_000), now: now, views: .users).views
            let ids = try LogRewriting.fingerprints(ofLog: log)
            Checkpoint(views: narrowed, ids: ids, lineStart: 0, offset: 1).save(forLog: log)
            #expect(!FileSystem.exists(Checkpoint.path(forLog: log)))
            Checkpoint(views: full, ids: ids, lineStart: 0, offset: 1).save(forLog: log)
            #expect(FileSystem.exists(Checkpoint.path(forLog: log)))
        }
    }

    @Test func narrowingHalfWayEmptiesTheViewsLeftBehind() throws {
        try withMixedLog(seed: 4) { dir, log, full in
            let half = try ViewLoader.load(path: log, asOf: .seq(1_500), now: now).views
            let tail = try FileEventStore(directory: dir).readAll(from: 1_501)
            for selection in selections {
                // As after a checkpoint: every view restored, then the tail folded into the selected ones.
                var views = half
                views.narrow(to: selection)
                for event in tail { views.apply(event) }
                expectNarrowed(views, like: full, to: selection)
                // Narrowing never widens again.
                views.narrow(to: .all)
                #expect(views.selection == (selection.contains(.signIns) ? selection.union(.users) : selection))
            }
        }
    }

    @Test func aCheckpointWhoseTailCannotSaveAnotherRestoresOnlyTheSelectedViews() throws {
        try withMixedLog(seed: 5) { _, log, full in
            // A checkpoint at the last line: a read from it folds no line, so it can never save another.
            let file = try FileDescriptor(path: log, flags: O_RDONLY)
            let size = try file.size()
            let text = try String(contentsOfFile: log, encoding: .utf8)
            let lineStart = size - text.dropLast().split(separator: "\n").last!.utf8.count - 1
            Checkpoint(views: full, ids: try LogRewriting.fingerprints(ofLog: log), lineStart: lineStart, offset: size).save(forLog: log)
            var tails: [Int] = []
            let all = try #require(Checkpoint.load(forLog: log, file: file, views: { tails.append($0); return .all }))
            #expect(all.views == full && tails == [0])
            for selection in selections {
                let restored = try #require(Checkpoint.load(forLog: log, file: file, views: { _ in selection }))
                expectNarrowed(restored.views, like: full, to: selection)
                #expect(restored.views.ruleBreaks == (restored.views.selection.isSuperset(of: LedgerViews.ruleBreakViews) ? full.ruleBreaks : []))
                // Through the loader: the read prints its views exactly, and holds no other.
                expectNarrowed(try ViewLoader.load(path: log, asOf: nil, now: now, views: selection).views, like: full, to: selection)
            }
        }
    }
}
