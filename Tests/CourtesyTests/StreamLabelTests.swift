import ConfigFiles
import ALSAOutput
import Outputs
import Foundation
import Playback
import SoundServer
import TalkingClockCore
import TestSupport
import XCTest

/// The clock's own stream on a real, private PulseAudio: labelled, with the configured role, and
/// cut (not hung) when the server corks it for a call (module-role-cork, as Debian loads it).
final class StreamLabelTests: XCTestCase {
    func testLabelVariablesKeepWhatTheUserSet() {
        XCTAssertEqual(
            StreamLabel.variables(role: nil, environment: [:]),
            [
                "PULSE_PROP_OVERRIDE": "application.name=talking-clock application.id=talking-clock",
                "PIPEWIRE_ALSA": "{ application.name=\"talking-clock\" application.id=\"talking-clock\" }",
                "PIPEWIRE_PROPS": "{ application.name=\"talking-clock\" application.id=\"talking-clock\" }",
            ])
        let mine = StreamLabel.variables(
            role: "event",
            environment: [
                "PULSE_PROP": "application.name='Kitchen clock' media.role=music", "PULSE_PROP_OVERRIDE": "application.id=mine",
                "PIPEWIRE_ALSA": "{ node.latency=1024/48000 }",
            ])
        XCTAssertEqual(
            mine, [
                "PULSE_PROP_OVERRIDE": "application.id=mine application.name='Kitchen clock' media.role=music",
                "PIPEWIRE_PROPS":
                    "{ application.name=\"talking-clock\" application.id=\"talking-clock\" media.role=\"event\" }",
            ], "the user's name and role stay; their PIPEWIRE_ALSA is left alone")
    }

    /// Runs `body` with the label applied and PULSE_SERVER pointing at `pulse`, then restores the
    /// process environment (other tests run in this process).
    private func withLabel(role: String?, pulse: AudioHarness.PrivatePulse, _ body: () throws -> Void) rethrows {
        let names = ["PULSE_PROP", "PULSE_PROP_OVERRIDE", "PIPEWIRE_ALSA", "PIPEWIRE_PROPS", "PULSE_SERVER", "PULSE_SINK"]
        let saved = names.map { name in getenv(name).map { String(cString: $0) } }
        defer {
            for (name, value) in zip(names, saved) {
                if let value { setenv(name, value, 1) } else { unsetenv(name) }
            }
        }
        for name in names { unsetenv(name) }
        setenv("PULSE_SERVER", pulse.environment["PULSE_SERVER"]!, 1)
        StreamLabel.apply(role: role, environment: [:])
        try body()
    }

    private func ownStream(_ server: String) throws -> SoundServer.Stream? {
        try SoundServer.streams(server: server, timeout: 2).first { $0.pid == UInt32(getpid()) && !$0.isRecording }
    }

    func testTheClocksStreamCarriesItsNameAndRole() throws {
        try XCTSkipUnless(AudioHarness.isAvailable, "needs scripts/install-deps --test")
        let pulse = try AudioHarness.PrivatePulse("label")
        defer { pulse.stop() }
        let server = pulse.environment["PULSE_SERVER"]!
        for role in [nil, "event"] {
            try withLabel(role: role, pulse: pulse) {
                let sink = try ALSASink(device: "pulse", format: StreamFormat(sampleRate: 48000, channels: 2))
                defer { sink.close() }
                let silence = [Int16](repeating: 0, count: 4800 * 2)
                _ = try silence.withUnsafeBufferPointer { buffer throws(SinkError) in try sink.write(buffer) }
                let stream = try XCTUnwrap(try ownStream(server))
                XCTAssertEqual(stream.application, "talking-clock")
                XCTAssertEqual(stream.applicationID, "talking-clock")
                XCTAssertEqual(stream.role, role ?? "", "a role only when configured")
            }
        }
    }

    /// Plays a 10 s announcement on the private server's "pulse" device on a thread of its own;
    /// returns once the server lists the stream playing.
    /// Starts a 10 s announcement on a player thread; `finished` is left when that thread returns
    /// (a group, so that both a test and its clean-up can wait for it). Close the sink only after.
    private func startAnnouncement(_ server: String) throws -> (Job, DispatchGroup, Results) {
        let format = StreamFormat(sampleRate: 48000, channels: 2)
        let item = TimelineItem(clip: "long", start: 0, frames: 480_000, role: .voice)
        let timeline = Timeline(items: [item], anchorFrame: 0, format: format)
        let pcm = (0..<(480_000 * 2)).map { Int16(truncatingIfNeeded: ($0 / 2 % 100) * 100) }
        let sink = try ALSASink(device: "pulse", format: format)
        let finished = DispatchGroup()
        finished.enter()
        let results = Results()
        let session = PlaybackSession(sink: sink, timeline: timeline, pcm: pcm, clock: WallClock.now) { _, result in
            results.set(result, at: WallClock.now())
        }
        // Handed to the player thread; this thread only waits for it.
        let job = Job(session: session, sink: sink)
        Thread {
            PlaybackRunner.run(job.session, sink: job.sink)
            finished.leave()
        }.start()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, (try ownStream(server)).map({ $0.corked }) != false { usleep(10_000) }
        XCTAssertEqual(try ownStream(server)?.corked, false, "playing")
        return (job, finished, results)
    }

    /// The server stops consuming the clock's stream (here: its sink is suspended, as a server
    /// does when the device goes away or a policy deactivates the link, like WirePlumber's
    /// "cork"): the announcement is cut within the 2 s stall limit with `.stalled`, not hung.
    func testAStreamTheServerStopsConsumingIsCutWithinTwoSeconds() throws {
        try XCTSkipUnless(AudioHarness.isAvailable, "needs scripts/install-deps --test")
        let pulse = try AudioHarness.PrivatePulse("stall")
        defer { pulse.stop() }
        let server = pulse.environment["PULSE_SERVER"]!
        try withLabel(role: nil, pulse: pulse) {
            let (job, finished, results) = try startAnnouncement(server)
            defer {
                job.session.cancel()
                if finished.wait(timeout: .now() + 10) == .success { job.sink.close() }
            }
            usleep(300_000)
            let suspended = try CourtesyEdgeTests.run(
                "/usr/bin/pactl", ["--server=\(server)", "suspend-sink", "tc_null", "1"], environment: [:])
            XCTAssertEqual(suspended.status, 0, suspended.stderr)
            let stoppedAt = WallClock.now()
            XCTAssertEqual(finished.wait(timeout: .now() + 8), .success, "the announcement must be cut, not hang")
            let (result, at) = try XCTUnwrap(results.get())
            guard case .failed(let error) = result else { return XCTFail("\(result)") }
            XCTAssertEqual(error.kind, .stalled)
            let cutAfter = at - stoppedAt
            XCTAssertLessThan(cutAfter, 3.0, "cut \(cutAfter) s after the server stopped taking audio")
            XCTAssertGreaterThan(cutAfter, 1.5, "not before the stall limit (less what was buffered)")
        }
    }

    /// PulseAudio's module-role-cork (loaded by Debian's default.pa) does not stop the stream: it
    /// mutes a "music" stream while a "phone" stream plays and sends the client a cork request,
    /// which ALSA's pulse plugin ignores. The clock labelled "music" goes silent for the call.
    func testModuleRoleCorkMutesTheClockDuringACall() throws {
        try XCTSkipUnless(AudioHarness.isAvailable, "needs scripts/install-deps --test")
        let pulse = try AudioHarness.PrivatePulse("cork")
        defer { pulse.stop() }
        let server = pulse.environment["PULSE_SERVER"]!
        let loaded = try CourtesyEdgeTests.run("/usr/bin/pactl", ["--server=\(server)", "load-module", "module-role-cork"], environment: [:])
        XCTAssertEqual(loaded.status, 0, loaded.stderr)
        try withLabel(role: "music", pulse: pulse) {
            let (job, finished, _) = try startAnnouncement(server)
            defer {
                // The player thread writes to the sink until it sees the cancel: the sink is closed
                // only once it has returned (closing it under a write crashed the test process once,
                // in a clean-clone run on 2026-11-28: signal 11 on the player thread).
                job.session.cancel()
                let stopped = finished.wait(timeout: .now() + 10)
                XCTAssertEqual(stopped, .success, "the player stops when its session is cancelled")
                if stopped == .success { job.sink.close() }
            }
            XCTAssertEqual(try muted(server), false)
            let call = Process()
            call.executableURL = URL(fileURLWithPath: "/usr/bin/paplay")
            call.arguments = ["--raw", "--server=\(server)", "--property=media.role=phone", "/dev/zero"]
            try call.run()
            defer {
                call.terminate()
                call.waitUntilExit()
            }
            let deadline = Date().addingTimeInterval(5)
            while Date() < deadline, try muted(server) != true { usleep(10_000) }
            XCTAssertEqual(try muted(server), true, "muted while the call plays")
        }
    }

    /// The clock's sink input's "Mute:" as pactl (an independent client) shows it.
    private func muted(_ server: String) throws -> Bool? {
        let text = try CourtesyEdgeTests.run("/usr/bin/pactl", ["--server=\(server)", "list", "sink-inputs"], environment: [:]).stdout
        for block in text.components(separatedBy: "Sink Input #").dropFirst()
        where block.contains("application.process.id = \"\(getpid())\"") {
            return block.contains("Mute: yes")
        }
        return nil
    }

    final class Job: @unchecked Sendable {
        let session: PlaybackSession
        let sink: ALSASink
        init(session: PlaybackSession, sink: ALSASink) {
            self.session = session
            self.sink = sink
        }
    }

    final class Results: @unchecked Sendable {
        private let lock = NSLock()
        private var value: (ClipResult, Double)?
        func set(_ result: ClipResult, at time: Double) { lock.withLock { value = (result, time) } }
        func get() -> (ClipResult, Double)? { lock.withLock { value } }
    }
}
