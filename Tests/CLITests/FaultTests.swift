import Foundation
import Glibc
import TalkingClockCore
import TestSupport
import XCTest

/// Faults around the running daemon (the built binary): a sound device that is absent, busy or
/// vanishes mid-announcement, a pack damaged under it, garbage config and state files, a state
/// directory that cannot be written. In every case the daemon says what failed and why, keeps
/// answering its socket, and the next boundary plays once the fault is gone.
///
/// Boundaries come every few seconds on a simulated clock: `--fake-clock 10:05 UTC --clock-rate
/// 300` puts 10:15 two real seconds after start and every later quarter 3 s apart. Sound goes to
/// a private PulseAudio null sink (scripts/harness), one per test, so stopping it or playing into
/// it never disturbs another test.
final class FaultTests: XCTestCase {
    var dir: URL!
    var pulse: AudioHarness.PrivatePulse?
    var daemon: DaemonProcess?
    var mounted: [String] = []

    /// 10:15:00Z comes `leadIn` real seconds after the daemon starts, then a quarter every
    /// 900 / rate seconds.
    let rate = 300.0
    let leadIn = 2.0
    var fakeStart: String { CivilTime.utcString(Int(boundary(0)) - Int(leadIn * rate)) }
    func boundary(_ n: Int) -> Double { 1_782_900_900 + Double(n) * 900 }  // 2026-07-01T10:15:00Z + n quarters
    func stamp(_ n: Int) -> String { CivilTime.local(Int(boundary(n)), offset: 0).rfc3339 }

    override func setUpWithError() throws {
        dir = FixturePack.temporaryDirectory("faults")
        XCTAssertEqual(stamp(0), "2026-07-01T10:15:00+00:00")
    }

    override func tearDown() {
        daemon?.stop()
        for point in mounted.reversed() { _ = umount2(point, Int32(MNT_DETACH)) }
        pulse?.stop()
        try? FileManager.default.removeItem(at: dir)
    }

    /// A private PulseAudio for this test; returns the environment its clients need.
    func privatePulse() throws -> [String: String] {
        guard AudioHarness.isAvailable else {
            throw XCTSkip("PulseAudio not installed: run scripts/install-deps --test")
        }
        pulse = try AudioHarness.PrivatePulse("faults")
        return pulse!.environment
    }

    /// Writes the fixture pack (22 050 Hz mono, every clip `clipSeconds` long) to dir/pack.
    @discardableResult
    func writePack(clipSeconds: Double = 0.1) throws -> [String: [Int16]] {
        try FixturePack.write(
            to: dir.appendingPathComponent("pack"), framesPerClip: { _ in Int(22050 * clipSeconds) },
            format: StreamFormat(sampleRate: 22050, channels: 1))
    }

    var configFile: URL { dir.appendingPathComponent("cfg/talking-clock/config.toml") }

    func writeConfig(_ text: String) throws {
        try FileManager.default.createDirectory(
            at: configFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: configFile, atomically: true, encoding: .utf8)
    }

    /// Starts the daemon on the simulated clock (or with `extra` replacing it).
    func start(
        device: String?, environment: [String: String] = [:], stateDir: String? = nil, clock: [String]? = nil,
        extra: [String] = []
    ) throws -> DaemonProcess {
        var args = ["run", "--pack", dir.appendingPathComponent("pack").path, "--tz", "UTC"]
        args += clock ?? ["--fake-clock", fakeStart, "--clock-rate", "\(Int(rate))"]
        if let device { args += ["--device", device] }
        args += ["--state-dir", stateDir ?? dir.appendingPathComponent("state").path] + extra
        var env = environment
        env["XDG_CONFIG_HOME"] = dir.appendingPathComponent("cfg").path
        let d = try DaemonProcess(
            args, socket: dir.appendingPathComponent("run/control.sock").path, environment: env,
            logURL: dir.appendingPathComponent("daemon.log"))
        daemon = d
        return d
    }

    func failedLine(_ d: DaemonProcess, _ n: Int) -> String? {
        d.logLines(containing: "<3>announcement failed boundary=\(stamp(n))").first
    }

    /// Waits until the daemon has opened the device for the next boundary: it does so 1 real
    /// second before it (the lead), so a test can time itself from this event instead of from
    /// when it started the daemon.
    func waitUntilPlaying(_ d: DaemonProcess, timeout: Double = 20) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !(try d.request("status json")).contains(#""playing":true"#) {
            guard Date() < deadline else { throw DaemonProcess.Failure(description: "never played: \(d.log)") }
            usleep(10_000)
        }
    }

    // MARK: - The sound device

    /// `hw:7,0` (no such card) and a PCM name ALSA does not know: each boundary fails with ALSA's
    /// reason, the daemon keeps answering, and once the config names a working device (reload)
    /// the next boundary is spoken.
    func testAbsentDeviceFailsEachAnnouncementUntilADeviceWorks() throws {
        let env = try privatePulse()
        try writePack()
        try writeConfig("device = \"hw:7,0\"\n")
        let d = try start(device: nil, environment: env)

        XCTAssertTrue(d.waitForLog("announcement failed boundary=\(stamp(0))", timeout: 10), d.log)
        let first = try XCTUnwrap(failedLine(d, 0))
        XCTAssertTrue(first.contains(#"reason="Could not open ALSA device \"hw:7,0\": "#), first)
        XCTAssertTrue(first.contains("List devices with 'aplay -L' and pass one with --device."), first)
        let status = try d.request("status")
        XCTAssertTrue(status.hasPrefix("ok driver timer; next \(stamp(1))"), status)
        XCTAssertTrue(status.contains(#"last failed: Could not open ALSA device "hw:7,0""#), status)

        try writeConfig("device = \"no_such_pcm\"\n")
        // A device that cannot be opened is reported at reload (the daemon keeps running).
        let reloaded = try d.request("reload")
        XCTAssertTrue(reloaded.hasPrefix(#"ok reloaded; warning: the sound device "no_such_pcm" cannot be opened now"#), reloaded)
        XCTAssertTrue(d.waitForLog("announcement failed boundary=\(stamp(1))", timeout: 10), d.log)
        XCTAssertTrue(try XCTUnwrap(failedLine(d, 1)).contains(#"Could not open ALSA device \"no_such_pcm\""#), d.log)

        try writeConfig("device = \"pulse\"\n")
        XCTAssertEqual(try d.request("reload"), "ok reloaded")
        XCTAssertTrue(d.waitForLog("<6>spoke boundary=\(stamp(2))", timeout: 10), d.log)
        XCTAssertTrue(d.isRunning)
        XCTAssertTrue(try d.request("status").contains("last spoke"))
    }

    /// "Busy" is what ALSA answers when another program holds a device exclusively: snd_pcm_open
    /// fails with -EBUSY. There is no exclusive sound device on a machine without a sound card
    /// (and no kernel module to make one), so a small LD_PRELOAD library stands in for that one
    /// call: while a flag file exists, `snd_pcm_open` returns -EBUSY exactly as the kernel driver
    /// makes libasound do; otherwise it calls the real function. Everything above that call, the
    /// daemon's handling included, is the real code path.
    func testBusyDeviceFailsTheAnnouncementAndTheNextBoundaryPlaysWhenItIsFree() throws {
        var env = try privatePulse()
        try writePack()
        let shim = try compileBusyShim()
        let flag = dir.appendingPathComponent("device-is-busy")
        FileManager.default.createFile(atPath: flag.path, contents: nil)
        env["LD_PRELOAD"] = shim
        env["TC_TEST_BUSY_FLAG"] = flag.path
        let d = try start(device: "pulse", environment: env)

        XCTAssertTrue(d.waitForLog("announcement failed boundary=\(stamp(0))", timeout: 10), d.log)
        let line = try XCTUnwrap(failedLine(d, 0))
        XCTAssertTrue(line.contains(#"Could not open ALSA device \"pulse\": Device or resource busy"#), line)
        XCTAssertTrue(
            line.contains(
                "Another program is using it: use a shared device such as 'default', or stop the other program."), line)
        XCTAssertTrue(try d.request("status").contains("last failed: Could not open ALSA device"))

        try FileManager.default.removeItem(at: flag)  // the other program lets go
        XCTAssertTrue(d.waitForLog("<6>spoke boundary=\(stamp(1))", timeout: 10), d.log)
        XCTAssertTrue(d.isRunning)
    }

    /// Builds the LD_PRELOAD stand-in for a device held by another program (see above).
    func compileBusyShim() throws -> String {
        let source = dir.appendingPathComponent("busy.c")
        try #"""
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <errno.h>
        #include <stdlib.h>
        #include <unistd.h>
        typedef struct _snd_pcm snd_pcm_t;
        int snd_pcm_open(snd_pcm_t **pcm, const char *name, int stream, int mode) {
            static int (*real)(snd_pcm_t **, const char *, int, int);
            const char *flag = getenv("TC_TEST_BUSY_FLAG");
            if (flag && access(flag, F_OK) == 0) return -EBUSY;
            if (!real) real = (int (*)(snd_pcm_t **, const char *, int, int))dlsym(RTLD_NEXT, "snd_pcm_open");
            return real(pcm, name, stream, mode);
        }
        """#.write(to: source, atomically: true, encoding: .utf8)
        let output = dir.appendingPathComponent("busy.so").path
        for compiler in ["cc", "clang", "gcc"] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            p.arguments = [compiler, "-shared", "-fPIC", "-o", output, source.path, "-ldl"]
            p.standardError = FileHandle(forWritingAtPath: "/dev/null")
            try p.run()
            p.waitUntilExit()
            if p.terminationStatus == 0 { return output }
        }
        throw XCTSkip("no C compiler (cc, clang or gcc) to build the busy-device stand-in")
    }

    /// The sound server is stopped in the middle of an announcement: the announcement is logged
    /// as failed with ALSA's reason, the daemon keeps answering, and when the server is back the
    /// next boundary is spoken and heard.
    func testDeviceVanishingMidAnnouncementFailsItAndTheNextBoundaryPlays() throws {
        let env = try privatePulse()
        try writePack(clipSeconds: 1.0)  // "ten fifteen AM": 3 s of sound
        // 10:15 comes 2 s after start, then a quarter every 6 s.
        let d = try start(
            device: "pulse", environment: env,
            clock: ["--fake-clock", CivilTime.utcString(Int(boundary(0)) - 300), "--clock-rate", "150"])
        // The device opens 1 s before 10:15; stop the server 0.5 s into the 3 s of speech (the
        // margin either way holds on a busy machine).
        try waitUntilPlaying(d)
        usleep(1_500_000)
        try AudioHarness.pulseDown(dir: pulse!.dir)

        XCTAssertTrue(d.waitForLog("<3>announcement failed", timeout: 10), d.log)
        let line = try XCTUnwrap(d.logLines(containing: "<3>announcement failed").first)
        XCTAssertTrue(line.contains("boundary=\(stamp(0))"), line)
        XCTAssertTrue(line.contains(#"text="ten fifteen AM""#), line)
        XCTAssertTrue(
            line.contains(#"ALSA device \"pulse\" failed while playing"#), "failed mid-play, not at open: \(line)")
        XCTAssertTrue(d.isRunning)
        XCTAssertTrue(try d.request("status").contains(#"last failed: ALSA device "pulse" failed while playing"#))

        _ = try AudioHarness.pulseUp(dir: pulse!.dir)
        let capture = try AudioHarness.startCapture(to: dir.appendingPathComponent("after.wav"), environment: env)
        // The next boundary after the server is back (10:30, or 10:45 if bringing it back took
        // longer than usual on a busy machine).
        XCTAssertTrue(d.waitForLog("<6>spoke boundary=", timeout: 20), d.log)
        capture.stop()
        XCTAssertTrue(d.logLines(containing: "<6>spoke boundary=\(stamp(0))").isEmpty, d.log)
        let onsets = try AudioHarness.analyze("onsets", capture.output)
        XCTAssertGreaterThanOrEqual(onsets["count"] as? Int ?? 0, 1, "the next announcement is heard: \(onsets)")
        XCTAssertTrue(try d.request("status").contains("last spoke"))
    }

    /// The sound server stops answering (SIGSTOP, as a hung PulseAudio) in the middle of an
    /// announcement: the loop never waits on it. `status` is answered at once, the announcement
    /// is cut within the 2 s bound with a reason that names the device (not "stale"), an
    /// announcement asked for while it hangs fails at once saying since when, and SIGTERM ends
    /// the daemon at once. When the server answers again, the clock speaks again.
    func testASoundServerThatStopsAnsweringNeverHoldsTheLoop() throws {
        let env = try privatePulse()
        try writePack(clipSeconds: 1.0)  // "ten fifteen AM": 3 s of sound
        let d = try start(
            device: "pulse", environment: env,
            clock: ["--fake-clock", CivilTime.utcString(Int(boundary(0)) - 2), "--clock-rate", "1"])
        // The device opens 1 s before 10:15; stop the server 0.5 s into the 3 s of speech.
        try waitUntilPlaying(d)
        usleep(1_500_000)
        let server = try pulsePID()
        kill(server, SIGSTOP)
        var resumed = false
        defer { if !resumed { kill(server, SIGCONT) } }

        let asked = Date()
        XCTAssertTrue(try d.request("status").hasPrefix("ok driver timer"), "the loop answers while the server hangs")
        XCTAssertLessThan(Date().timeIntervalSince(asked), 1, "status is not held by the hung server")
        XCTAssertTrue(d.waitForLog("<6>announcement cut", timeout: 10), d.log)
        let cut = try XCTUnwrap(d.logLines(containing: "<6>announcement cut").first)
        XCTAssertTrue(cut.contains("boundary=\(stamp(0))"), cut)
        XCTAssertTrue(cut.contains(#"reason="the sound device \"pulse\" did not answer for 2 s"#), cut)
        XCTAssertFalse(cut.contains("stale"), "not a suspend or a clock step: \(cut)")
        XCTAssertTrue(d.log.contains("<3>sound device not answering"), d.log)
        // While it hangs, an announcement fails at once, saying since when.
        let said = Date()
        let reply = try d.request("say")
        XCTAssertTrue(reply.hasPrefix(#"error device: failed: the sound device "pulse" has not answered since "#), reply)
        XCTAssertLessThan(Date().timeIntervalSince(said), 1, reply)
        // The server answers again: the next announcement plays.
        kill(server, SIGCONT)
        resumed = true
        XCTAssertTrue(d.waitForLog("<5>sound device answers again", timeout: 10), d.log)
        XCTAssertTrue(try d.request("say").hasPrefix("ok speaking"), d.log)
        XCTAssertTrue(d.waitForLog("<6>spoke say_at=", timeout: 10), d.log)
        // SIGTERM while the server hangs again, in the middle of a word: the daemon leaves at once.
        XCTAssertTrue(try d.request("say").hasPrefix("ok speaking"))
        kill(server, SIGSTOP)
        resumed = false
        let stopped = Date()
        let status = d.stop()
        XCTAssertEqual(status, 0, d.log)
        XCTAssertLessThan(Date().timeIntervalSince(stopped), 1.5, "SIGTERM is acted on while the server hangs: \(d.log)")
    }

    /// The private PulseAudio's process (its pid file).
    func pulsePID() throws -> Int32 {
        let text = try String(contentsOfFile: pulse!.dir + "/pid", encoding: .utf8)
        return try XCTUnwrap(Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), text)
    }

    /// `mute` while an announcement waits for its boundary (the device is open and fed silence)
    /// or while it speaks cuts it: nothing more is heard, and the next boundary after `unmute`
    /// plays.
    func testMuteWhileAnAnnouncementWaitsOrSpeaksCutsIt() throws {
        let env = try privatePulse()
        try writePack(clipSeconds: 1.0)  // 3 s of speech
        // 10:15 comes 2 s after start, then a quarter every 6 s: room for 3 s of speech each.
        let d = try start(
            device: "pulse", environment: env,
            clock: ["--fake-clock", CivilTime.utcString(Int(boundary(0)) - 300), "--clock-rate", "150"])
        try waitUntilPlaying(d)  // 10:15: woken 1 s early, feeding silence
        XCTAssertEqual(try d.request("mute"), "ok muted")
        XCTAssertTrue(try d.request("status json").contains(#""playing":false"#))
        XCTAssertTrue(d.logLines(containing: "<6>announcement cut").contains { $0.contains(#"text="ten fifteen AM""#) }, d.log)
        XCTAssertEqual(try d.request("unmute"), "ok unmuted")

        try waitUntilPlaying(d)  // 10:30
        usleep(1_500_000)  // past the boundary: 0.5 s into "ten thirty AM" (3 s)
        XCTAssertEqual(try d.request("mute"), "ok muted")
        XCTAssertTrue(d.logLines(containing: "<6>announcement cut").contains { $0.contains(#"text="ten thirty AM""#) }, d.log)
        XCTAssertEqual(try d.request("unmute"), "ok unmuted")
        XCTAssertTrue(d.waitForLog("<6>spoke boundary=\(stamp(2))", timeout: 20), d.log)
        XCTAssertEqual(d.logLines(containing: "<6>spoke ").count, 1, "only 10:45 was spoken in full: \(d.log)")
    }

    // MARK: - The pack

    /// A clip replaced by garbage, another deleted: `reload` refuses with the reason each time and
    /// the loaded pack keeps playing; the next announcement uses both damaged clips and is written
    /// to the device in full, sample for sample (ALSA's tee: device records what was written
    /// while PulseAudio plays it in real time).
    func testDamagedPackIsRefusedByReloadAndTheLoadedPackKeepsPlaying() throws {
        let env = try privatePulse()
        let clips = try writePack()
        let recording = dir.appendingPathComponent("written.wav")
        let d = try start(device: "tee:SLAVE=pulse,FILE=\(recording.path),FORMAT=wav", environment: env)
        XCTAssertTrue(d.waitForLog("<6>spoke boundary=\(stamp(0))", timeout: 10), d.log)

        let pack = dir.appendingPathComponent("pack")
        let thirty = try Data(contentsOf: pack.appendingPathComponent("thirty.wav"))
        let am = try Data(contentsOf: pack.appendingPathComponent("am.wav"))
        try Data("RIFF, but not really: garbage".utf8).write(to: pack.appendingPathComponent("thirty.wav"))
        let garbage = try d.request("reload")
        XCTAssertTrue(
            garbage.hasPrefix(
                "error pack: reload refused, the previous configuration and pack stay: Clip 'thirty' (\(pack.path)/thirty.wav) cannot be decoded"
            ), garbage)
        try FileManager.default.removeItem(at: pack.appendingPathComponent("am.wav"))
        let deleted = try d.request("reload")
        XCTAssertTrue(
            deleted.hasPrefix(
                "error pack: reload refused, the previous configuration and pack stay: Clip 'am' is missing from sound pack directory"
            ), deleted)
        XCTAssertEqual(d.logLines(containing: "<3>reload refused").count, 2)

        XCTAssertTrue(d.waitForLog("<6>spoke boundary=\(stamp(1))", timeout: 10), d.log)
        XCTAssertTrue(
            d.logLines(containing: "<6>spoke boundary=\(stamp(1))").first?.contains(#"text="ten thirty AM""#) ?? false,
            d.log)
        // The file holds what was written for 10:30 until 10:45 opens the device again (3 s later).
        let written = try XCTUnwrap(WAVSamples.int16(at: recording), "no data chunk in \(recording.path)")
        let firstSound = try XCTUnwrap(written.firstIndex { $0 != 0 }, "nothing but silence was written")
        let expected = ["ten", "thirty", "am"].flatMap { clips[$0]! }
        XCTAssertEqual(
            Array(written[firstSound..<min(written.count, firstSound + expected.count)]), expected,
            "every sample of every clip")
        XCTAssertTrue(written[(firstSound + expected.count)...].allSatisfy { $0 == 0 }, "then only silence")

        try thirty.write(to: pack.appendingPathComponent("thirty.wav"))
        try am.write(to: pack.appendingPathComponent("am.wav"))
        XCTAssertEqual(try d.request("reload"), "ok reloaded", "the repaired pack loads again")
    }

    // MARK: - Config and state files

    /// Garbage, binary and truncated config files stop the start with the file and the line; at
    /// reload (socket or SIGHUP) they are refused and the running configuration stays.
    func testGarbageOrTruncatedConfigIsAClearErrorAndReloadKeepsTheOldOne() throws {
        try writePack()
        let common = [
            "run", "--pack", dir.appendingPathComponent("pack").path, "--device", "null", "--driver", "external",
            "--state-dir", dir.appendingPathComponent("state").path, "--socket",
            dir.appendingPathComponent("x.sock").path,
        ]
        let env = ["XDG_CONFIG_HOME": dir.appendingPathComponent("cfg").path]
        let path = configFile.path
        let cases: [(why: String, bytes: [UInt8], message: String)] = [
            (
                "truncated string", Array("volume = 80\ndevice = \"pul".utf8),
                "talking-clock: \(path): line 2, column 10: the string that starts here is not closed on its line"
            ),
            ("truncated table", Array("[[quiet]]\nfrom = \"22:00\"\nto = ".utf8), "talking-clock: \(path): line 3"),
            (
                "binary", [0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x01, 0x00, 0xFF, 0xFE, 0x0A, 0x00],
                "talking-clock: \(path): line 1: the file is not UTF-8 text (it may be damaged or not a config file)"
            ),
            ("text garbage", Array("Lorem ipsum dolor sit amet\n".utf8), "talking-clock: \(path): line 1"),
        ]
        for c in cases {
            try FileManager.default.createDirectory(
                at: configFile.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(c.bytes).write(to: configFile)
            let r = try BinaryRunner.run(common, environment: env, timeout: 20)
            XCTAssertEqual(r.status, ExitStatus.badInput.rawValue, "\(c.why): \(r.stderr)")
            XCTAssertTrue(r.stderr.hasPrefix(c.message), "\(c.why): \(r.stderr)")
        }

        try writeConfig("device = \"null\"\nvolume = 70\n")
        let d = try start(device: nil, clock: [], extra: ["--driver", "external"])
        for c in cases {
            try Data(c.bytes).write(to: configFile)
            let reply = try d.request("reload")
            XCTAssertTrue(
                reply.hasPrefix("error usage: reload refused, the previous configuration and pack stay: "),
                "\(c.why): \(reply)")
            XCTAssertTrue(reply.contains(": line "), "\(c.why): \(reply)")
        }
        kill(d.pid, SIGHUP)
        XCTAssertTrue(d.waitForLog("<3>reload refused", count: cases.count + 1, timeout: 5), d.log)
        XCTAssertTrue(d.isRunning)
        let json = try d.request("status json")
        XCTAssertTrue(json.contains(#""device":"null""#), "the old configuration stays: \(json)")
    }

    /// A state file cut short while muted (here: the last 20 bytes lost) never unmutes the clock:
    /// the daemon starts muted, says why in the log and in `status`, keeps the damaged file for
    /// inspection, and `unmute` clears it all.
    func testTruncatedStateFileWithMuteStartsMutedAndSaysSo() throws {
        try writePack()
        let state = dir.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        let full =
            "{\n  \"last-spoken-boundary\" : 1782900000,\n  \"mute\" : {\n    \"state\" : \"muted-until\",\n    \"until\" : 1893456000\n  }\n}\n"
        try Data(full.utf8.dropLast(20)).write(to: state.appendingPathComponent("state.json"))
        let d = try start(device: "null", clock: [], extra: ["--driver", "external"])
        let status = try d.request("status")
        XCTAssertTrue(
            status.contains(
                "mute muted; warning: The state file \(state.path)/state.json was unreadable (it is not valid JSON; it may have been truncated), so talking-clock starts muted"
            ), status)
        XCTAssertTrue(d.log.contains("<4>state file unreadable"), d.log)
        let aside = try FileManager.default.contentsOfDirectory(atPath: state.path).filter {
            $0.hasPrefix("state.json.corrupt-")
        }
        XCTAssertEqual(aside.count, 1, "the damaged file is kept")
        XCTAssertEqual(try d.request("unmute"), "ok unmuted")
        XCTAssertFalse(try d.request("status").contains("warning"))
        let saved = try String(contentsOf: state.appendingPathComponent("state.json"), encoding: .utf8)
        XCTAssertTrue(
            saved.contains("\"last-spoken-boundary\" : 1782900000"), "the salvaged boundary is kept: \(saved)")
    }

    /// A config path that is a directory used to be read as an empty config (the defaults, not a
    /// word said); a named pipe hung start-up forever with no output. `run`, `say` and `schedule`
    /// refuse both at once with the path and the fix, at the default path and with --config; a
    /// `reload` refuses them and the daemon keeps answering.
    func testAConfigPathThatIsNotAFileIsRefusedAtOnceByEveryCommand() throws {
        try writePack()
        let pack = dir.appendingPathComponent("pack").path
        let env = ["XDG_CONFIG_HOME": dir.appendingPathComponent("cfg").path]
        let commands: [[String]] = [
            [
                "run", "--pack", pack, "--device", "null", "--driver", "external", "--state-dir",
                dir.appendingPathComponent("state").path, "--socket", dir.appendingPathComponent("x.sock").path,
            ],
            ["say", "--at", "10:15", "--dry-run", "--pack", pack],
            ["schedule", "--from", "2026-07-01T10:00:00Z", "--count", "1", "--tz", "UTC", "--pack", pack],
        ]
        let path = configFile.path
        let cases: [(kind: String, make: () throws -> Void, message: String)] = [
            (
                "directory", { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) },
                "talking-clock: The config file \(path) is a directory, not a file; move the directory away and write the config in a file of that name (see 'talking-clock config-example'), or point --config at a config file."
            ),
            (
                "named pipe", { XCTAssertEqual(mkfifo(path, 0o600), 0) },
                "talking-clock: The config file \(path) is a named pipe (FIFO), not a file, and reading it would wait for a writer forever; replace it with a regular file (see 'talking-clock config-example'), or point --config at a config file."
            ),
        ]
        try FileManager.default.createDirectory(
            at: configFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        for c in cases {
            try? FileManager.default.removeItem(atPath: path)
            try c.make()
            for command in commands {
                for extra in [[], ["--config", path]] {
                    let r = try BinaryRunner.run(command + extra, environment: env, timeout: 20)
                    let what = "\(c.kind), \((command + extra).prefix(1)) \(extra)"
                    XCTAssertFalse(r.timedOut, "\(what): hung")
                    XCTAssertEqual(r.status, ExitStatus.badInput.rawValue, "\(what): \(r.stderr)")
                    XCTAssertEqual(r.stderr, c.message + "\n", what)
                }
            }
        }

        try FileManager.default.removeItem(atPath: path)
        try writeConfig("device = \"null\"\n")
        let d = try start(device: nil, clock: [], extra: ["--driver", "external"])
        for c in cases {
            try? FileManager.default.removeItem(atPath: path)
            try c.make()
            let reply: String
            do { reply = try d.request("reload") } catch {
                let writer = open(path, O_WRONLY | O_NONBLOCK)  // frees a daemon stuck on the pipe
                if writer >= 0 { close(writer) }
                throw error
            }
            XCTAssertEqual(
                reply,
                "error usage: reload refused, the previous configuration and pack stay: "
                    + c.message.dropFirst("talking-clock: ".count), c.kind)
            XCTAssertTrue(try d.request("status").hasPrefix("ok driver external;"), c.kind)
        }
    }

    /// state.json that is a named pipe used to hang the daemon's start with no output. It starts,
    /// muted (a state it cannot read never unmutes the clock), says why with the path and the fix
    /// in its log and `status`, and `unmute` replaces the pipe with a state file.
    func testAStateFileThatIsANamedPipeStartsTheDaemonMutedWithTheFix() throws {
        try writePack()
        let state = dir.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        let file = state.appendingPathComponent("state.json").path
        XCTAssertEqual(mkfifo(file, 0o600), 0)
        let d = try start(device: "null", clock: [], extra: ["--driver", "external"])
        let status = try d.request("status")
        XCTAssertTrue(
            status.contains(
                "mute muted; warning: The state file \(file) is a named pipe (FIFO), not a file, so talking-clock starts muted: it cannot tell whether you had muted it. Run 'talking-clock unmute' (or 'mute'): it replaces it with a state file."
            ), status)
        XCTAssertTrue(d.log.contains("<4>state file unreadable"), d.log)
        XCTAssertEqual(try d.request("unmute"), "ok unmuted")
        var st = stat()
        XCTAssertEqual(lstat(file, &st), 0)
        XCTAssertEqual(st.st_mode & S_IFMT, S_IFREG, "a state file now")
        XCTAssertTrue(try String(contentsOfFile: file, encoding: .utf8).contains("\"unmuted\""))
    }

    /// Mounts a tmpfs of `size` at `path` (root with CAP_SYS_ADMIN), or skips saying why.
    func mountTmpfs(_ path: String, size: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard mount("tmpfs", path, "tmpfs", 0, "size=\(size),mode=0700") == 0 else {
            throw XCTSkip(
                "cannot mount a tmpfs at \(path) (\(String(cString: strerror(errno)))): needs root with CAP_SYS_ADMIN")
        }
        mounted.append(path)
    }

    func remount(_ path: String, readOnly: Bool) {
        let flags = UInt(MS_REMOUNT) | (readOnly ? UInt(MS_RDONLY) : 0)
        XCTAssertEqual(mount("tmpfs", path, "tmpfs", flags, nil), 0, String(cString: strerror(errno)))
    }

    /// The state directory on a read-only and then a full file system: mute changes are refused
    /// with the reason in the reply (and from the CLI), the previous state file stays byte for
    /// byte, an announcement still plays (its at-most-once record cannot be saved: logged), and
    /// the daemon keeps answering. Once space is back, saving works again.
    func testStateThatCannotBeWrittenIsAnErrorReplyAndThePreviousStateStays() throws {
        let env = try privatePulse()
        try writePack()
        let fs = dir.appendingPathComponent("statefs").path
        try mountTmpfs(fs, size: "256k")
        let stateDir = fs + "/talking-clock"
        let stateFile = stateDir + "/state.json"
        // 10:15 is 3 s after start (its wake-up 2 s after): enough to make the file system read-only first.
        let d = try start(
            device: "pulse", environment: env, stateDir: stateDir,
            clock: ["--fake-clock", CivilTime.utcString(Int(boundary(0)) - 900), "--clock-rate", "300"])
        XCTAssertEqual(try d.request("unmute"), "ok unmuted")
        let before = try Data(contentsOf: URL(fileURLWithPath: stateFile))

        remount(fs, readOnly: true)
        let readOnly = try d.request("mute for 30m")
        XCTAssertEqual(
            readOnly,
            "error state: mute state not changed: Could not save the talking-clock state to \(stateFile): creating a temporary "
                + "file in \(stateDir) failed: Read-only file system. The previous state is unchanged. The file system is "
                + "read-only; set XDG_STATE_HOME to a writable directory.")
        let cli = try BinaryRunner.run(["mute", "--socket", d.socket])
        XCTAssertEqual(cli.status, ExitStatus.cannotWrite.rawValue, "the README's code for a state that cannot be written")
        XCTAssertTrue(cli.stderr.hasPrefix("talking-clock: mute state not changed: Could not save"), cli.stderr)
        XCTAssertTrue(try d.request("status").contains("mute unmuted"), "the mute in effect is the one on disk")
        XCTAssertTrue(d.waitForLog("<6>spoke boundary=\(stamp(0))", timeout: 10), d.log)
        XCTAssertTrue(
            d.log.contains("<3>state not saved"), "the at-most-once record could not be saved, and says so: \(d.log)")
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: stateFile)), before)

        remount(fs, readOnly: false)
        let filler = fs + "/filler"
        FileManager.default.createFile(atPath: filler, contents: nil)
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: filler))
        let block = [UInt8](repeating: 0x55, count: 4096)
        while block.withUnsafeBytes({ Glibc.write(handle.fileDescriptor, $0.baseAddress, $0.count) }) > 0 {}
        XCTAssertEqual(errno, ENOSPC)
        try handle.close()
        let full = try d.request("mute")
        XCTAssertTrue(
            full.hasPrefix(
                "error state: mute state not changed: Could not save the talking-clock state to \(stateFile): writing \(stateDir)/.state.json.tmp-"
            ), full)
        XCTAssertTrue(
            full.hasSuffix(
                "failed: No space left on device. The previous state is unchanged. Free some disk space; talking-clock saves again at the next change."
            ), full)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: stateFile)), before)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: stateDir), ["state.json"],
            "no temporary file left behind")

        try FileManager.default.removeItem(atPath: filler)
        XCTAssertEqual(try d.request("mute"), "ok muted")
        XCTAssertTrue(try String(contentsOfFile: stateFile, encoding: .utf8).contains("\"state\" : \"muted\""))
        XCTAssertTrue(d.isRunning)
    }
}
