import ClockEngine
import Foundation
import Playback
import TalkingClockCore
import TestSupport
import XCTest

/// Intervals, reminders, away, the volume curve, the date, the value and `speak`, decided by the
/// engine and carried out by the real driver on the embedded ports (a manual clock, a simulated
/// device): milliseconds each.
final class RhythmDriverTests: XCTestCase {
    let utc = Zone(identifier: "UTC")!
    /// 2026-07-01T10:00:00Z, a Wednesday.
    let ten = 1_782_900_000.0

    final class Rig {
        let clock: ManualClock
        let ports: EmbeddedPorts
        let driver: EngineDriver
        var replies: [ControlReply] = []
        var outcomes: [Outcome] { ports.surface.outcomes }
        var spoke: [Outcome] { outcomes.filter { $0.kind == .spoke } }
        var lines: [LogLine] { ports.surface.lines }

        init(
            start: Double, config: Config, state: PersistentState = PersistentState(), zone: Zone, pack: PackFacts,
            options: ClockEngine.Options = ClockEngine.Options(), configure: (EmbeddedPorts) -> Void = { _ in }
        ) {
            clock = ManualClock(start)
            let settings = EngineSettings(config: config, pack: pack)
            ports = EmbeddedPorts(clock: clock, zone: zone, settings: settings)
            configure(ports)
            driver = ports.start(ClockEngine(options: options, settings: settings, state: state, stateWarning: nil, zone: zone))
            driver.send(.start)
        }

        func send(_ request: ControlRequest) { ports.control(request) { [unowned self] in self.replies.append($0) } }
        func run(until t: Double) { ports.advance(to: t) }
    }

    func config(_ toml: String) throws -> Config {
        try Config.parse(toml, source: "config.toml", zones: TestZones.lookup)
    }

    /// `interval = "5m"`: twelve announcements in an hour, each on its instant.
    func testFiveMinutesSpeaksEveryInstantOnTime() throws {
        let rig = Rig(start: ten - 5, config: try config("interval = \"5m\"\nchime = \"none\""), zone: utc, pack: .fixture())
        rig.run(until: ten + 3600 - 10)
        XCTAssertEqual(rig.spoke.map(\.at), (0..<12).map { CivilTime.local(Int(ten) + $0 * 300, in: utc).rfc3339 })
        XCTAssertEqual(rig.spoke[1].text, "ten oh five AM")
        for o in rig.spoke { XCTAssertEqual(try XCTUnwrap(o.onsetErrorMs), 0, accuracy: 1, o.at) }
        XCTAssertEqual(rig.ports.armed[.boundary], ten + 3600 - 1, "the next wake-up: 1 s before 11:00")
    }

    /// A reminder alone at a minute that is no boundary: its rendered words, on its instant, no
    /// chime, no time.
    func testAReminderAloneIsSaidAtItsInstant() throws {
        let rig = Rig(
            start: ten + 400,
            config: try config("[[reminder]]\nat = \"10:07\"\nsay = \"Stand-up meeting\""), zone: utc,
            pack: PackFacts.fixture().rendering(["Stand-up meeting"]))
        XCTAssertEqual(rig.ports.armed[.boundary], ten + 420 - 1, "10:07 is the next instant")
        rig.run(until: ten + 430)
        let spoke = try XCTUnwrap(rig.spoke.first)
        XCTAssertEqual(spoke.at, "2026-07-01T10:07:00+00:00")
        XCTAssertEqual(spoke.text, "Stand-up meeting")
        XCTAssertEqual(try XCTUnwrap(spoke.onsetErrorMs), 0, accuracy: 1)
        let request = try XCTUnwrap(rig.ports.announcements.last?.request)
        XCTAssertEqual(request.planned.plan.clips, [PackFacts.clipID(forText: "Stand-up meeting")], "its words only")
        XCTAssertEqual(request.planned.timeline.anchorFrame, 0)
        XCTAssertEqual(rig.ports.armed[.boundary], ten + 900 - 1, "then the 10:15 boundary")
    }

    /// A reminder and a boundary in the same minute are one announcement: the time, 150 ms, the
    /// reminder. An appended one at a minute that is no boundary says that minute's time first.
    func testAReminderWithABoundaryIsOneAnnouncement() throws {
        let rig = Rig(
            start: ten + 400,
            config: try config(
                """
                chime = "none"
                [[reminder]]
                at = "10:15"
                say = "Stand-up meeting"
                [[reminder]]
                at = "10:22"
                say = "Feed the cat"
                append = true
                """), zone: utc, pack: PackFacts.fixture().rendering(["Stand-up meeting", "Feed the cat"]))
        rig.run(until: ten + 1400)
        XCTAssertEqual(rig.spoke.map(\.text), ["ten fifteen AM. Stand-up meeting", "ten twenty-two AM. Feed the cat"])
        XCTAssertEqual(rig.outcomes.count, 2, "one announcement each: \(rig.outcomes)")
        let timeline = try XCTUnwrap(rig.ports.announcements.first?.request.planned.timeline)
        let voice = timeline.items.filter { $0.role == .voice }
        XCTAssertEqual(voice.map(\.clip), ["ten", "fifteen", "am", PackFacts.clipID(forText: "Stand-up meeting")])
        XCTAssertEqual(voice[3].start - voice[2].end, ClockEngine.reminderGapMs, "150 ms (1 kHz fixture) after the time")
    }

    /// An away range pauses reminders (the time is still said); `clock = "silent"` silences it too.
    /// The away switch pauses reminders and is kept in the state.
    func testAwayPausesReminders() throws {
        let reminder = "[[reminder]]\nat = \"10:15\"\nsay = \"Stand-up meeting\"\n"
        let pack = PackFacts.fixture().rendering(["Stand-up meeting"])
        let away = Rig(
            start: ten + 400, config: try config(reminder + "[[away]]\nfrom = \"2026-06-30\"\nto = \"2026-07-02\""), zone: utc,
            pack: pack)
        away.run(until: ten + 930)
        XCTAssertEqual(away.spoke.map(\.text), ["ten fifteen AM"])
        XCTAssertTrue(away.lines.contains { $0.message == "reminder left out" && $0["reason"] == "away" }, "\(away.lines)")
        XCTAssertEqual(away.ports.surface.statuses.last?.away, "2026-06-30 to 2026-07-02")

        let silent = Rig(
            start: ten + 400,
            config: try config(reminder + "[[away]]\nfrom = \"2026-07-01\"\nto = \"2026-07-01\"\nclock = \"silent\""), zone: utc,
            pack: pack)
        silent.run(until: ten + 930)
        XCTAssertEqual(silent.outcomes.map(\.result), ["skipped: away"])

        let switched = Rig(start: ten + 400, config: try config(reminder), zone: utc, pack: pack)
        switched.send(.away(true))
        XCTAssertEqual(switched.replies.last, .ok("away: reminders pause until 'away off' (the clock still speaks; mute silences it)"))
        XCTAssertEqual(switched.ports.surface.statuses.last?.awaySwitch, true)
        switched.run(until: ten + 930)
        XCTAssertEqual(switched.spoke.map(\.text), ["ten fifteen AM"])
        XCTAssertEqual(switched.ports.stored?.away, true, "kept across a restart")
        switched.send(.away(false))
        switched.run(until: ten + 86_400 + 930)
        XCTAssertEqual(switched.spoke.last?.text, "ten fifteen AM. Stand-up meeting", "said again the next day")
    }

    /// Mute, quiet hours and courtesy silence a reminder unless it speaks through them.
    func testRemindersSpeakThroughWhatTheySay() throws {
        let pack = PackFacts.fixture().rendering(["Pills", "Bins"])
        let rig = Rig(
            start: ten + 400,
            config: try config(
                """
                [[quiet]]
                from = "10:00"
                to = "11:00"
                [[reminder]]
                at = "10:15"
                say = "Pills"
                speaks-through = ["quiet"]
                [[reminder]]
                at = "10:30"
                say = "Bins"
                """), zone: utc, pack: pack)
        rig.run(until: ten + 1830)
        XCTAssertEqual(rig.outcomes.map(\.result), ["spoke", "skipped: quiet"])
        XCTAssertEqual(rig.spoke.map(\.text), ["Pills"], "the reminder, not the time it came with")

        let muted = Rig(
            start: ten + 400,
            config: try config("[[reminder]]\nat = \"10:07\"\nsay = \"Pills\"\nspeaks-through = [\"mute\"]\n[[reminder]]\nat = \"10:08\"\nsay = \"Bins\""),
            state: PersistentState(mute: .muted), zone: utc, pack: pack)
        muted.run(until: ten + 490)
        XCTAssertEqual(muted.outcomes.map(\.result), ["spoke", "skipped: muted"])
        XCTAssertEqual(muted.spoke.map(\.text), ["Pills"])

        let call = CourtesyFindings(call: CourtesyFindings.Call(application: "Zoom", role: "phone"))
        let courtesy = Rig(
            start: ten + 400,
            config: try config("[[reminder]]\nat = \"10:07\"\nsay = \"Pills\"\nspeaks-through = [\"courtesy\"]\n[[reminder]]\nat = \"10:08\"\nsay = \"Bins\""),
            zone: utc, pack: pack) { $0.findings = call }
        courtesy.run(until: ten + 490)
        XCTAssertEqual(courtesy.spoke.map(\.text), ["Pills"])
        XCTAssertEqual(courtesy.outcomes.last?.kind, .skipped)
    }

    /// `skip reminder` leaves out the next reminder only (the time with it is said), then reminders
    /// are said again; `unskip` takes it back.
    func testSkipReminder() throws {
        let rig = Rig(
            start: ten + 400,
            config: try config("chime = \"none\"\n[[reminder]]\nat = [\"10:15\", \"10:30\"]\nsay = \"Pills\""), zone: utc,
            pack: PackFacts.fixture().rendering(["Pills"]))
        rig.send(.skipReminder)
        XCTAssertEqual(rig.replies.last, .ok("the next reminder will be left out (2026-07-01T10:15:00+00:00 \"Pills\") ('unskip' takes it back)"))
        rig.run(until: ten + 1830)
        XCTAssertEqual(rig.spoke.map(\.text), ["ten fifteen AM", "ten thirty AM. Pills"])
        rig.send(.skipReminder)
        rig.send(.unskip)
        rig.run(until: ten + 86_400 + 930)
        XCTAssertEqual(rig.spoke.last?.text, "ten fifteen AM. Pills")
        let noReminders = Rig(start: ten, config: Config(), zone: utc, pack: .fixture())
        noReminders.send(.skipReminder)
        XCTAssertEqual(noReminders.replies, [.error("there are no reminders ([[reminder]] in the config)", kind: .usage)])
    }

    /// The volume curve sets each instant's gain; quiet hours' lower volume wins where quieter.
    func testVolumeCurveSetsTheGain() throws {
        let rig = Rig(
            start: ten - 5,
            config: try config(
                """
                volume-curve = [{ at = "10:00", volume = 80 }, { at = "11:00", volume = 40 }]
                [[quiet]]
                from = "10:30"
                to = "10:31"
                mode = "lower-volume"
                volume = 20
                """), zone: utc, pack: .fixture())
        rig.run(until: ten + 3000)
        XCTAssertEqual(rig.ports.announcements.map { Int(($0.request.gain * 100).rounded()) }, [80, 70, 20, 50])
        // The status of the last event (the 10:45 announcement): 80 → 40 over the hour.
        XCTAssertEqual(rig.ports.surface.statuses.last?.volumeNow, 50)
    }

    /// `date = "first"`: the first announcement said on each day carries the date; it is recorded,
    /// so a restart that day does not say it again.
    func testTheDateWithTheFirstAnnouncementOfTheDay() throws {
        let pack = PackFacts.fixture().withDatesAndValues()
        let config = try config("date = \"first\"\nchime = \"none\"\n[[quiet]]\nfrom = \"00:00\"\nto = \"10:00\"")
        let rig = Rig(start: ten - 5, config: config, zone: utc, pack: pack)
        rig.run(until: ten + 930)
        XCTAssertEqual(rig.spoke.map(\.text), ["ten AM. Wednesday, July first", "ten fifteen AM"])
        let timeline = try XCTUnwrap(rig.ports.announcements.first?.request.planned.timeline)
        let voice = timeline.items.filter { $0.role == .voice }
        XCTAssertEqual(voice[2].start - voice[1].end, AnnouncementPlan.phraseGapMs, "a sentence's pause before the date")
        XCTAssertEqual(rig.ports.stored?.dateSaid, "2026-07-01")
        let restarted = Rig(start: ten + 1000, config: config, state: try XCTUnwrap(rig.ports.stored), zone: utc, pack: pack)
        restarted.run(until: ten + 1830)
        XCTAssertEqual(restarted.spoke.map(\.text), ["ten thirty AM"])
        restarted.run(until: ten + 86_400 + 30)
        XCTAssertEqual(restarted.spoke.last?.text, "ten AM. Thursday, July second", "the next day's first")
    }

    /// `{value}` says the latest reading of the `[value]` topic, rounded, in its unit; a reading
    /// older than max-age is left out, with a log line.
    func testTheValueInAReminder() throws {
        let rig = Rig(
            start: ten + 400,
            config: try config(
                """
                [mqtt]
                broker = "mqtt://localhost"
                [value]
                topic = "sensor/outdoor"
                unit = "degrees"
                max-age = "10m"
                [[reminder]]
                at = ["10:07", "10:22"]
                say = "It is {value} outside"
                """), zone: utc, pack: PackFacts.fixture().withDatesAndValues().rendering(["It is", "outside"]))
        rig.driver.send(.value("21.6"))
        rig.driver.send(.value("unavailable"))
        XCTAssertTrue(rig.lines.contains { $0.message == "value refused" }, "\(rig.lines)")
        rig.run(until: ten + 430)
        XCTAssertEqual(rig.spoke.last?.text, "It is twenty-two degrees outside")
        rig.run(until: ten + 1330)
        XCTAssertEqual(rig.spoke.last?.text, "It is outside", "15 minutes old, more than max-age: left out")
        let left = try XCTUnwrap(rig.lines.last { $0.message == "value left out" })
        // Decided at the wake-up, a second before 10:22.
        XCTAssertEqual(left["reason"], "the last reading of sensor/outdoor is 919 s old, more than max-age 600 s")
    }

    /// `speak`: the words are rendered (off the loop), then said; `speak at T` lands on T; a failed
    /// render is the reply.
    func testSpeakRendersThenSays() throws {
        let rig = Rig(start: ten + 100, config: Config(), zone: utc, pack: .fixture()) { $0.renderLatency = 0.3 }
        rig.send(.speak(text: "Dinner is ready", at: nil))
        XCTAssertTrue(rig.replies.isEmpty, "answered once rendered and the device is open")
        rig.run(until: ten + 103)
        XCTAssertEqual(rig.ports.renderedTexts, ["Dinner is ready"])
        XCTAssertEqual(rig.replies, [.ok("speaking Dinner is ready")])
        XCTAssertEqual(rig.spoke.map(\.text), ["Dinner is ready"])

        rig.send(.speak(text: "Unison", at: ten + 110))
        rig.run(until: ten + 115)
        guard case .ok(let unison?)? = rig.replies.last else { return XCTFail("\(rig.replies)") }
        XCTAssertTrue(unison.hasPrefix("speaking \"Unison\" at 1782900110.000"), unison)
        XCTAssertEqual(try XCTUnwrap(rig.spoke.last?.onsetErrorMs), 0, accuracy: 1, "first sample on the instant")

        rig.ports.renderText = { _ in .failure(RenderFailure("espeak-ng is not installed (apt install espeak-ng)")) }
        rig.send(.speak(text: "Nope", at: nil))
        rig.run(until: ten + 116)
        XCTAssertEqual(rig.replies.last, .error("not spoken: espeak-ng is not installed (apt install espeak-ng)", kind: .pack))
    }

    /// With `driver = "external"`, boundaries wait for triggers, and reminders keep their own time.
    func testTheExternalDriverKeepsRemindersOnTime() throws {
        let rig = Rig(
            start: ten + 400, config: try config("driver = \"external\"\n[[reminder]]\nat = \"10:07\"\nsay = \"Pills\""), zone: utc,
            pack: PackFacts.fixture().rendering(["Pills"]))
        XCTAssertNil(rig.ports.armed[.boundary])
        XCTAssertEqual(rig.ports.armed[.reminder], ten + 420 - 1)
        rig.run(until: ten + 430)
        XCTAssertEqual(rig.spoke.map(\.text), ["Pills"])
        XCTAssertEqual(try XCTUnwrap(rig.spoke.first?.onsetErrorMs), 0, accuracy: 1)
        XCTAssertEqual(rig.ports.armed[.reminder], ten + 86_400 + 420 - 1, "tomorrow's")
    }

    /// `voice-output = "speech-dispatcher"`: a reminder's words are handed over at its instant.
    func testSpeechDispatcherTakesReminderWords() throws {
        let rig = Rig(
            start: ten + 400,
            config: try config("voice-output = \"speech-dispatcher\"\n[[reminder]]\nat = \"10:07\"\nsay = \"Pills at {time}\""),
            zone: utc, pack: .fixture())
        rig.run(until: ten + 419.9)
        XCTAssertTrue(rig.ports.spokenTexts.isEmpty)
        rig.run(until: ten + 421)
        XCTAssertEqual(rig.ports.spokenTexts, ["Pills at ten oh seven AM"])
        XCTAssertEqual(rig.outcomes.last?.result, "spoke: speech-dispatcher")
    }

    /// A reload refused (a bad reminder) keeps the running schedule: its reminders are still said.
    func testARefusedReloadKeepsTheReminders() throws {
        let rig = Rig(
            start: ten + 400, config: try config("[[reminder]]\nat = \"10:07\"\nsay = \"Pills\""), zone: utc,
            pack: PackFacts.fixture().rendering(["Pills"]))
        rig.ports.reload = {
            .failure(SettingsFailure("config.toml: line 2: 'at' in [[reminder]] must be a time of day such as \"22:00\"", kind: .usage))
        }
        rig.send(.reload)
        XCTAssertEqual(rig.replies.count, 1)
        guard case .error(let message, .usage) = rig.replies[0] else { return XCTFail("\(rig.replies)") }
        XCTAssertTrue(message.hasPrefix("reload refused, the previous configuration and pack stay"), message)
        rig.run(until: ten + 430)
        XCTAssertEqual(rig.spoke.map(\.text), ["Pills"])
    }

    /// `status` shows the next of each kind; `reminders` lists them.
    func testStatusAndRemindersShowTheNextOfEach() throws {
        let rig = Rig(
            start: ten + 400,
            config: try config("interval = \"hour\"\n[[reminder]]\nat = \"10:20\"\ndays = \"weekdays\"\nsay = \"Pills\""), zone: utc,
            pack: PackFacts.fixture().rendering(["Pills"]))
        rig.send(.status)
        guard case .ok(let line?) = rig.replies.last else { return XCTFail() }
        XCTAssertTrue(line.hasPrefix("driver timer; next 2026-07-01T10:20:00+00:00 \"Pills\"; next time 2026-07-01T11:00:00+00:00 \"eleven AM\"; mute unmuted"), line)
        let status = try XCTUnwrap(rig.ports.surface.statuses.last)
        XCTAssertEqual(status.nextReminder, StatusReport.Next(at: "2026-07-01T10:20:00+00:00", text: "Pills"))
        rig.send(.reminders)
        XCTAssertEqual(rig.replies.last, .ok("1 reminder; 1) 10:20 weekdays: Pills (next 2026-07-01T10:20:00+00:00)"))
        rig.send(.remindersJSON)
        guard case .ok(let json?) = rig.replies.last else { return XCTFail() }
        XCTAssertEqual(
            json,
            #"{"away":null,"reminders":[{"append":false,"at":["10:20"],"clip":null,"dates":null,"days":"weekdays","next":"2026-07-01T10:20:00+00:00","say":"Pills","speaks_through":[]}],"skip_pending":false}"#)
    }
}
