import Foundation
import Glibc
import TestSupport
import XCTest

/// The CLI trusts a control socket only if it is its own user's (issue 22): another local user
/// who plants `/tmp/talking-clock-UID` first must not be able to forge replies, and a socket it
/// may not use is not "no daemon is running". Needs root, to run the planter as `nobody`.
final class PlantedSocketTests: XCTestCase {
    var dir: URL!
    var planters: [Process] = []
    let nobody: UInt32 = 65534

    override func setUpWithError() throws {
        guard getuid() == 0 else { throw XCTSkip("needs root, to run another user's process (setpriv)") }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else {
            throw XCTSkip("setpriv or /usr/bin/python3 is not installed (Debian: util-linux, python3)")
        }
        dir = FixturePack.temporaryDirectory("planted")
        chmod(dir.path, 0o755)
    }

    override func tearDown() {
        for p in planters where p.isRunning {
            p.terminate()
            p.waitUntilExit()
        }
        if let dir { try? FileManager.default.removeItem(at: dir) }
    }

    /// `argv` run as uid/gid `nobody`.
    func asNobody(_ argv: [String]) -> [String] {
        ["/usr/bin/setpriv", "--reuid=\(nobody)", "--regid=\(nobody)", "--clear-groups"] + argv
    }

    /// A fake daemon, run as `nobody`, that answers every connection with a forged reply.
    func plant(at socket: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = asNobody([
            "/usr/bin/python3", "-c",
            """
            import socket, sys
            s = socket.socket(socket.AF_UNIX)
            s.bind(sys.argv[1])
            s.listen(8)
            while True:
                c, _ = s.accept()
                try:
                    c.sendall(b"ok driver timer; FORGED by another user\\n")
                except OSError:
                    pass  # the client hung up first
                c.close()
            """,
            socket,
        ])
        p.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try p.run()
        planters.append(p)
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: socket) {
            guard Date() < deadline, p.isRunning else { return XCTFail("the planted socket did not appear") }
            usleep(10_000)
        }
    }

    func testASocketServedByAnotherUserIsRefusedNotBelieved() throws {
        let shared = dir.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: false)
        chmod(shared.path, 0o1777)  // like /tmp: ours (root's), anyone may create in it
        let socket = shared.appendingPathComponent("control.sock").path
        try plant(at: socket)
        for command in [["status"], ["mute", "--for", "5m"]] {
            let r = try BinaryRunner.run(command + ["--socket", socket])
            XCTAssertEqual(r.status, 64, "\(command): \(r.stdout) \(r.stderr)")
            XCTAssertFalse(r.stdout.contains("FORGED"), r.stdout)
            XCTAssertTrue(
                r.stderr.contains("Refusing the control socket \(socket): it is served by process ")
                    && r.stderr.contains(" of uid \(nobody), not by your own daemon (uid 0); its replies cannot be trusted."),
                r.stderr)
        }
    }

    func testASocketInAnotherUsersDirectoryIsRefused() throws {
        let planted = dir.appendingPathComponent("talking-clock-0")
        try FileManager.default.createDirectory(at: planted, withIntermediateDirectories: false)
        chown(planted.path, nobody, nobody)
        let socket = planted.appendingPathComponent("control.sock").path
        try plant(at: socket)
        let r = try BinaryRunner.run(["status", "--socket", socket])
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertFalse(r.stdout.contains("FORGED"), r.stdout)
        XCTAssertTrue(
            r.stderr.contains("Refusing the control socket \(socket): its directory \(planted.path) belongs to uid \(nobody), not to you (uid 0)"),
            r.stderr)
    }

    /// `nobody` asking a socket in a directory it may not enter is told so, not that no daemon runs.
    func testPermissionDeniedIsNotNoDaemon() throws {
        let mine = dir.appendingPathComponent("private")
        try FileManager.default.createDirectory(at: mine, withIntermediateDirectories: false)
        chmod(mine.path, 0o700)
        let socket = mine.appendingPathComponent("control.sock").path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = asNobody([BinaryRunner.binary.path, "status", "--socket", socket])
        p.environment = ["PATH": "/usr/bin:/bin", "XDG_CONFIG_HOME": "/nonexistent", "HOME": "/nonexistent"]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        try p.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 64, text)
        XCTAssertFalse(text.contains("No talking-clock daemon is running"), text)
        XCTAssertTrue(text.contains("Permission denied connecting to the control socket \(socket)"), text)
    }

    func testALongSocketPathIsAClearError() throws {
        let socket = "/tmp/" + String(repeating: "x", count: 120) + "/control.sock"
        let r = try BinaryRunner.run(["status", "--socket", socket])
        XCTAssertEqual(r.status, 64, r.stderr)
        XCTAssertTrue(
            r.stderr.contains("The control socket path \(socket) is 138 bytes, but a Unix socket path may have at most 107; use a shorter --socket"),
            r.stderr)
    }
}
