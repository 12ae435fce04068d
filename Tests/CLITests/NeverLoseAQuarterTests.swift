import Foundation
import Glibc
import TalkingClockCore
import TestSupport
import XCTest

/// The defects of issue "Never lose a quarter" that live in the running daemon: each test fails
/// without its fix. Every time is simulated and explicit (`--fake-clock` on 2026-07-01 UTC), and
/// every wait is for an event in the daemon's log or on its socket, with margins for a busy
/// 2-core machine.
final class NeverLoseAQuarterTests: XCTestCase {
    var dir: URL!
    var pulse: AudioHarness.PrivatePulse?
    var daemons: [DaemonProcess] = []

    override func setUpWithError() throws {
        dir = FixturePack.temporaryDirectory("quarter")
        // A daemon that dies under a test (the SIGPIPE test against a broken build) must fail the
        // test, not kill the test runner with SIGPIPE on the next request.
        signal(SIGPIPE, SIG_IGN)
    }

    override func tearDown() {
        for d in daemons { d.stop() }
        pulse?.stop()
        try? FileManager.default.removeItem(at: dir)
    }

    func privatePulse() throws -> [String: String] {
        guard AudioHarness.isAvailable else { throw XCTSkip("PulseAudio not installed: run scripts/install-deps --test") }
        pulse = try AudioHarness.PrivatePulse("quarter")
        return pulse!.environment
    }

    var packPath: String { dir.appendingPathComponent("pack").path }

    /// The fixture pack at 22 050 Hz mono; `seconds` gives each clip's length (default 0.1 s).
    func writePack(extraManifest: String = "", ids: [String] = FixturePack.fullVocabulary, seconds: @escaping (String) -> Double = { _ in 0.1 }) throws {
        try FixturePack.write(
            to: dir.appendingPathComponent("pack"), ids: ids, framesPerClip: { Int(22050 * seconds($0)) },
            format: StreamFormat(sampleRate: 22050, channels: 1), extraManifest: extraManifest)
    }

    /// `talking-clock run` on a simulated clock (UTC) with its own socket and, unless `stateDir`
    /// is nil, its own state directory.
    func start(
        fakeClock: String?, rate: Double = 1, device: String, stateDir: String? = "state", extra: [String] = [],
        environment: [String: String] = [:], socket: String = "run/control.sock", log: String = "daemon.log"
    ) throws -> DaemonProcess {
        var args = ["run", "--pack", packPath, "--tz", "UTC", "--device", device]
        if let fakeClock { args += ["--fake-clock", fakeClock, "--clock-rate", "\(rate)"] }
        if let stateDir { args += ["--state-dir", dir.appendingPathComponent(stateDir).path] }
        var env = environment
        env["XDG_CONFIG_HOME"] = env["XDG_CONFIG_HOME"] ?? dir.appendingPathComponent("cfg").path
        let d = try DaemonProcess(
            args + extra, socket: dir.appendingPathComponent(socket).path, environment: env,
            logURL: dir.appendingPathComponent(log))
        daemons.append(d)
        return d
    }

    // MARK: - 1. A `say` near a boundary never cancels the boundary

    /// 10:14:00 on a clock running 5× real time: 10:15 is 12 real seconds away, its wake-up 11 s.
    /// A `say` right after start speaks "ten fourteen AM" with a 14 s "fourteen": it still plays at
    /// the wake-up, and the boundary wins: the say is cut and 10:15 is spoken.
    func testASayOverlappingTheBoundaryIsCutAndTheBoundaryIsSpoken() throws {
        let env = try privatePulse()
        try writePack(seconds: { $0 == "fourteen" ? 14 : 0.1 })
        let d = try start(fakeClock: "2026-07-01T10:14:00Z", rate: 5, device: "pulse", environment: env)
        XCTAssertEqual(try d.request("say"), "ok speaking ten fourteen AM")
        XCTAssertTrue(d.waitForLog("<6>spoke boundary=2026-07-01T10:15:00+00:00", timeout: 30), d.log)
        XCTAssertFalse(d.log.contains("reason=busy"), d.log)
        let cut = d.logLines(containing: "<6>announcement cut")
        XCTAssertEqual(cut.count, 1, d.log)
        XCTAssertTrue(cut.first?.contains("kind=say") ?? false, d.log)
        XCTAssertTrue(cut.first?.contains(#"reason="the boundary 2026-07-01T10:15:00+00:00 is due""#) ?? false, d.log)
        // And a `say` while the boundary's own announcement is due is refused, not the boundary cut.
        XCTAssertTrue(try d.request("status").contains("last spoke"), d.log)
    }

    /// While the boundary's announcement waits for its instant (the lead), `say` is refused with
    /// a `busy` error and the boundary is spoken.
    func testASayDuringTheBoundaryLeadIsRefused() throws {
        let env = try privatePulse()
        try writePack()
        // 10:14:58 at real rate: 10:15's wake-up (1 s lead) is 1 s after start.
        let d = try start(fakeClock: "2026-07-01T10:14:57Z", device: "pulse", environment: env)
        try d.waitUntilPlaying()
        let reply = try d.request("say")
        XCTAssertTrue(reply.hasPrefix("error busy: the announcement for 2026-07-01T10:15:00+00:00 is playing or about to"), reply)
        XCTAssertTrue(d.waitForLog("<6>spoke boundary=2026-07-01T10:15:00+00:00", timeout: 20), d.log)
    }

    // MARK: - 5. A fast simulated clock keeps its Westminster hours

    /// 60× real time, Westminster: the 10:45 announcement (a 13 s "forty-five") still plays when
    /// 11:00's pre-roll must start, 12 real seconds later (with the default pack this happens at
    /// 30×: its :45 quarters alone take 12 s). Before, 11:00 was skipped as
    /// "busy"; now the older announcement is cut and the hour is rung and spoken.
    func testAFastClockCutsTheOlderAnnouncementForTheNextBoundary() throws {
        let env = try privatePulse()
        let bells = ["q1", "q2", "q3", "q4", "big"]
        try writePack(
            extraManifest: #""bells": {"quarter": ["q1", "q2", "q3", "q4"], "hour": "big"}, "chimes": {"beat_ms": 100, "hour_after_ms": 400, "strike_interval_ms": 300, "voice_after_ms": 300},"#,
            ids: FixturePack.fullVocabulary + bells, seconds: { $0 == "forty-five" ? 13 : 0.1 })
        let d = try start(
            fakeClock: "2026-07-01T10:44:00Z", rate: 60, device: "pulse", extra: ["--chime", "westminster"], environment: env)
        XCTAssertTrue(d.waitForLog("<6>spoke boundary=2026-07-01T11:00:00+00:00", timeout: 60), d.log)
        XCTAssertFalse(d.log.contains("reason=busy"), d.log)
        XCTAssertTrue(
            d.logLines(containing: "<6>announcement cut").contains {
                $0.contains("boundary=2026-07-01T10:45:00+00:00") && $0.contains("2026-07-01T11:00:00+00:00 is due")
            }, d.log)
    }

    // MARK: - 2. Demo runs keep their state apart

    /// `--fake-clock` / `--clock-offset` without `--state-dir`: the boundary spoken and a mute
    /// until far in the simulated future stay in memory; the real state file is never written.
    func testADemoRunNeverWritesTheRealState() throws {
        try writePack()
        let xdgState = dir.appendingPathComponent("xdg-state")
        let realState = xdgState.appendingPathComponent("talking-clock/state.json")
        let d = try start(
            fakeClock: "2026-07-01T10:14:58Z", device: "file:FILE=/dev/null", stateDir: nil,
            environment: ["XDG_STATE_HOME": xdgState.path])
        XCTAssertTrue(d.waitForLog("<6>spoke boundary=2026-07-01T10:15:00+00:00", timeout: 20), d.log)
        XCTAssertEqual(try d.request("mute for 1h"), "ok muted until 2026-07-01T11:15:00+00:00")
        d.stop()
        XCTAssertFalse(FileManager.default.fileExists(atPath: realState.path), "a demo wrote the real state")

        // The same with --clock-offset (the README's demo).
        let offset = try start(
            fakeClock: nil, device: "file:FILE=/dev/null", stateDir: nil, extra: ["--clock-offset=3153599999", "--driver", "external"],
            environment: ["XDG_STATE_HOME": xdgState.path], socket: "run2/control.sock", log: "daemon2.log")
        XCTAssertTrue(try offset.request("mute for 1h").hasPrefix("ok muted until 2126-"))
        offset.stop()
        XCTAssertFalse(FileManager.default.fileExists(atPath: realState.path), "a demo wrote the real state")

        let help = try BinaryRunner.run(["run", "--help"])
        XCTAssertTrue(help.stdout.contains("kept in memory only"), help.stdout)
    }

    // MARK: - 3. One daemon per state

    /// Two daemons with the same state directory but different sockets: the second is refused
    /// (exit 75) while the first runs, and `announce --next` on that state too; the lock dies with
    /// the first daemon, even with SIGKILL.
    func testASecondDaemonOnTheSameStateIsRefused() throws {
        try writePack()
        let state = dir.appendingPathComponent("shared-state").path
        let first = try start(
            fakeClock: nil, device: "file:FILE=/dev/null", stateDir: "shared-state", extra: ["--driver", "external"],
            socket: "a/control.sock", log: "a.log")
        let second = try BinaryRunner.run(
            ["run", "--pack", packPath, "--device", "file:FILE=/dev/null", "--state-dir", state, "--socket",
             dir.appendingPathComponent("b.sock").path],
            timeout: 20)
        XCTAssertEqual(second.status, ExitStatus.busy.rawValue, second.stderr)
        XCTAssertTrue(
            second.stderr.contains("Another talking-clock daemon is already running with the state in \(state)"), second.stderr)
        let announce = try BinaryRunner.run(
            ["announce", "--next", "--pack", packPath, "--device", "file:FILE=/dev/null", "--state-dir", state, "--socket",
             dir.appendingPathComponent("none.sock").path],
            timeout: 20)
        XCTAssertEqual(announce.status, ExitStatus.busy.rawValue, announce.stderr)

        // Under the default XDG paths too: same XDG_STATE_HOME, different XDG_RUNTIME_DIR.
        first.kill9()
        let env1 = ["XDG_STATE_HOME": dir.appendingPathComponent("xdg").path, "XDG_RUNTIME_DIR": dir.appendingPathComponent("r1").path]
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("r1"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("r2"), withIntermediateDirectories: true)
        _ = try start(
            fakeClock: nil, device: "file:FILE=/dev/null", stateDir: nil, extra: ["--driver", "external"], environment: env1,
            socket: "r1/talking-clock/control.sock", log: "c.log")
        var env2 = ProcessInfo.processInfo.environment
        env2["XDG_STATE_HOME"] = env1["XDG_STATE_HOME"]
        env2["XDG_RUNTIME_DIR"] = dir.appendingPathComponent("r2").path
        let third = try BinaryRunner.run(["run", "--pack", packPath, "--device", "file:FILE=/dev/null"], environment: env2, timeout: 20)
        XCTAssertEqual(third.status, ExitStatus.busy.rawValue, third.stderr)

        // SIGKILL released the first lock: a daemon on "shared-state" starts now.
        _ = try start(
            fakeClock: nil, device: "file:FILE=/dev/null", stateDir: "shared-state", extra: ["--driver", "external"],
            socket: "d/control.sock", log: "d.log")
    }

    // MARK: - 8. A lost log reader never stops the clock

    func testTheDaemonSurvivesItsLogReaderGoingAway() throws {
        try writePack()
        let socket = dir.appendingPathComponent("run/control.sock").path
        let process = Process()
        process.executableURL = BinaryRunner.binary
        process.arguments = [
            "run", "--driver", "external", "--pack", packPath, "--device", "file:FILE=/dev/null", "--state-dir",
            dir.appendingPathComponent("state").path, "--socket", socket,
        ]
        var env = ProcessInfo.processInfo.environment
        env["XDG_CONFIG_HOME"] = dir.appendingPathComponent("cfg").path
        process.environment = env
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        defer {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
        // The reader goes away (as `… 2>&1 | head -c 50` does once it has its bytes).
        try pipe.fileHandleForReading.close()
        let deadline = Date().addingTimeInterval(20)
        while (try? SocketClient.request("status", path: socket, timeout: 1)) == nil {
            guard process.isRunning, Date() < deadline else { return XCTFail("the daemon died or never answered") }
            usleep(10_000)
        }
        // Each of these writes a log line into the broken pipe.
        XCTAssertEqual(try SocketClient.request("mute", path: socket), "ok muted")
        XCTAssertEqual(try SocketClient.request("unmute", path: socket), "ok unmuted")
        XCTAssertTrue(try SocketClient.request("status", path: socket).hasPrefix("ok driver external"))
        XCTAssertTrue(process.isRunning)
    }

    // MARK: - 10. Devices without a clock

    /// ALSA's `null` and `file:` devices take frames as fast as they are written. The daemon must
    /// not feed them silence until the boundary: that burned a second of CPU per announcement and
    /// wrote hundreds of megabytes of padding into a file.
    func testUnpacedDevicesGetTheAnnouncementNotABusyLoopOfSilence() throws {
        try writePack()
        // 10:14:00 at 30× real time: 10:15 comes 2 s after start, woken 1 s before it.
        let out = dir.appendingPathComponent("out.wav")
        let file = try start(
            fakeClock: "2026-07-01T10:14:00Z", rate: 30, device: "file:FILE=\(out.path),FORMAT=wav", log: "file.log")
        XCTAssertTrue(file.waitForLog("<6>spoke boundary=2026-07-01T10:15:00+00:00", timeout: 20), file.log)
        file.stop()
        let size = (try FileManager.default.attributesOfItem(atPath: out.path)[.size] as? Int) ?? 0
        // "ten fifteen AM": 3 clips of 0.1 s with word gaps, well under a second of 16-bit mono.
        XCTAssertGreaterThan(size, 3 * 2205 * 2, "the announcement is in the file")
        XCTAssertLessThan(size, 22050 * 2, "no padding beyond a period or two: \(size) bytes")

        let null = try start(
            fakeClock: "2026-07-01T10:14:30Z", rate: 10, device: "null", stateDir: "state2", socket: "run2/control.sock",
            log: "null.log")
        XCTAssertTrue(null.waitForLog("<6>spoke boundary=2026-07-01T10:15:00+00:00", timeout: 20), null.log)
        let cpu = Self.cpuSeconds(pid: null.pid)
        XCTAssertLessThan(cpu, 0.5, "CPU time of a daemon that spoke once on the null device: \(cpu) s")
    }

    /// utime + stime of a process, in seconds (from /proc/PID/stat).
    static func cpuSeconds(pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return .infinity }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command: state is field 3, utime 14, stime 15 (1-based) → indices 11 and 12 here.
        let ticks = (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    // MARK: - 13. One exit-code mapping, the same through the daemon

    func testExitCodesThroughTheDaemonMatchTheStandAlonePath() throws {
        try writePack()
        let runtime = dir.appendingPathComponent("rt")
        let env = ["XDG_RUNTIME_DIR": runtime.path, "XDG_CONFIG_HOME": dir.appendingPathComponent("cfg").path]
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        // A daemon whose device fails: a bare `say` handed to it exits 69, as `say --local` would.
        let broken = try start(
            fakeClock: nil, device: "no_such_pcm", extra: ["--driver", "external"], environment: env,
            socket: "rt/talking-clock/control.sock", log: "broken.log")
        let say = try BinaryRunner.run(["say"], environment: env)
        XCTAssertEqual(say.status, ExitStatus.deviceError.rawValue, say.stdout + say.stderr)
        XCTAssertTrue(say.stderr.contains(#"Could not open ALSA device "no_such_pcm""#), say.stderr)
        XCTAssertTrue(broken.log.contains("<4>device not usable device=no_such_pcm"), "checked at start: \(broken.log)")
        XCTAssertTrue(broken.log.contains("<3>announcement failed reason="), broken.log)
        XCTAssertTrue(broken.log.contains(" say_at="), "a say has no boundary: \(broken.log)")
        XCTAssertFalse(broken.log.contains("announcement failed boundary="), broken.log)
        broken.stop()

        // `announce --next` handed to a daemon waits for the boundary to be spoken and honours
        // its own --max-wait, with the stand-alone exit codes.
        // 10:14:00 on a clock running 20× real time: 10:15 is 60 clock seconds (3 real) away.
        _ = try start(
            fakeClock: "2026-07-01T10:14:00Z", rate: 20, device: "file:FILE=/dev/null", stateDir: "state2", extra: ["--driver", "external"],
            environment: env, socket: "rt/talking-clock/control.sock", log: "ok.log")
        let far = try BinaryRunner.run(["announce", "--next", "--max-wait", "30"], environment: env)
        XCTAssertEqual(far.status, ExitStatus.stale.rawValue, far.stderr)
        XCTAssertTrue(far.stderr.contains("more than --max-wait 30 s"), far.stderr)
        let started = Date()
        let spoken = try BinaryRunner.run(["announce", "--next", "--max-wait", "120"], environment: env)
        XCTAssertEqual(spoken.status, 0, spoken.stderr)
        XCTAssertTrue(spoken.stdout.hasPrefix(#"spoke 2026-07-01T10:15:00+00:00 "ten fifteen AM""#), spoken.stdout)
        XCTAssertGreaterThan(Date().timeIntervalSince(started), 0.5, "it returned only once the boundary was spoken")
        let again = try BinaryRunner.run(["announce", "--next"], environment: env)
        XCTAssertEqual(again.status, ExitStatus.stale.rawValue, again.stderr)
        XCTAssertTrue(again.stderr.contains("was already announced"), again.stderr)
    }

    /// An `announce --next` waiting in the daemon for its boundary gets an answer when the daemon
    /// stops (exit 3, "not announced"), not a connection closed without a reply.
    func testAWaitingAnnounceIsAnsweredWhenTheDaemonStops() throws {
        try writePack()
        let runtime = dir.appendingPathComponent("rt")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        let env = ["XDG_RUNTIME_DIR": runtime.path, "XDG_CONFIG_HOME": dir.appendingPathComponent("cfg").path]
        // 10:14:00: 10:15 is a minute away.
        let d = try start(
            fakeClock: "2026-07-01T10:14:00Z", device: "file:FILE=/dev/null", extra: ["--driver", "external"], environment: env,
            socket: "rt/talking-clock/control.sock")
        nonisolated(unsafe) var outcome: BinaryRunner.Outcome?
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            outcome = try? BinaryRunner.run(["announce", "--next", "--max-wait", "120"], environment: env, timeout: 60)
            done.signal()
        }
        XCTAssertTrue(d.waitForLog("<6>trigger boundary=2026-07-01T10:15:00+00:00", timeout: 20), d.log)
        d.stop()
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        let r = try XCTUnwrap(outcome)
        XCTAssertEqual(r.status, ExitStatus.stale.rawValue, r.stdout + r.stderr)
        XCTAssertTrue(r.stderr.contains("not announced: the daemon is stopping"), r.stderr)
    }

    /// A daemon that is stopped (SIGSTOP) is reported as not answering (exit 4), not as having
    /// closed the connection.
    func testAStoppedDaemonIsReportedAsNotAnswering() throws {
        try writePack()
        let d = try start(fakeClock: nil, device: "file:FILE=/dev/null", extra: ["--driver", "external"])
        kill(d.pid, SIGSTOP)
        defer { kill(d.pid, SIGCONT) }
        let status = try BinaryRunner.run(["status", "--socket", d.socket], timeout: 30)
        XCTAssertEqual(status.status, ExitStatus.noDaemon.rawValue, status.stderr)
        XCTAssertTrue(status.stderr.contains("did not answer within 10 s"), status.stderr)
    }

    // MARK: - 15. Visible state

    func testAPendingSkipIsShownCanBeTakenBackAndIsLogged() throws {
        try writePack()
        let d = try start(fakeClock: nil, device: "file:FILE=/dev/null", extra: ["--driver", "external"])
        XCTAssertEqual(try d.request("skip"), "ok the next announcement will be left out ('unskip' takes it back)")
        XCTAssertTrue(try d.request("status").contains("skip pending"))
        XCTAssertTrue(try d.request("status json").contains(#""skip_pending":true"#))
        XCTAssertEqual(try d.request("unskip"), "ok the next announcement will be spoken")
        XCTAssertFalse(try d.request("status").contains("skip pending"))
        XCTAssertTrue(try d.request("status json").contains(#""skip_pending":false"#))
        XCTAssertTrue(d.waitForLog("<6>skip requested", timeout: 5), d.log)
        XCTAssertTrue(d.waitForLog("<6>skip taken back", timeout: 5), d.log)
        _ = try d.request("trigger")
        XCTAssertTrue(d.waitForLog("<6>trigger boundary=", timeout: 5), d.log)
    }

    // MARK: - 7. A reload never makes playback wait

    /// A pack of 6,000 clips takes a reload a while to decode. Five reloads (as five SIGHUPs) sent
    /// while an announcement plays run beside it: the loop keeps answering (a `status` sent right
    /// after them is answered before they are), and the capture of the sink shows the
    /// announcement as one unbroken sound (it used to have a dropout mid-word).
    func testAReloadDecodesOffTheLoop() throws {
        let env = try privatePulse()
        let extra = (0..<6000).map { "extra-\($0)" }
        try writePack(ids: FixturePack.fullVocabulary + extra, seconds: { $0 == "fifteen" ? 3 : 0.05 })
        let capture = try AudioHarness.startCapture(to: dir.appendingPathComponent("cap.wav"), environment: env)
        let d = try start(fakeClock: "2026-07-01T10:14:58Z", device: "pulse", environment: env)
        // While "fifteen" (3 s) plays:
        try d.waitUntilPlaying()
        usleep(1_500_000)  // into the boundary's words, "fifteen" under way
        var reloaders: [Int32] = []
        for _ in 0..<5 {
            let fd = try SocketClient.connect(d.socket, receiveTimeout: 60)
            XCTAssertEqual(SocketClient.send(fd, Array("reload\n".utf8)), 7)
            reloaders.append(fd)
        }
        defer { for fd in reloaders { Glibc.close(fd) } }
        XCTAssertTrue(try d.request("status").hasPrefix("ok driver timer"))
        // Had the loop decoded the pack itself, a reload's reply would be there before status's.
        var pfd = pollfd(fd: reloaders[0], events: Int16(POLLIN), revents: 0)
        XCTAssertEqual(poll(&pfd, 1, 0), 0, "the reload was answered before a status sent after it: it ran on the loop")
        for fd in reloaders { XCTAssertEqual(SocketClient.receive(fd), "ok reloaded\n") }
        XCTAssertTrue(d.waitForLog("<6>spoke boundary=2026-07-01T10:15:00+00:00", timeout: 20), d.log)
        capture.stop()
        let gaps = try AudioHarness.analyze("gaps", capture.output, ["--min-gap-ms", "5"])
        let segments = try XCTUnwrap(gaps["segments"] as? [[String: Any]], "\(gaps)")
        XCTAssertEqual(segments.count, 1, "the announcement is one unbroken sound: \(gaps)")
        let length = segments.first?["duration_ms"] as? Double ?? 0
        XCTAssertEqual(length, 3100, accuracy: 15, "0.05 + 3 + 0.05 s: \(gaps)")
    }
}
