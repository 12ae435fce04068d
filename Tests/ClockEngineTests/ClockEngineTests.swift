import ClockEngine
import Foundation
import TalkingClockCore
import TestSupport
import XCTest

/// The engine as a value: events in, effects out, with times chosen here. Each test states a
/// decision the daemon makes, with no clock, thread or file involved.
final class ClockEngineTests: XCTestCase {
    let utc = Zone(identifier: "UTC")!
    /// 2026-07-01T10:05:00Z: ten minutes before a boundary.
    let t0 = 1_782_900_300.0

    func pack(name: String = "fixture", chimes: Set<ChimeStyle> = [.none, .hour]) -> PackFacts {
        .fixture(name: name, bells: chimes)
    }

    func engine(config: Config = Config(), driver: Driver? = nil, state: PersistentState = PersistentState()) -> ClockEngine {
        ClockEngine(
            options: ClockEngine.Options(driver: driver), settings: EngineSettings(config: config, pack: pack()), state: state,
            stateWarning: nil, zone: utc)
    }

    func replies(_ effects: [EngineEffect]) -> [(ReplyTo, ControlReply)] {
        effects.compactMap { if case .reply(let to, let r) = $0 { return (to, r) } else { return nil } }
    }
    func statuses(_ effects: [EngineEffect]) -> [StatusReport] {
        effects.compactMap { if case .status(let s, _) = $0 { return s } else { return nil } }
    }
    func outcomes(_ effects: [EngineEffect]) -> [Outcome] {
        effects.compactMap { if case .outcome(let o) = $0 { return o } else { return nil } }
    }
    func statusTimer(_ effects: [EngineEffect]) -> Double?? {
        for case .arm(.status, let at) in effects { return .some(at) }
        return nil
    }

    /// A `volume` and a `chime` sent while a reload runs were sent after it read the file: they
    /// survive it. One sent before the reload started is replaced by the file's, as documented.
    func testSettingsSentDuringAReloadSurviveIt() {
        var e = engine()
        _ = e.handle(.start, now: t0)
        _ = e.handle(.control(.volume(20), ReplyTo(1)), now: t0)
        let started = e.handle(.control(.reload, ReplyTo(2)), now: t0)
        XCTAssertTrue(started.contains { if case .startReload = $0 { return true } else { return false } })
        XCTAssertEqual(replies(started).count, 0, "the reload answers when it lands")
        XCTAssertEqual(replies(e.handle(.control(.volume(37), ReplyTo(3)), now: t0 + 0.1)).map(\.1).first?.isOK, true)
        _ = e.handle(.control(.chime(.none), ReplyTo(4)), now: t0 + 0.2)
        var file = Config()
        file.volume = 80
        file.chime = .hour
        let landed = e.handle(.reloaded(.success(EngineSettings(config: file, pack: pack())), zone: utc), now: t0 + 0.5)
        XCTAssertEqual(replies(landed).map(\.0), [ReplyTo(2)])
        XCTAssertEqual(e.config.volume, 37, "set during the reload: kept")
        XCTAssertEqual(e.config.chime, ChimeStyle.none, "set during the reload: kept")
        XCTAssertEqual(e.status(now: t0 + 0.5).volume, 37)
        // The next reload has nothing pending: the file's values stand.
        _ = e.handle(.control(.reload, ReplyTo(5)), now: t0 + 1)
        _ = e.handle(.reloaded(.success(EngineSettings(config: file, pack: pack())), zone: utc), now: t0 + 2)
        XCTAssertEqual(e.config.volume, 80)
        XCTAssertEqual(e.config.chime, .hour)
    }

    /// A chime set during a reload that the reloaded pack cannot ring is dropped with a warning,
    /// never adopted.
    func testAChimeTheNewPackCannotRingIsNotAdopted() {
        var e = ClockEngine(
            options: ClockEngine.Options(), settings: EngineSettings(config: Config(), pack: pack(chimes: [.none, .hour, .westminster])),
            state: PersistentState(), stateWarning: nil, zone: utc)
        _ = e.handle(.start, now: t0)
        _ = e.handle(.control(.reload, ReplyTo(1)), now: t0)
        XCTAssertEqual(replies(e.handle(.control(.chime(.westminster), ReplyTo(2)), now: t0)).first?.1.isOK, true)
        let landed = e.handle(
            .reloaded(.success(EngineSettings(config: Config(), pack: pack(chimes: [.hour]))), zone: utc), now: t0 + 1)
        XCTAssertEqual(e.config.chime, .hour)
        XCTAssertTrue(landed.contains { if case .log(let l) = $0 { return l.message == "chime set during reload dropped" } else { return false } })
    }

    /// Requests that arrive while a reload runs are answered by the next one, which starts when
    /// the first lands: two loads for any number of requests.
    func testReloadsRequestedDuringAReloadAreAnsweredByOneMore() {
        var e = engine()
        _ = e.handle(.start, now: t0)
        _ = e.handle(.control(.reload, ReplyTo(1)), now: t0)
        for id in 2...5 { XCTAssertTrue(replies(e.handle(.control(.reload, ReplyTo(id)), now: t0)).isEmpty) }
        let first = e.handle(.reloaded(.success(EngineSettings(config: Config(), pack: pack())), zone: utc), now: t0 + 1)
        XCTAssertEqual(replies(first).map(\.0), [ReplyTo(1)])
        XCTAssertTrue(first.contains { if case .startReload = $0 { return true } else { return false } })
        let second = e.handle(
            .reloaded(.failure(SettingsFailure("bad key", kind: .usage)), zone: utc), now: t0 + 2)
        XCTAssertEqual(replies(second).map(\.0), (2...5).map(ReplyTo.init))
        XCTAssertFalse(second.contains { if case .startReload = $0 { return true } else { return false } })
        guard case .error(let text, .usage) = replies(second).first?.1 else { return XCTFail("\(second)") }
        XCTAssertTrue(text.hasPrefix("reload refused, the previous configuration and pack stay"), text)
    }

    /// A timed mute arms the status timer at its end; when it fires, the status that says
    /// "unmuted" goes out at once (to MQTT and systemd), and the timer is disarmed.
    func testATimedMuteEndChangesTheStatusWhenItEnds() {
        var e = engine()
        _ = e.handle(.start, now: t0)
        let asked = e.handle(.control(.muteFor(seconds: 120), ReplyTo(1)), now: t0)
        guard case .save(let state, for: ReplyTo(1))? = asked.first(where: { if case .save = $0 { return true } else { return false } })
        else { return XCTFail("\(asked)") }
        XCTAssertEqual(state.mute, .mutedUntil(Int(t0) + 120))
        let saved = e.handle(.saved(ReplyTo(1), error: nil), now: t0)
        XCTAssertEqual(statuses(saved).last?.muted, true)
        XCTAssertEqual(statusTimer(saved), .some(t0 + 120))
        // Nothing changes by itself before then.
        XCTAssertTrue(statuses(e.handle(.timer(.status, clockWasSet: false, zone: utc), now: t0 + 60)).isEmpty)
        let ended = e.handle(.timer(.status, clockWasSet: false, zone: utc), now: t0 + 120)
        XCTAssertEqual(statuses(ended).last?.muted, false)
        XCTAssertEqual(statuses(ended).last?.mute, "unmuted")
        XCTAssertNil(statusTimer(ended), "the timer fired once; nothing to re-arm")
    }

    /// A mute that cannot be saved is refused and not applied: nothing the user set is lost to a
    /// restart without them knowing.
    func testAMuteThatCannotBeSavedIsRefused() {
        var e = engine()
        _ = e.handle(.start, now: t0)
        _ = e.handle(.control(.mute, ReplyTo(1)), now: t0)
        let failed = e.handle(.saved(ReplyTo(1), error: "disk full"), now: t0)
        XCTAssertEqual(replies(failed).map(\.1), [.error("mute state not changed: disk full", kind: .state)])
        XCTAssertEqual(e.status(now: t0).muted, false)
    }

    /// `announce N` on the timer driver, whose next boundary is always armed: a boundary further
    /// than N is refused at once (exit 3), not waited for.
    func testAnnounceHonoursItsWaitWhenTheBoundaryIsAlreadyArmed() {
        var e = engine(driver: .timer)
        _ = e.handle(.start, now: t0)
        XCTAssertEqual(e.armed, Int(t0) + 600)
        let r = replies(e.handle(.control(.announce(maxWait: 5), ReplyTo(1)), now: t0))
        guard case .error(let text, .stale) = r.first?.1 else { return XCTFail("\(r)") }
        XCTAssertTrue(text.contains("is 600 s away, more than --max-wait 5 s"), text)
        // Within the wait it is answered once the boundary has been spoken.
        XCTAssertTrue(replies(e.handle(.control(.announce(maxWait: 900), ReplyTo(2)), now: t0)).isEmpty)
        XCTAssertTrue(e.handle(.timer(.boundary, clockWasSet: false, zone: utc), now: t0 + 599).contains {
            if case .look(Int(t0) + 600, _) = $0 { return true } else { return false }
        })
        let woke = e.handle(.courtesy(boundary: Int(t0) + 600, .nothing), now: t0 + 599.05)
        guard case .play(let play)? = woke.first(where: { if case .play = $0 { return true } else { return false } }) else {
            return XCTFail("\(woke)")
        }
        _ = e.handle(.playback(id: play.id, .opened), now: t0 + 599)
        let done = e.handle(.playback(id: play.id, .finished(onsetErrorMs: 0.2)), now: t0 + 602)
        XCTAssertEqual(replies(done).map(\.0), [ReplyTo(2)])
        XCTAssertEqual(replies(done).first?.1, .ok("spoke 2026-07-01T10:15:00+00:00 \"ten fifteen AM\" (onset +0.200 ms)"))
    }

    /// The look's budget is real time, bounded by what is left before the first sample: a normal
    /// wake-up looks for 200 ms; a fast demo clock (60x: a real second is a clock minute) woken a
    /// clock second before the boundary has no time for one and decides at once, so a hung bus
    /// cannot make its first boundary stale.
    func testTheLookFitsInTheTimeLeft() {
        var e = engine()
        _ = e.handle(.start, now: t0)
        let woke = e.handle(.timer(.boundary, clockWasSet: false, zone: utc), now: t0 + 599)
        XCTAssertTrue(woke.contains { if case .look(_, 0.2) = $0 { return true } else { return false } }, "\(woke)")
        var fast = ClockEngine(
            options: ClockEngine.Options(rate: 60), settings: EngineSettings(config: Config(), pack: pack()),
            state: PersistentState(), stateWarning: nil, zone: utc)
        _ = fast.handle(.start, now: t0 + 598)
        let late = fast.handle(.timer(.boundary, clockWasSet: false, zone: utc), now: t0 + 599)
        XCTAssertFalse(late.contains { if case .look = $0 { return true } else { return false } }, "no time for a look")
        XCTAssertTrue(late.contains { if case .play = $0 { return true } else { return false } }, "decided at once: \(late)")
    }

    /// A flood of `announce` (clients that send it and leave) holds at most 256 replies; the rest
    /// are told to try again, and the ones held are all answered at the boundary.
    func testAnAnnounceFloodHoldsABoundedNumberOfReplies() {
        var e = engine(driver: .timer)
        _ = e.handle(.start, now: t0)
        var refused = 0
        for i in 0..<1000 {
            let r = replies(e.handle(.control(.announce(maxWait: 900), ReplyTo(i + 1)), now: t0))
            if case .error(_, .busy)? = r.first?.1 { refused += 1 }
        }
        XCTAssertEqual(refused, 1000 - 256)
        _ = e.handle(.timer(.boundary, clockWasSet: false, zone: utc), now: t0 + 599)
        let woke = e.handle(.courtesy(boundary: Int(t0) + 600, .nothing), now: t0 + 599.05)
        guard case .play(let play)? = woke.first(where: { if case .play = $0 { return true } else { return false } }) else {
            return XCTFail("\(woke)")
        }
        _ = e.handle(.playback(id: play.id, .opened), now: t0 + 599.1)
        let done = e.handle(.playback(id: play.id, .finished(onsetErrorMs: 0)), now: t0 + 602)
        XCTAssertEqual(replies(done).count, 256)
    }

    /// One outcome, every surface: the event, the state's `last`, the log line and the waiter's
    /// reply say the same thing; after a `say`, the state's `last` still has `onset_error_ms`.
    func testOneOutcomeRenderedTheSameOnEverySurface() {
        var e = engine()
        _ = e.handle(.start, now: t0)
        let said = e.handle(.control(.say, ReplyTo(1)), now: t0)
        guard case .play(let play)? = said.first(where: { if case .play = $0 { return true } else { return false } }) else {
            return XCTFail("\(said)")
        }
        XCTAssertNil(play.anchor, "say: at once")
        let opened = e.handle(.playback(id: play.id, .opened), now: t0)
        XCTAssertEqual(replies(opened).map(\.1), [.ok("speaking ten oh five AM")])
        XCTAssertFalse(opened.contains { if case .save = $0 { return true } else { return false } }, "a say is no boundary")
        let done = e.handle(.playback(id: play.id, .finished(onsetErrorMs: nil)), now: t0 + 1)
        let o = try! XCTUnwrap(outcomes(done).first)
        XCTAssertEqual(o.event.event, .spoke)
        XCTAssertEqual(o.last.result, "spoke")
        let json = e.status(now: t0 + 1).json
        XCTAssertTrue(json.contains("\"last\":{\"boundary\":null,\"onset_error_ms\":null,\"result\":\"spoke\""), json)
        XCTAssertEqual(ClockEngine.line(e.status(now: t0 + 1)).contains("last spoke"), true)
    }

    /// A demo's clock is said in `status` (line and JSON), so a demo is never taken for the real
    /// clock; the real clock says "real" in the JSON and nothing in the line.
    func testStatusSaysADemoClock() {
        var demo = ClockEngine(
            options: ClockEngine.Options(rate: 20, clock: "simulated from 1782900000 at 20x"),
            settings: EngineSettings(config: Config(), pack: pack()), state: PersistentState(), stateWarning: nil, zone: utc)
        _ = demo.handle(.start, now: t0)
        XCTAssertTrue(ClockEngine.line(demo.status(now: t0)).hasSuffix("; clock simulated from 1782900000 at 20x (a demo: not the real time)"))
        XCTAssertTrue(demo.status(now: t0).json.contains(#""clock":"simulated from 1782900000 at 20x""#))
        var real = engine()
        _ = real.handle(.start, now: t0)
        XCTAssertFalse(ClockEngine.line(real.status(now: t0)).contains("clock"))
        XCTAssertTrue(real.status(now: t0).json.contains(#""clock":"real""#))
    }

    /// A `say` playing when a boundary's wake-up comes is cut for it (the boundary always wins);
    /// the hand-written mirror the simulated year used to run skipped the boundary as busy instead.
    func testTheBoundaryCutsASayThatOverlapsIt() {
        var e = engine()
        _ = e.handle(.start, now: t0)
        let said = e.handle(.control(.say, ReplyTo(1)), now: t0 + 598)
        guard case .play(let say)? = said.first(where: { if case .play = $0 { return true } else { return false } }) else {
            return XCTFail("\(said)")
        }
        _ = e.handle(.playback(id: say.id, .opened), now: t0 + 598)
        _ = e.handle(.timer(.boundary, clockWasSet: false, zone: utc), now: t0 + 599)
        let woke = e.handle(.courtesy(boundary: Int(t0) + 600, .nothing), now: t0 + 599.1)
        XCTAssertTrue(woke.contains { if case .cut(say.id) = $0 { return true } else { return false } })
        XCTAssertEqual(outcomes(woke).map(\.kind), [.cut])
        XCTAssertEqual(outcomes(woke).first?.reason?.text, "the boundary 2026-07-01T10:15:00+00:00 is due")
        XCTAssertTrue(woke.contains { if case .play(let p) = $0 { return p.boundary == Int(t0) + 600 } else { return false } })
    }

    /// Every command in the table parses (its syntax with sample arguments), appears in `help`,
    /// and the Home Assistant column names only entities discovery publishes.
    func testTheCommandTableDrivesParserAndHelp() {
        let samples = [
            "<unix-seconds>": "1767225600.000", "<duration>": "30m", "<HH:MM>": "07:00", "<max-wait seconds>": "60",
            "<style>": "hour", "<0-100>": "40", "<text>": "Dinner is ready",
        ]
        for command in ControlCommand.all {
            var line = command.syntax
            for (placeholder, value) in samples { line = line.replacingOccurrences(of: placeholder, with: value) }
            XCTAssertNoThrow(try ControlRequest.parse(line: Array(line.utf8)).get(), line)
            XCTAssertTrue(ControlRequest.helpText.contains(command.syntax), command.syntax)
            if let entity = command.homeAssistant?.platform {
                XCTAssertTrue(["switch", "button", "select", "number", "notify"].contains(entity), entity)
            }
        }
        XCTAssertEqual(ControlRequest.commands.count, ControlCommand.all.count)
        // Home Assistant's controls are the table's rows: every control discovery publishes sends a
        // request of its row, and every row with a control has one in discovery.
        let payload = HomeAssistantDiscovery.payload(
            config: MQTTConfig(host: "localhost"), room: "kitchen", version: "test", reminders: true, speak: true)
        for command in ControlCommand.all {
            switch command.homeAssistant {
            case .button(let key, _, _)?: XCTAssertEqual(payload.cmps[key]?.pl_prs, command.syntax)
            case .switchOn(let key, _, _, _)?: XCTAssertEqual(payload.cmps[key]?.pl_on, command.syntax)
            case .switchOff(let key)?: XCTAssertEqual(payload.cmps[key]?.pl_off, command.syntax)
            case .number(let key, _, _, _, _, _)?, .select(let key, _, _, _, _)?:
                XCTAssertEqual(payload.cmps[key]?.p, command.homeAssistant?.platform)
            case .notify(let key, _, _, let template, let everyRoom)?:
                // Home Assistant renders the template with the message as `value`: the row's request.
                XCTAssertEqual(payload.cmps[key]?.p, "notify")
                XCTAssertEqual(payload.cmps[key]?.cmd_tpl, template)
                XCTAssertEqual(payload.cmps[key]?.cmd_t, everyRoom ? "talking-clock/all/command" : "talking-clock/kitchen/command")
                XCTAssertTrue(template.hasPrefix(command.word + " "), template)
            case nil: break
            }
        }
    }

    /// docs/control-socket.md shows exactly the command table, row for row.
    func testTheDocumentedCommandTableIsTheTable() throws {
        let doc = try String(
            contentsOf: BinaryRunner.packageRoot.appendingPathComponent("docs/control-socket.md"), encoding: .utf8)
        // The rows of the table that follows its header ("| request | what it does | Home Assistant |").
        let lines = doc.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let header = try XCTUnwrap(lines.firstIndex(of: "| request | what it does | Home Assistant |"))
        let rows = Array(lines[(header + 2)...].prefix { $0.hasPrefix("|") })
        let expected = ControlCommand.all.map { "| `\($0.syntax)` | \($0.help) | \($0.homeAssistant?.platform ?? "—") |" }
        XCTAssertEqual(rows, expected)
    }

    // MARK: Courtesy

    /// Wakes for the 10:15 boundary and answers the look with `findings`; returns the effects.
    func wakeAndLook(_ e: inout ClockEngine, _ findings: CourtesyFindings) -> [EngineEffect] {
        _ = e.handle(.start, now: t0)
        let woke = e.handle(.timer(.boundary, clockWasSet: false, zone: utc), now: t0 + 599)
        XCTAssertTrue(woke.contains { if case .look = $0 { return true } else { return false } }, "one look, inside the lead")
        XCTAssertFalse(woke.contains { if case .play = $0 { return true } else { return false } }, "the decision waits for it")
        return e.handle(.courtesy(boundary: Int(t0) + 600, findings), now: t0 + 599.2)
    }

    /// A call (a `phone` stream) with `call = "skip"` (the default): the boundary is skipped with
    /// the reason, and `status` shows the decision.
    func testACallSkipsTheBoundaryWithItsReason() {
        var e = engine()
        let out = wakeAndLook(&e, CourtesyFindings(call: .init(application: "Zoom", role: "phone")))
        XCTAssertFalse(out.contains { if case .play = $0 { return true } else { return false } })
        XCTAssertEqual(outcomes(out).map(\.result), ["skipped: courtesy: call (Zoom, phone)"])
        XCTAssertEqual(e.status(now: t0 + 600).courtesy, "skip: call (Zoom, phone)")
        XCTAssertEqual(e.armed, Int(t0) + 1500, "the next boundary is armed")
    }

    /// Do-not-disturb with `do-not-disturb = "chime-only"`: at the top of the hour the chime
    /// rings without the voice; at a quarter (no chime) nothing sounds.
    func testDoNotDisturbChimeOnly() {
        var config = Config()
        config.courtesy.doNotDisturb = .chimeOnly
        var e = engine(config: config)
        let quarter = wakeAndLook(&e, CourtesyFindings(doNotDisturb: .gnomeShowBanners))
        XCTAssertEqual(outcomes(quarter).first?.kind, .skipped)
        XCTAssertTrue(outcomes(quarter).first?.reason?.text.contains("do-not-disturb") ?? false, "\(outcomes(quarter))")
        // 11:00: the hour chime rings, the voice does not.
        var hour = engine(config: config)
        _ = hour.handle(.start, now: t0 + 3000)
        _ = hour.handle(.timer(.boundary, clockWasSet: false, zone: utc), now: t0 + 3299)
        let out = hour.handle(.courtesy(boundary: Int(t0) + 3300, CourtesyFindings(doNotDisturb: .gnomeShowBanners)), now: t0 + 3299.1)
        guard case .play(let play)? = out.first(where: { if case .play = $0 { return true } else { return false } }) else {
            return XCTFail("\(out)")
        }
        XCTAssertTrue(play.planned.plan.voiceClips.isEmpty, "no voice")
        XCTAssertFalse(play.planned.plan.chime.isEmpty, "the chime")
    }

    /// Music playing with `media = "duck"`: once the announcement starts, the engine asks for those
    /// streams to be lowered to `duck-percent`, and for them back when it ends; with nothing found
    /// it asks for nothing.
    func testMediaPlayingIsDuckedAroundTheAnnouncement() {
        var config = Config()
        config.courtesy.duckPercent = 25
        var e = engine(config: config)
        let out = wakeAndLook(&e, CourtesyFindings(playingStreams: [.init(index: 7, application: "mpv")]))
        guard case .play(let play)? = out.first(where: { if case .play = $0 { return true } else { return false } }) else {
            return XCTFail("\(out)")
        }
        let opened = e.handle(.playback(id: play.id, .opened), now: t0 + 599.3)
        XCTAssertEqual(media(opened), [.begin(.duck(streams: [7], percent: 25))])
        XCTAssertEqual(media(e.handle(.playback(id: play.id, .finished(onsetErrorMs: 0)), now: t0 + 602)), [.end])
        var quiet = engine()
        let none = wakeAndLook(&quiet, .nothing)
        guard case .play(let plain)? = none.first(where: { if case .play = $0 { return true } else { return false } }) else {
            return XCTFail("\(none)")
        }
        XCTAssertEqual(media(quiet.handle(.playback(id: plain.id, .opened), now: t0 + 599.3)), [])
        XCTAssertEqual(quiet.status(now: t0 + 600).courtesy, "speak")
    }

    func media(_ effects: [EngineEffect]) -> [MediaChange] {
        effects.compactMap { if case .media(let m) = $0 { return m } else { return nil } }
    }

    /// `voice-output = "speech-dispatcher"`: the words go to the speech server at the boundary
    /// instant (the engine's own `.speech` timer); with no chime at a quarter, no sound is played by
    /// the clock itself, and the outcome is what speech-dispatcher answered.
    func testSpeechDispatcherGetsTheWordsAtTheBoundary() {
        var config = Config()
        config.voiceOutput = .speechDispatcher
        var e = engine(config: config)
        let out = wakeAndLook(&e, .nothing)
        XCTAssertFalse(out.contains { if case .play = $0 { return true } else { return false } })
        XCTAssertTrue(out.contains { if case .arm(.speech, t0 + 600) = $0 { return true } else { return false } }, "\(out)")
        XCTAssertEqual(outcomes(out), [], "nothing said yet")
        let due = e.handle(.timer(.speech, clockWasSet: false, zone: utc), now: t0 + 600)
        let spoken = due.compactMap { if case .speak(let id, let text) = $0 { return (id, text) } else { return nil } }
        XCTAssertEqual(spoken.map(\.1), ["ten fifteen AM"])
        let answered = e.handle(.spoken(id: spoken[0].0, .spoke), now: t0 + 600.05)
        XCTAssertEqual(outcomes(answered).map(\.result), ["spoke: speech-dispatcher"])
    }

    /// A speech-dispatcher that does not answer (the ports give up on it within their bound) is a
    /// failed announcement naming it, never `spoke`; the next boundary asks it again.
    func testASilentSpeechDispatcherIsAFailureNotSpoke() {
        var config = Config()
        config.voiceOutput = .speechDispatcher
        var e = engine(config: config)
        _ = wakeAndLook(&e, .nothing)
        let due = e.handle(.timer(.speech, clockWasSet: false, zone: utc), now: t0 + 600)
        guard case .speak(let id, _)? = due.first(where: { if case .speak = $0 { return true } else { return false } }) else {
            return XCTFail("\(due)")
        }
        let answered = e.handle(.spoken(id: id, .failed("speech-dispatcher did not answer within 5 s")), now: t0 + 605)
        XCTAssertEqual(
            outcomes(answered).map(\.result), ["failed: speech-dispatcher did not answer within 5 s"])
        XCTAssertEqual(e.status(now: t0 + 605).last?.result, "failed: speech-dispatcher did not answer within 5 s")
        XCTAssertEqual(outcomes(answered).first?.event.event, .failed)
        // The next quarter hands its words over again.
        _ = e.handle(.timer(.boundary, clockWasSet: false, zone: utc), now: t0 + 1499)
        _ = e.handle(.courtesy(boundary: Int(t0) + 1500, .nothing), now: t0 + 1499.1)
        let next = e.handle(.timer(.speech, clockWasSet: false, zone: utc), now: t0 + 1500)
        XCTAssertTrue(next.contains { if case .speak = $0 { return true } else { return false } })
    }

    /// A stream the server stopped taking (corked for a call) is a `cut` outcome.
    func testAStalledStreamIsCut() {
        var e = engine()
        let out = wakeAndLook(&e, .nothing)
        guard case .play(let play)? = out.first(where: { if case .play = $0 { return true } else { return false } }) else {
            return XCTFail("\(out)")
        }
        _ = e.handle(.playback(id: play.id, .opened), now: t0 + 599.3)
        let cut = e.handle(.playback(id: play.id, .stalled(reason: "the sound server stopped taking audio")), now: t0 + 602)
        XCTAssertEqual(outcomes(cut).map(\.kind), [.cut])
        XCTAssertEqual(outcomes(cut).first?.event.event, .cut)
    }
}

extension ControlReply {
    var isOK: Bool { if case .ok = self { return true } else { return false } }
}
