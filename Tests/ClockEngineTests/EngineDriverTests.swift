import ClockEngine
import Foundation
import Playback
import TalkingClockCore
import TestSupport
import XCTest

/// The daemon's shell logic in-process: the real `EngineDriver` and `ClockEngine` on the embedded
/// ports (a manual clock, a simulated device played period by period, a state store whose writes
/// can be slow or fail, scripted looks, reloads and speech). What the process tests used to check
/// by running the binary and waiting on real time, in milliseconds: replies and their order, the
/// status timer, reload ordering, a mute cutting what waits, courtesy ordering, a late wake, a slow
/// disk, a stop in the middle of a word.
final class EngineDriverTests: XCTestCase {
    let utc = Zone(identifier: "UTC")!
    /// 2026-07-01T10:14:55Z: 5 s before the 10:15 boundary.
    let t0 = 1_782_900_895.0
    var boundary: Double { 1_782_900_900 }

    final class Rig {
        let clock: ManualClock
        let ports: EmbeddedPorts
        let driver: EngineDriver
        var replies: [ControlReply] = []
        var outcomes: [Outcome] { ports.surface.outcomes }

        init(
            start: Double, config: Config = Config(), state: PersistentState = PersistentState(), zone: Zone,
            pack: PackFacts = .fixture(), configure: (EmbeddedPorts) -> Void = { _ in }
        ) {
            clock = ManualClock(start)
            let settings = EngineSettings(config: config, pack: pack)
            ports = EmbeddedPorts(clock: clock, zone: zone, settings: settings)
            configure(ports)
            driver = ports.start(
                ClockEngine(options: ClockEngine.Options(), settings: settings, state: state, stateWarning: nil, zone: zone))
            driver.send(.start)
        }

        /// A control request; its reply (now or later) is appended to `replies`.
        func send(_ request: ControlRequest) { ports.control(request) { [unowned self] in self.replies.append($0) } }

        func run(until t: Double) { ports.advance(to: t) }
    }

    // MARK: - A slow disk

    /// A state store whose every write takes 200 ms (an SD card under load, NFS): the boundary's
    /// first sample still lands on the boundary (the record is written beside it, not before it),
    /// and a mute asked for just before the wake-up, whose write is still running when the
    /// boundary's record is saved, is not lost: the file ends with both.
    func testASlowDiskDelaysNoBoundaryAndLosesNoMute() throws {
        let rig = Rig(start: t0, zone: utc) { $0.saveLatency = 0.2 }
        rig.run(until: boundary + 3)
        let spoke = try XCTUnwrap(rig.outcomes.first { $0.kind == .spoke }, "\(rig.outcomes)")
        XCTAssertEqual(try XCTUnwrap(spoke.onsetErrorMs), 0, accuracy: 1, "onset with a 200 ms disk")
        XCTAssertEqual(rig.ports.stored?.lastSpokenBoundary, Int(boundary), "the record is on disk")

        // Mute asked 0.1 s before the next wake-up (10:29:59): its write (200 ms) runs while the
        // engine, not yet muted, decides to speak and saves the boundary's record.
        let next = boundary + 900
        rig.run(until: next - 1.1)
        rig.send(.mute)
        XCTAssertTrue(rig.replies.isEmpty, "answered once it is on disk")
        rig.run(until: next + 3)
        XCTAssertEqual(rig.replies, [.ok("muted")])
        XCTAssertEqual(rig.ports.stored?.mute, .muted, "the file holds the mute: \(String(describing: rig.ports.stored))")
        XCTAssertEqual(rig.driver.engine.scheduler.state.mute, .muted)
        // The boundary that began before the mute landed was cut by it, and said so.
        let last = try XCTUnwrap(rig.outcomes.last)
        XCTAssertTrue(last.kind == .cut || last.kind == .skipped, "\(last)")
    }

    /// A store that cannot be written: the mute is refused (and not applied), the clock keeps
    /// time, and the file never holds the refused mute.
    func testAStoreThatCannotBeWrittenRefusesTheMuteAndKeepsTime() {
        let rig = Rig(start: t0, zone: utc) {
            $0.saveFailure = "Could not save the talking-clock state: Read-only file system"
        }
        rig.send(.muteFor(seconds: 1800))
        XCTAssertEqual(rig.replies, [.error("mute state not changed: Could not save the talking-clock state: Read-only file system", kind: .state)])
        rig.run(until: boundary + 3)
        XCTAssertEqual(rig.outcomes.map(\.kind), [.spoke], "not muted: the mute was refused")
        XCTAssertNil(rig.ports.stored)
    }

    // MARK: - Replies, timers, reloads

    /// Replies come back in the order the requests were answered: at once for a status, after the
    /// write for a mute, after the load for a reload, after the boundary for an announce.
    func testRepliesComeWhenTheirAnswerIsKnown() {
        let rig = Rig(start: t0, zone: utc) {
            $0.saveLatency = 0.05
            $0.reloadLatency = 0.5
        }
        rig.send(.announce(maxWait: 60))
        rig.send(.reload)
        rig.send(.mute)
        rig.send(.status)
        XCTAssertEqual(rig.replies.count, 1, "status at once")
        rig.run(until: t0 + 0.1)
        XCTAssertEqual(rig.replies.last, .ok("muted"))
        rig.run(until: t0 + 1)
        XCTAssertEqual(rig.replies.last, .ok("reloaded"))
        rig.send(.unmute)
        rig.run(until: boundary + 3)
        guard case .ok(let spoke)? = rig.replies.last else { return XCTFail("\(rig.replies)") }
        XCTAssertTrue(spoke?.hasPrefix("spoke 2026-07-01T10:15:00+00:00") == true, "\(rig.replies)")
    }

    /// A timed mute's end re-arms the status timer, so every surface shows the end at its instant.
    func testATimedMuteEndsOnEverySurfaceAtItsInstant() throws {
        let rig = Rig(start: t0, zone: utc)
        rig.send(.muteFor(seconds: 90))
        XCTAssertEqual(rig.ports.armed[.status], t0 + 90)
        let before = rig.ports.surface.statuses.count
        rig.run(until: t0 + 89)
        XCTAssertTrue(try XCTUnwrap(rig.ports.surface.statuses.last).muted)
        rig.run(until: t0 + 90)
        XCTAssertFalse(try XCTUnwrap(rig.ports.surface.statuses.last).muted, "unmuted at 90 s exactly")
        XCTAssertGreaterThan(rig.ports.surface.statuses.count, before)
        XCTAssertNil(rig.ports.armed[.status] ?? nil)
    }

    /// Reloads asked for while one runs are answered by one more, and a volume sent meanwhile
    /// survives it.
    func testReloadsWhileOneRunsAreFoldedIntoOneMoreAndKeepWhatWasSet() {
        let rig = Rig(start: t0 - 600, zone: utc) { $0.reloadLatency = 1 }
        rig.send(.reload)
        rig.send(.volume(33))
        rig.send(.reload)
        rig.send(.reload)
        rig.run(until: t0 - 598.5)
        XCTAssertEqual(rig.ports.reloads, 2, "one more for the two asked meanwhile")
        rig.run(until: t0 - 597)
        XCTAssertEqual(rig.replies.filter { $0 == .ok("reloaded") }.count, 3)
        XCTAssertEqual(rig.driver.engine.config.volume, 100, "the second reload read the file after the volume")
        XCTAssertEqual(rig.ports.adopted.count, 2)
    }

    // MARK: - What cuts an announcement

    /// A mute while the boundary's announcement waits for its first sample cuts it; the media
    /// ducked for it is given back.
    func testAMuteCutsWhatWaitsAndGivesMediaBack() {
        let rig = Rig(start: t0, zone: utc) {
            $0.findings = CourtesyFindings(playingStreams: [.init(index: 4, application: "mpv")])
        }
        rig.run(until: boundary - 0.5)
        XCTAssertNotNil(rig.ports.playing, "opened and waiting for its instant")
        XCTAssertEqual(rig.ports.media, [.begin(.duck(streams: [4], percent: 30))])
        rig.send(.mute)
        XCTAssertEqual(rig.outcomes.last?.result, "cut: muted")
        XCTAssertEqual(rig.ports.media.last, .end)
        XCTAssertNotNil(rig.ports.announcements.last?.cutAt)
        XCTAssertEqual(rig.ports.announcements.last?.session.timelineStart.map { _ in true } ?? false, false, "nothing of it was heard")
    }

    /// The courtesy look comes before the decision, the device opens after it, media is ducked once
    /// the announcement begins and given back once it ends.
    func testCourtesyHappensInItsOrder() throws {
        let rig = Rig(start: t0, zone: utc) {
            $0.findings = CourtesyFindings(playingStreams: [.init(index: 4, application: "mpv")])
            $0.lookLatency = 0.15
        }
        rig.run(until: boundary - 1 + 0.1)
        XCTAssertEqual(rig.ports.looks.map(\.boundary), [Int(boundary)])
        XCTAssertTrue(rig.ports.announcements.isEmpty, "nothing opened before the look answers")
        rig.run(until: boundary - 1 + 0.2)
        XCTAssertEqual(rig.ports.announcements.count, 1)
        XCTAssertEqual(rig.ports.media, [.begin(.duck(streams: [4], percent: 30))])
        rig.run(until: boundary + 3)
        XCTAssertEqual(rig.ports.media, [.begin(.duck(streams: [4], percent: 30)), .end])
        XCTAssertEqual(rig.outcomes.map(\.kind), [.spoke])
        XCTAssertEqual(try XCTUnwrap(rig.outcomes.first?.onsetErrorMs), 0, accuracy: 1)
    }

    /// Woken too late for the whole Westminster pre-roll: the first strikes are left out, with a
    /// log line, and the anchor still lands on the boundary.
    func testALateWakeLeavesOutStrikesAndKeepsTheAnchor() throws {
        var config = Config()
        config.chime = .westminster
        config.driver = .external
        let hour = 1_782_903_600.0  // 11:00
        var pack = PackFacts.fixture(clipFrames: 1000)
        pack.chimes[.westminster] = .rings(.westminster(quarterBells: ["chime", "chime", "chime", "chime"], hourBell: "chime", timing: ChimeTiming()))
        let rig = Rig(start: hour - 5, config: config, zone: utc, pack: pack)
        rig.send(.trigger)  // 5 s before a boundary whose quarters start long before it
        rig.run(until: hour + 60)  // eleven strokes, then the words
        let line = try XCTUnwrap(rig.ports.surface.lines.first { $0.message == "woke too late for the whole chime" })
        XCTAssertNotNil(line["strikes_left_out"])
        XCTAssertEqual(rig.outcomes.last?.kind, .spoke)
        XCTAssertEqual(try XCTUnwrap(rig.outcomes.last?.onsetErrorMs), 0, accuracy: 1)
    }

    /// SIGTERM in the middle of a word: the announcement fades out and its outcome is said (it was
    /// silently lost before), the waiting `announce` is answered, and the driver exits.
    func testAStopMidWordSaysWhatBecameOfTheBoundary() {
        let rig = Rig(start: t0, zone: utc)
        rig.send(.announce(maxWait: 60))
        rig.run(until: boundary + 0.05)
        XCTAssertNotNil(rig.ports.playing)
        rig.driver.send(.stop)
        XCTAssertEqual(rig.outcomes.last?.result, "cut: the daemon is stopping")
        XCTAssertEqual(rig.ports.announcements.last?.fading, true)
        XCTAssertEqual(rig.replies.last, .error("announcement of 2026-07-01T10:15:00+00:00 cut: the daemon is stopping", kind: .stale))
        XCTAssertEqual(rig.ports.exitStatus, .ok)
    }

    /// A device that cannot be opened fails the boundary with its sentence; the next boundary is
    /// armed and played once the device is back.
    func testAMissingDeviceFailsThatBoundaryOnly() {
        let rig = Rig(start: t0, zone: utc)
        let makeDevice = rig.ports.makeDevice
        rig.ports.makeDevice = { _ in nil }
        rig.run(until: boundary + 3)
        XCTAssertEqual(rig.outcomes.last?.result, "failed: the sound device \"simulated\" cannot be opened (scripted)")
        rig.ports.makeDevice = makeDevice
        rig.run(until: boundary + 903)
        XCTAssertEqual(rig.outcomes.last?.kind, .spoke)
    }

    /// `voice-output = "speech-dispatcher"` with a speech server that takes its time and then
    /// fails: the boundary's outcome waits for its answer and says so; `say` answers likewise.
    func testSpeechDispatcherAnswersDecideTheOutcome() {
        var config = Config()
        config.voiceOutput = .speechDispatcher
        let rig = Rig(start: t0, config: config, zone: utc) {
            $0.speechLatency = 5
            $0.speech = { _ in .failed("speech-dispatcher did not answer within 5 s; it is asked again next time") }
        }
        rig.run(until: boundary + 1)
        XCTAssertEqual(rig.ports.spokenTexts, ["ten fifteen AM"])
        XCTAssertTrue(rig.outcomes.isEmpty, "not 'spoke' before speech-dispatcher answered")
        rig.run(until: boundary + 6)
        XCTAssertEqual(rig.outcomes.map(\.kind), [.failed])
        XCTAssertTrue(rig.outcomes.first?.result.contains("speech-dispatcher did not answer") == true)
    }
}
