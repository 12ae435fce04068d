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
            XCTAssertEqual(state, PersistentState(), c.why)
            let aside = file.path + ".corrupt-20260101T010203Z"
            XCTAssertEqual(
                warning,
                "The state file \(file.path) was unreadable (\(c.reason)), so talking-clock starts unmuted and without "
                    + "its memory of the last announcement; the file was left in place as \(aside) for inspection.",
                c.why)
            XCTAssertEqual(contents(dir), ["state.json.corrupt-20260101T010203Z"], c.why)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: aside)), Data(c.bytes), "\(c.why): evidence kept")

            // The next save writes a fresh file and keeps the evidence.
            try store.save(PersistentState(mute: .muted))
            XCTAssertEqual(store.load().state, PersistentState(mute: .muted))
            XCTAssertEqual(contents(dir), ["state.json", "state.json.corrupt-20260101T010203Z"], c.why)
        }
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
        XCTAssertEqual(state, PersistentState())
        XCTAssertEqual(
            warning,
            "The state file \(dir.path)/state.json could not be read (Not a directory), so talking-clock starts "
                + "unmuted and without its memory of the last announcement; fix its permissions or remove it.")
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
