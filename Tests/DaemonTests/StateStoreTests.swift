import Daemon
import Foundation
import Glibc
import TalkingClockCore
import XCTest

final class StateStoreTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("StateStoreTests-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        // Undo any chmod so the tree can be removed.
        if let paths = FileManager.default.enumerator(atPath: root.path) {
            for case let path as String in paths { chmod(root.appendingPathComponent(path).path, 0o700) }
        }
        try? FileManager.default.removeItem(at: root)
    }

    private let fixedNow = { Date(timeIntervalSince1970: 1_767_225_600 + 3723) }  // 2026-01-01T01:02:03Z

    private func contents(_ dir: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).sorted()
    }

    func testMissingFileGivesDefaultsWithoutWarning() {
        let store = StateStore(directory: root.appendingPathComponent("never-created"))
        let (state, warning) = store.load()
        XCTAssertEqual(state, PersistentState())
        XCTAssertNil(warning)
    }

    func testSaveThenLoadRoundTrips() throws {
        let dir = root.appendingPathComponent("a/b/talking-clock")
        let store = StateStore(directory: dir)
        let states = [
            PersistentState(mute: .muted, lastSpokenBoundary: 1_767_225_600),
            PersistentState(mute: .mutedUntil(1_767_250_800), lastSpokenBoundary: nil),
            PersistentState(),
        ]
        for state in states {
            try store.save(state)
            let (loaded, warning) = StateStore(directory: dir).load()
            XCTAssertEqual(loaded, state)
            XCTAssertNil(warning)
            XCTAssertEqual(contents(dir), ["state.json"], "no temporary file is left behind")
        }
        let text = try String(contentsOf: dir.appendingPathComponent("state.json"), encoding: .utf8)
        XCTAssertTrue(text.hasSuffix("}\n"), "the file is JSON ending in a newline: \(text)")
    }

    func testCreatesPrivateDirectories() throws {
        let dir = root.appendingPathComponent("state/talking-clock")
        try StateStore(directory: dir).save(PersistentState(mute: .muted))
        for path in [dir.path, dir.deletingLastPathComponent().path] {
            var st = stat()
            XCTAssertEqual(stat(path, &st), 0)
            XCTAssertEqual(st.st_mode & 0o777, 0o700, path)
        }
        var st = stat()
        XCTAssertEqual(stat(dir.appendingPathComponent("state.json").path, &st), 0)
        XCTAssertEqual(st.st_mode & 0o777, 0o600, "the state file is private too")
    }

    /// `load` on another thread, failing (instead of hanging the suite) if it has not returned
    /// within 5 s; `unblock` then frees a read stuck on the file.
    private func loadWithin5s(
        _ store: StateStore, unblock: () -> Void
    ) -> (state: PersistentState, warning: String?)? {
        nonisolated(unsafe) var result: (state: PersistentState, warning: String?)?
        nonisolated(unsafe) let store = store
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            result = store.load()
            done.signal()
        }
        guard done.wait(timeout: .now() + 5) == .success else {
            XCTFail("load() did not return within 5 s")
            unblock()
            done.wait()
            return nil
        }
        return result
    }

    /// A named pipe at state.json used to hang start-up for a writer that never came; a
    /// directory was reported as a permissions problem. Both start muted (the README: a state
    /// that cannot be read never unmutes the clock) with the path and the fix, and are left where
    /// they are; the next mute change replaces a pipe (a directory has to be moved by hand).
    func testStateFileThatIsAPipeOrADirectoryStartsMutedWithTheFixNamed() throws {
        let dir = root.appendingPathComponent("talking-clock")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("state.json").path
        XCTAssertEqual(mkfifo(path, 0o600), 0)
        let store = StateStore(directory: dir, now: fixedNow)
        let fromPipe = try XCTUnwrap(
            loadWithin5s(store) {
                let writer = open(path, O_WRONLY | O_NONBLOCK)  // gives the stuck reader its end-of-file
                if writer >= 0 { close(writer) }
            })
        XCTAssertEqual(fromPipe.state.mute, .muted)
        XCTAssertEqual(
            fromPipe.warning,
            "The state file \(path) is a named pipe (FIFO), not a file, so talking-clock starts muted: it cannot tell "
                + "whether you had muted it. Run 'talking-clock unmute' (or 'mute'): it replaces it with a state file.")
        XCTAssertEqual(contents(dir), ["state.json"], "left where it is")
        try store.save(PersistentState(mute: .unmuted))
        XCTAssertEqual(StateStore(directory: dir).load().state.mute, .unmuted, "replaced by a state file")

        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let fromDirectory = try XCTUnwrap(loadWithin5s(store) {})
        XCTAssertEqual(fromDirectory.state.mute, .muted)
        XCTAssertEqual(
            fromDirectory.warning,
            "The state file \(path) is a directory, not a file, so talking-clock starts muted: it cannot tell "
                + "whether you had muted it. Move it away (mv \(path) \(path).old), then run 'talking-clock unmute'.")
        XCTAssertThrowsError(try store.save(PersistentState())) { error in
            XCTAssertTrue(
                "\(error)".hasSuffix("Is a directory. The previous state is unchanged. \(path) is a directory; move it away (mv \(path) \(path).old)."),
                "\(error)")
        }
    }

    func testCorruptFileIsMovedAsideAndReported() throws {
        let cases: [(why: String, bytes: [UInt8], reason: String)] = [
            ("garbage", Array("not json at all".utf8), "it is not valid JSON; it may have been truncated"),
            ("truncated", Array(#"{"mute":{"state":"mu"#.utf8), "it is not valid JSON; it may have been truncated"),
            ("empty", [], "it is empty"),
            ("binary", [0x00, 0xFF, 0x13, 0x37], "it is not valid JSON; it may have been truncated"),
            (
                "JSON but not a state", Array(#"{"mute":{"state":"snoozed"}}"#.utf8),
                "it does not hold a talking-clock state"
            ),
            ("JSON of the wrong shape", Array("[1, 2, 3]".utf8), "it does not hold a talking-clock state"),
        ]
        for c in cases {
            let dir = root.appendingPathComponent(UUID().uuidString)
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let file = dir.appendingPathComponent("state.json")
            try Data(c.bytes).write(to: file)

            let store = StateStore(directory: dir, now: fixedNow)
            let (state, warning) = store.load()
            XCTAssertEqual(state, PersistentState(mute: .muted), "\(c.why): nothing to salvage, so muted")
            let aside = file.path + ".corrupt-20260101T010203Z"
            XCTAssertEqual(
                warning,
                "The state file \(file.path) was unreadable (\(c.reason)), so talking-clock starts muted (it cannot "
                    + "tell whether you had muted it; 'talking-clock unmute' makes it speak again) and without its "
                    + "memory of the last announcement; the file was left in place as \(aside) for inspection.",
                c.why)
            XCTAssertEqual(contents(dir), ["state.json.corrupt-20260101T010203Z"], c.why)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: aside)), Data(c.bytes), "\(c.why): evidence kept")

            // The next save writes a fresh file and keeps the evidence.
            try store.save(PersistentState(mute: .muted))
            XCTAssertEqual(store.load().state, PersistentState(mute: .muted))
            XCTAssertEqual(contents(dir), ["state.json", "state.json.corrupt-20260101T010203Z"], c.why)
        }
    }

    /// Never a silent reset of mute: a file cut short at every possible length still loads muted
    /// (the saved mute when it survived intact, otherwise an indefinite mute), and the last-spoken
    /// boundary is either the saved one or forgotten, never a different number.
    func testEveryTruncationOfAMutedStateKeepsTheClockMuted() throws {
        let saved: [PersistentState] = [
            PersistentState(mute: .mutedUntil(1_767_250_800), lastSpokenBoundary: 1_767_225_600),
            PersistentState(mute: .muted, lastSpokenBoundary: 1_767_225_600),
            PersistentState(mute: .unmuted, lastSpokenBoundary: 1_767_225_600),
        ]
        for original in saved {
            let dir = root.appendingPathComponent(UUID().uuidString)
            let store = StateStore(directory: dir, now: fixedNow)
            try store.save(original)
            let full = [UInt8](try Data(contentsOf: store.fileURL))
            var salvagedMute = 0
            var salvagedLast = 0
            for length in 0..<full.count - 1 {  // the full file minus its newline still parses
                try Data(full[0..<length]).write(to: store.fileURL)
                let (state, warning) = store.load()
                let why = "\(original) cut to \(length) bytes: \(String(decoding: full[0..<length], as: UTF8.self))"
                XCTAssertNotNil(warning, why)
                XCTAssertTrue(state.mute == original.mute || state.mute == .muted, "\(why) -> \(state.mute)")
                XCTAssertTrue(state.lastSpokenBoundary == nil || state.lastSpokenBoundary == original.lastSpokenBoundary, why)
                if state.mute == original.mute && original.mute != .muted { salvagedMute += 1 }
                if state.lastSpokenBoundary != nil { salvagedLast += 1 }
                for aside in contents(dir) where aside.hasPrefix("state.json.corrupt-") {
                    try FileManager.default.removeItem(at: dir.appendingPathComponent(aside))
                }
            }
            XCTAssertGreaterThan(salvagedLast, 0, "a cut after the boundary keeps it")
            if original.mute != .muted {
                // The mute object comes last; only cuts after its closing brace keep it.
                XCTAssertGreaterThan(salvagedMute, 0, "a cut after the mute object keeps it")
            }
        }
    }

    func testSalvageReadsOnlyCompleteValues() {
        let cases: [(why: String, text: String, mute: MuteState?, last: Int?)] = [
            ("mute intact, rest damaged", #"{"mute" : {"state" : "muted-until", "until" : 1767250800}, "last-spo"#, .mutedUntil(1_767_250_800), nil),
            ("number cut short", #"{"last-spoken-boundary" : 17672"#, nil, nil),
            ("number complete", "{\"last-spoken-boundary\" : 1767225600,\n  \"mu", nil, 1_767_225_600),
            ("until cut short", #"{"mute" : {"state" : "muted-until", "until" : 17672"#, nil, nil),
            ("unknown mute state", #"{"mute":{"state":"snoozed"}} trailing garbage"#, nil, nil),
            ("garbage around an intact object", "\u{1}\u{2}\"mute\":{\"state\":\"unmuted\"}\u{FF}", .unmuted, nil),
            ("nothing", "", nil, nil),
        ]
        for c in cases {
            let result = PersistentState.salvage(Array(c.text.utf8))
            XCTAssertEqual(result.mute, c.mute, c.why)
            XCTAssertEqual(result.lastSpokenBoundary, c.last, c.why)
        }
    }

    /// A state file that exists but cannot be read at all (here: a directory where the file should
    /// be, which even root cannot read as a file) also starts muted.
    /// A save killed between creating its temporary file and renaming it leaves the temporary
    /// file behind; the next load removes those of processes that no longer exist, and only those.
    func testTemporaryFilesOfKilledSavesAreRemovedAtLoad() throws {
        let store = StateStore(directory: root)
        try store.save(PersistentState(mute: .muted))
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/true")
        try child.run()
        child.waitUntilExit()  // reaped: its pid names no process now
        let dead = ".state.json.tmp-\(child.processIdentifier)-123"
        let alive = ".state.json.tmp-\(getppid())-456"
        let mine = ".state.json.tmp-\(getpid())-789"
        let other = ".state.json.tmp-notapid"
        for name in [dead, alive, mine, other] { try Data("{".utf8).write(to: root.appendingPathComponent(name)) }
        XCTAssertEqual(store.load().state, PersistentState(mute: .muted))
        XCTAssertEqual(contents(root), [alive, mine, other, "state.json"].sorted())
    }

    func testSecondCorruptFileInTheSameSecondGetsItsOwnName() throws {
        let file = root.appendingPathComponent("state.json")
        let store = StateStore(directory: root, now: fixedNow)
        for _ in 0..<3 {
            try Data("garbage".utf8).write(to: file)
            XCTAssertNotNil(store.load().warning)
        }
        XCTAssertEqual(
            contents(root),
            [
                "state.json.corrupt-20260101T010203Z", "state.json.corrupt-20260101T010203Z-2",
                "state.json.corrupt-20260101T010203Z-3",
            ])
    }

    func testOversizedFileIsNotRead() throws {
        let file = root.appendingPathComponent("state.json")
        try Data(repeating: 0x20, count: (1 << 20) + 10).write(to: file)
        let warning = StateStore(directory: root, now: fixedNow).load().warning
        XCTAssertTrue(warning?.contains("(it is larger than 1048576 bytes)") ?? false, warning ?? "no warning")
    }

    /// Root ignores permission bits, so make the directory impossible for anyone: its parent is a
    /// regular file.
    func testUnwritableLocationIsASentenceAndChangesNothing() throws {
        let blocker = root.appendingPathComponent("not-a-directory")
        try Data("I am a file".utf8).write(to: blocker)
        let dir = blocker.appendingPathComponent("talking-clock")
        let store = StateStore(directory: dir)
        XCTAssertThrowsError(try store.save(PersistentState(mute: .muted))) { error in
            XCTAssertEqual(
                "\(error)",
                "Could not save the talking-clock state to \(dir.path)/state.json: creating the directory \(dir.path) "
                    + "failed: Not a directory. The previous state is unchanged. Part of the path is not a directory; "
                    + "move it away or set XDG_STATE_HOME to another directory.")
        }
        XCTAssertEqual(try String(contentsOf: blocker, encoding: .utf8), "I am a file")
        let (state, warning) = store.load()
        XCTAssertEqual(state, PersistentState(), "no state file can exist there, so there is no mute to lose")
        XCTAssertEqual(
            warning,
            "The state file \(dir.path)/state.json cannot exist because part of its path is not a directory, so "
                + "talking-clock starts unmuted and cannot save mute; move that file away or set XDG_STATE_HOME to "
                + "another directory.")
    }

    /// A failed write (here: the file-size limit, which binds root too, standing in for a full disk)
    /// leaves the previous state file exactly as it was and no temporary file behind.
    func testFailedWriteKeepsThePreviousState() throws {
        let store = StateStore(directory: root)
        let previous = PersistentState(mute: .mutedUntil(1_767_250_800), lastSpokenBoundary: 1_767_225_600)
        try store.save(previous)
        let before = try Data(contentsOf: store.fileURL)

        var saved = rlimit()
        XCTAssertEqual(getrlimit(Int32(RLIMIT_FSIZE.rawValue), &saved), 0)
        let oldHandler = signal(SIGXFSZ, SIG_IGN)  // else exceeding the limit kills the process
        var tiny = saved
        tiny.rlim_cur = 8
        XCTAssertEqual(setrlimit(Int32(RLIMIT_FSIZE.rawValue), &tiny), 0)
        var thrown: Error?
        do {
            try store.save(PersistentState(mute: .muted, lastSpokenBoundary: 1_767_226_500))
        } catch {
            thrown = error
        }
        setrlimit(Int32(RLIMIT_FSIZE.rawValue), &saved)
        signal(SIGXFSZ, oldHandler)

        guard let error = thrown as? StateStoreError else { return XCTFail("the save should have failed") }
        XCTAssertEqual(error.code, EFBIG)
        XCTAssertEqual(error.path, store.fileURL.path)
        XCTAssertTrue(error.step.hasPrefix("writing \(root.path)/.state.json.tmp-"), error.step)
        XCTAssertTrue("\(error)".hasSuffix("failed: File too large. The previous state is unchanged."), "\(error)")
        XCTAssertEqual(try Data(contentsOf: store.fileURL), before)
        XCTAssertEqual(store.load().state, previous)
        XCTAssertEqual(contents(root), ["state.json"], "the temporary file is removed")
    }

    /// For a user that is not root, a read-only directory; root passes permission checks, so there
    /// this case is covered by the two tests above instead.
    func testReadOnlyDirectoryForOrdinaryUsers() throws {
        try XCTSkipIf(geteuid() == 0, "root ignores permission bits")
        let store = StateStore(directory: root)
        try store.save(PersistentState(mute: .muted))
        XCTAssertEqual(chmod(root.path, 0o500), 0)
        XCTAssertThrowsError(try store.save(PersistentState())) { error in
            XCTAssertTrue(
                "\(error)".contains("creating a temporary file in \(root.path) failed: Permission denied"), "\(error)")
        }
        chmod(root.path, 0o700)
        XCTAssertEqual(store.load().state, PersistentState(mute: .muted))
    }

    func testDefaultDirectory() {
        let cases: [(env: [String: String], expected: String)] = [
            (["XDG_STATE_HOME": "/x/state", "HOME": "/home/u"], "/x/state/talking-clock"),
            (["XDG_STATE_HOME": "relative/state", "HOME": "/home/u"], "/home/u/.local/state/talking-clock"),
            (["XDG_STATE_HOME": "", "HOME": "/home/u"], "/home/u/.local/state/talking-clock"),
            (["HOME": "/home/u"], "/home/u/.local/state/talking-clock"),
        ]
        for c in cases {
            XCTAssertEqual(StateStore.defaultDirectory(environment: c.env).path, c.expected, "\(c.env)")
        }
    }
}
