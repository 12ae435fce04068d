import EventLoop
import ClockEngine
import Daemon
import Foundation
import Playback
import TalkingClockCore
import TestSupport
import XCTest

/// A year of instants in Europe/London on a manual clock: quarter-hour (or ten-minute) boundaries,
/// windows of 5, 10 and 2 minutes (one across London's DST nights, one across midnight), daily,
/// weekday and dated reminders (one alone, one appended, one said through quiet hours, one at a
/// time the spring-forward night skips), away ranges and a volume curve (`SimulatedRhythm`), with
/// seeded suspends, clock steps both ways, zone changes, mutes, quiet hours and daemon restarts,
/// many of them placed within seconds of an instant. An oracle that knows only the world (the wall
/// clock, the zone, the user's commands) and Foundation's calendar checks what was spoken: no
/// instant missed unless excused, none doubled, none spoken stale, with the wrong words or at the
/// wrong volume, none spoken while muted, quiet or away, and memory flat.
///
/// CI runs one month (from March 15: London's spring-forward night is in it) for each of ten seeds;
/// `scripts/simulate-year` runs 365 days (`TALKING_CLOCK_SIM_DAYS`, `TALKING_CLOCK_SIM_SEED` — one
/// seed or several, comma-separated; `TALKING_CLOCK_SIM_TRACE=<epoch>` prints what happens within
/// two hours of that instant). Says (often near a boundary) and reloads (with a setting sent while
/// they run) are among the perturbations.
///
/// The decisions are the real daemon's: `SimulatedDaemon` holds the same `ClockEngine` value that
/// `ClockDaemon` executes, and only carries out its effects on the simulated machine (a timer
/// instant, a counting sink, a real `StateStore`). There is no copy of the daemon's logic here.
final class SimulatedYearTests: XCTestCase {
    func testBoundariesOnAManualClockWithSuspendsStepsZoneChangesMutesAndRestarts() throws {
        let environment = ProcessInfo.processInfo.environment
        let days = Int(environment["TALKING_CLOCK_SIM_DAYS"] ?? "") ?? 31
        // Ten seeds by default: each a different month of suspends, steps, says and reloads.
        let seeds =
            environment["TALKING_CLOCK_SIM_SEED"].map { $0.split(separator: ",").compactMap { UInt64($0) } }
            ?? Array(2026...2035)
        var total = Counts()
        for seed in seeds {
            let sim = try runSimulation(days: days, seed: seed)
            for (key, value) in sim.count.values { total.add(key, value) }
        }
        // The perturbations must reach the interesting paths, or the runs prove little.
        for key in [
            "spoken on time", "spoken late", "due late", "silent: muted", "silent: quiet", "excused: stale",
            "excused: replayed", "suspends", "steps forward", "steps back", "zone changes", "restarts",
            "events near a boundary", "spoken in another zone", "cut: stale", "spoken within 2 h of a DST change",
            "calm DST nights", "says", "says near a boundary", "says cut by a boundary", "reloads",
            "settings kept across a reload", "reminders spoken", "reminders alone", "reminders with the time",
            "reminders through quiet hours", "silent: away", "reminders left out: away", "instants in windows",
            "spoken at a ten-minute base", "window instants within 2 h of a DST change", "volumes checked",
            "volumes below 100 %",
        ] where days >= 28 {
            XCTAssertGreaterThan(total[key], 0, "never exercised in \(seeds.count) seeds: \(key)")
        }
    }

    /// One seeded run; fails the test for every violation, a boundary never judged, or memory growth.
    private func runSimulation(days: Int, seed: UInt64) throws -> YearSimulation {
        let environment = ProcessInfo.processInfo.environment
        let dir = URL(
            fileURLWithPath: FileManager.default.isWritableFile(atPath: "/dev/shm")
                ? "/dev/shm" : NSTemporaryDirectory()
        )
        .appendingPathComponent("talking-clock-year-\(getpid())-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let sim = YearSimulation(days: days, seed: seed, stateDirectory: dir)
        let started = Date()
        sim.run()
        let report = sim.report(seconds: Date().timeIntervalSince(started))
        print(report)
        if let path = environment["TALKING_CLOCK_SIM_REPORT"] {
            let previous = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            try (previous + report).write(toFile: path, atomically: true, encoding: .utf8)
        }
        XCTAssertEqual(
            sim.violations, [], "seed \(seed): \(sim.violations.count) violations; first: \(sim.violations.prefix(5))")
        // Every quarter-hour of the span holds an instant in every zone (no interval is longer than
        // 15 minutes), and the oracle judged one in each.
        let missing = stride(from: Int(sim.start / 900) * 900 + 900, to: Int(sim.end) - 900, by: 900).filter { slot in
            !(0..<15).contains { sim.judged.contains(slot + $0 * 60) }
                && !sim.zoneChanges.contains { abs($0 - Double(slot)) < 1800 }
        }
        XCTAssertEqual(
            missing.count, 0,
            "seed \(seed): every quarter-hour of the span had an instant judged; not: \(missing.prefix(5).map(CivilTime.utcString))")
        XCTAssertGreaterThanOrEqual(sim.count["boundaries in span"], days * 96)
        XCTAssertLessThan(
            sim.memoryGrowthKB, 4_000, "seed \(seed): memory flat: RSS grew \(sim.memoryGrowthKB) kB after the first week")
        XCTAssertLessThan(
            sim.heapGrowthKB, 256,
            "seed \(seed): memory flat: malloc's bytes in use grew \(sim.heapGrowthKB) kB after the first week")
        return sim
    }
}

// MARK: - The world


/// Named counters.
struct Counts {
    private(set) var values: [String: Int] = [:]
    subscript(key: String) -> Int { values[key, default: 0] }
    mutating func add(_ key: String, _ n: Int = 1) { values[key, default: 0] += n }
}

/// What the simulated machine does to the daemon, and the oracle that judges it.
///
/// Time: `tau` is real (monotonic) time; the wall clock is `tau + offset`, and clock steps change
/// `offset`. While suspended, the wall clock runs on but the daemon does not, and neither does the
/// sound device.
final class YearSimulation {
    static let home = "Europe/London"
    static let zones = [
        "America/New_York", "Asia/Kolkata", "Asia/Kathmandu", "Australia/Lord_Howe", "Pacific/Chatham",
        "America/St_Johns", "UTC",
    ]
    let lead = 1.0
    let lateLimit = 5.0
    let tick = 0.05  // the sink's period: the daemon is pumped every 50 ms while it plays

    let days: Int
    let start: Double
    let end: Double
    /// What the daemon is configured with, and the oracle's own reading of it.
    let rhythm: SimulatedRhythm
    private var zoneInstants: [String: SimulatedRhythm.ZoneInstants] = [:]
    /// When the zone changed (wall clock): a quarter-hour around a change may have no instant of
    /// either zone in it (a window's ten minutes in one, quarters in the other).
    private(set) var zoneChanges: [Double] = []
    /// The daemon's volume as the oracle knows it (a `volume` command, a reload, a restart), and
    /// the one before (a decision may race a reload by a few milliseconds).
    private var volume = 100
    private var previousVolume = 100

    /// The instants of a zone over the span (computed once per zone).
    func instants(_ zone: String) -> SimulatedRhythm.ZoneInstants {
        if let known = zoneInstants[zone] { return known }
        let made = rhythm.instants(zone: zone, from: Int(start) - 86_400, to: Int(end) + 86_400)
        zoneInstants[zone] = made
        return made
    }
    private var rng: SeededGenerator
    private(set) var tau = 0.0
    private(set) var offset: Double
    var wall: Double { tau + offset }
    private(set) var zoneID = YearSimulation.home
    private var suspendedUntil: Double?
    private var downUntil: Double?
    private var nextEventTau = 0.0
    private var nextPumpTau: Double?
    private var lastPumpTau = 0.0
    private(set) var daemon: SimulatedDaemon!
    let stateDirectory: URL

    // The oracle's own view of the user's mute (from the commands it issued).
    private var userMute: MuteState = .unmuted
    private(set) var count = Counts()
    private(set) var violations: [String] = []
    private var maxDecided = Int.min
    private var maxWall: Double
    private var rssSamples: [Int] = []
    /// Daily samples of malloc's bytes in use (kB), beside RSS: a leak grows both, fragmentation only RSS.
    private var heapSamples: [Int] = []
    nonisolated(unsafe) private static var zoneCache: [String: TimeZone] = [:]

    nonisolated(unsafe) private static var rulesCache: [String: Zone] = [:]

    /// The zone the code under test is given (the tz database's rules, read once).
    static func rules(_ id: String) -> Zone {
        if let z = rulesCache[id] { return z }
        let z = Zone(identifier: id)!
        rulesCache[id] = z
        return z
    }

    static func zone(_ id: String) -> TimeZone {
        if let z = zoneCache[id] { return z }
        let z = TimeZone(identifier: id)!
        zoneCache[id] = z
        return z
    }

    /// One pass of the wall clock over a boundary and what the daemon must do about it.
    struct Pass {
        /// `maySpeak`: decided, then interrupted before its boundary (a clock step, a suspend); the
        /// daemon may still play it when the clock gets there, or cut it.
        enum Expect: Equatable {
            case speak, maySpeak
            case silent(String)
            case excused(String)
        }
        var boundary: Int
        var tau: Double
        /// The wall clock when the daemon decides (a late pass: after the boundary).
        var wallAtDecision: Double
        var expect: Expect
        var text: String
        var zone: String
        /// The volumes (percent) it may be said at: the curve's, below the volume in effect.
        var volumes: Set<Int> = [100]
        /// How many reminders it says, and whether with the time.
        var reminders = 0
        var withTime = true
        var inWindow = false
    }

    struct Spoken {
        var boundary: Int
        var text: String
        var onset: Double
        var tau: Double
        var zone: String
        /// Seconds of sound after the first frame.
        var soundAfter: Double
        /// Its gain (0…1).
        var gain: Float = 1
        /// When its last frame played (wall clock and real time), if it did.
        var lastClip: (wall: Double, tau: Double)? = nil
    }

    private var passes: [Int: [Pass]] = [:]
    private var spoken: [Int: [Spoken]] = [:]
    /// The boundary whose lead window the wall clock entered while the daemon ran, and what it
    /// must do about it judged at that moment (when the daemon decides); cleared by anything
    /// discontinuous.
    private var openWindow: Pass?
    /// A boundary whose pass was settled when the clock landed in its window.
    private var judgedWindow: Int?

    let seed: UInt64

    init(days: Int, seed: UInt64, stateDirectory: URL) {
        self.days = days
        self.seed = seed
        rng = SeededGenerator(seed: seed)
        // 2026-03-15T00:10:00Z: a month takes in London's spring-forward night (March 29), a year
        // both of its DST nights.
        start = 1_773_533_400
        end = start + Double(days) * 86_400
        judged = BoundaryBitmap(from: Int(start / 900) * 900 + 900, to: Int(end))
        rhythm = SimulatedRhythm(baseMinutes: seed % 2 == 0 ? 15 : 10, lateLimit: lateLimit)

        offset = start
        maxWall = start
        self.stateDirectory = stateDirectory
        daemon = makeDaemon()
        // Every zone's instants before the run: the memory measured is the daemon's, not the oracle's.
        for id in [Self.home] + Self.zones { _ = instants(id) }
    }

    /// `TALKING_CLOCK_SIM_TRACE=<epoch>`: print what happens within two hours of that wall time.
    private let traceAround = ProcessInfo.processInfo.environment["TALKING_CLOCK_SIM_TRACE"].flatMap(Double.init)
    func trace(_ text: @autoclosure () -> String) {
        guard let t = traceAround, abs(wall - t) < 7200 else { return }
        print(
            "trace tau \(String(format: "%.3f", tau)) wall \(CivilTime.utcString(Int(wall)))\(String(format: "%+.3f", wall - floor(wall))): \(text())"
        )
    }

    private func below(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
    private func uniform(_ a: Double, _ b: Double) -> Double {
        a + (b - a) * Double(rng.next() >> 11) / Double(1 << 53)
    }

    private func makeDaemon() -> SimulatedDaemon {
        let config = try! Config.parse(rhythm.toml, source: "simulated.toml")
        volume = 100  // a restart reads the file
        return SimulatedDaemon(config: config, store: StateStore(directory: stateDirectory), lead: lead, world: self)
    }

    // MARK: Running

    private(set) var rssAtStart = 0

    func run() {
        rssAtStart = DaemonProcessMemory.selfResidentKB()
        daemon.run()
        scheduleNextEvent()
        var nextSample = start + 86_400
        var nextResolve = start + 3600
        // A minute past the end, so the last boundary's announcement has played; only
        // boundaries before the end are judged.
        while wall < end + 60 {
            if let s = suspendedUntil {
                // Asleep: nothing happens until the machine resumes.
                advance(to: s)
                resume()
                continue
            }
            let running = downUntil == nil
            let timerTau = running ? daemon.wakeAt.map { tau + max(0, $0 - wall) } ?? .infinity : .infinity
            let pumpTau = running ? nextPumpTau ?? .infinity : .infinity
            let restartTau = downUntil ?? .infinity
            let reloadTau = running && daemon.reloadPending ? reloadDueTau : .infinity
            let next = min(timerTau, pumpTau, restartTau, reloadTau, max(tau, nextEventTau))
            advance(to: next)
            if reloadTau <= next {
                daemon.deliverReload()
                previousVolume = volume
                self.volume = volumeSetDuringReload ?? 100  // the file's, unless one was set during it
                if let volume = volumeSetDuringReload {
                    volumeSetDuringReload = nil
                    if daemon.engine.config.volume != volume {
                        violations.append("volume \(volume) set during a reload was lost: \(daemon.engine.config.volume)")
                    } else {
                        count.add("settings kept across a reload")
                    }
                }
            } else if timerTau <= next {
                daemon.boundaryTimerFired(clockWasSet: false)
            } else if pumpTau <= next {
                pump()
            } else if restartTau <= next {
                downUntil = nil
                count.add("restarts")
                daemon = makeDaemon()
                landed(restart: true)
                daemon.run()
            } else {
                perturb()
                scheduleNextEvent()
            }
            if maxWall >= nextResolve {
                nextResolve = maxWall + 3600
                resolve(upTo: maxWall - 86_400)
            }
            if wall >= nextSample {
                nextSample = wall + 86_400
                rssSamples.append(DaemonProcessMemory.selfResidentKB())
                heapSamples.append(DaemonProcessMemory.heapInUseKB())
            }
        }
        daemon.stop()
        resolve(upTo: end)
    }

    /// Which boundaries of the span the oracle judged (one never judged is a bug in the oracle).
    /// A bitmap sized for the span up front: a Set of a year's 35,040 boundaries grows by ~530 kB,
    /// which is what the memory figures used to show growing; they measure the daemon's code now.
    private(set) var judged: BoundaryBitmap

    /// Moves real time on to `t`; the wall clock follows, and the oracle watches it cross boundaries.
    private func advance(to t: Double) {
        guard t > tau else { return }
        let from = wall
        tau = t
        crossed(from: from, to: wall)
        maxWall = max(maxWall, wall)
    }

    /// The wall clock moved continuously from `a` to `b` (the machine awake, or asleep): the
    /// oracle notes boundaries whose lead window was entered, and those reached with their
    /// window crossed uninterrupted while the daemon ran: those are due on time.
    private func crossed(from a: Double, to b: Double) {
        let awake = suspendedUntil == nil
        let running = awake && downUntil == nil
        // Instants reached in (a, b].
        let zone = instants(zoneID)
        var boundary = zone.first(after: a)
        while Double(boundary) <= b {
            if let w = openWindow, w.boundary == boundary {
                trace("pass \(CivilTime.utcString(boundary)) \(w.expect) (window)")
                passes[boundary, default: []].append(w)
                openWindow = nil
            } else if judgedWindow == boundary {
                judgedWindow = nil
            } else if running && Double(boundary) - lead > a {
                passes[boundary, default: []].append(
                    makePass(boundary, decidedAt: tau - (b - (Double(boundary) - lead))))
                trace("pass \(CivilTime.utcString(boundary)) \(passes[boundary]!.last!.expect) (crossed)")
            } else if awake && !running {
                addPass(boundary, decidedAt: tau, forced: .excused("daemon down"))
            } else if running {
                violations.append("oracle lost track of \(CivilTime.utcString(boundary))")
            }
            // Asleep: the resume judges what was slept through.
            boundary = zone.first(after: Double(boundary))
        }
        // A window entered in (a, b] whose boundary is still ahead.
        let ahead = zone.first(after: b)
        if running && Double(ahead) - lead > a && Double(ahead) - lead <= b {
            openWindow = makePass(ahead, decidedAt: tau - (b - (Double(ahead) - lead)))
        }
    }

    /// Something discontinuous happened (suspend, step, stop): a window being crossed is broken.
    /// Something discontinuous happened (suspend, step, kill): a decision taken and not yet heard
    /// may now be played later (if the clock comes back to it) or cut as stale; either is right.
    private func interrupted() {
        if var w = openWindow, w.expect == .speak {
            w.expect = .maySpeak
            passes[w.boundary, default: []].append(w)
        }
        openWindow = nil
        judgedWindow = nil
        // Only decisions that can still be waiting for their first sound (a decision made long
        // ago and never heard is a miss, whatever happens now).
        for (boundary, list) in passes where Double(boundary) >= wall - lateLimit - 1 {
            for (i, p) in list.enumerated()
            where p.expect == .speak && p.tau >= tau - lead - lateLimit - 1
                && !(spoken[boundary] ?? []).contains(where: { $0.tau >= p.tau })
            {
                passes[boundary]![i].expect = .maySpeak
            }
        }
    }

    /// After a resume, a clock step or a restart at wall time `wall`: a boundary in the lead
    /// window is due on time; one that passed within the late limit is due late (not after a
    /// restart: a fresh daemon does not look back); the ones jumped over are stale.
    private func landed(restart: Bool, jumpedFrom: Double? = nil) {
        let w = wall
        let zone = instants(zoneID)
        let next = zone.first(after: w, orAt: true)
        if Double(next) - lead <= w, Double(next) > w {
            if restart, let stop = stopWall, stop >= Double(next) - lead - 0.001, stop <= Double(next) {
                // Killed after deciding this boundary: its record may say it was spoken.
                addPass(next, decidedAt: tau, forced: .excused("killed while announcing"))
                judgedWindow = next
            } else {
                openWindow = makePass(next, decidedAt: tau)
            }
        }
        let previous = zone.last(atOrBefore: w)
        if !restart && jumpedFrom == nil && w - Double(previous) <= lateLimit {
            // Stepped back to just after a boundary: due late, unless already decided before.
            count.add("due late")
            addPass(previous, decidedAt: tau)
        }
        guard let from = jumpedFrom, from < w else { return }
        var b = zone.first(after: from)
        while b <= previous {
            if b == previous && w - Double(b) <= lateLimit {
                count.add("due late")
                addPass(b, decidedAt: tau)
            } else {
                addPass(b, decidedAt: tau, forced: .excused("stale"))
            }
            b = zone.first(after: Double(b))
        }
    }

    private func addPass(_ boundary: Int, decidedAt decisionTau: Double, forced: Pass.Expect? = nil) {
        passes[boundary, default: []].append(makePass(boundary, decidedAt: decisionTau, forced: forced))
        trace("pass \(CivilTime.utcString(boundary)) \(passes[boundary]!.last!.expect)")
    }

    /// What the daemon must do about `boundary` if it decides now: each part (the time, each
    /// reminder) speaks or not by the oracle's reading of the config, and the words are theirs.
    private func makePass(_ boundary: Int, decidedAt decisionTau: Double, forced: Pass.Expect? = nil) -> Pass {
        let local = Self.localTime(boundary, zoneID)
        let instant = instants(zoneID).info[boundary] ?? SimulatedRhythm.Instant(boundary: false, reminders: [])
        let away = rhythm.away(boundary, zone: zoneID)
        let muted = userMute.isMuted(at: boundary)
        let quiet = (3..<6).contains(local.hour)
        let due = instant.reminders.map { rhythm.reminders[$0] }
        let hasTime = instant.boundary || due.contains(where: \.append)
        let timeSpeaks = hasTime && !muted && !quiet && !away.clock
        let said = due.filter { !away.reminders && !muted && (!quiet || $0.throughQuiet) }
        var words: [String] = []
        if timeSpeaks { words.append(Phrase.forTime(hour: local.hour, minute: local.minute).text) }
        words += said.map { $0.words(local.hour, local.minute) }
        var expect: Pass.Expect
        if let forced {
            expect = forced
        } else if boundary <= maxDecided {
            // The daemon remembers the last boundary it decided to speak and never goes back.
            expect = .excused("replayed")
        } else if !words.isEmpty {
            expect = .speak
        } else if muted {
            expect = .silent("muted")
        } else if away.clock || (away.reminders && !hasTime) {
            expect = .silent("away")
        } else {
            expect = .silent("quiet")
        }
        if expect == .speak { maxDecided = max(maxDecided, boundary) }
        if forced == nil, away.reminders, !due.isEmpty, expect != .excused("replayed") {
            count.add("reminders left out: away")
        }
        let percent = rhythm.curve(secondOfDay: local.hour * 3600 + local.minute * 60)
        return Pass(
            boundary: boundary, tau: decisionTau, wallAtDecision: wall - (tau - decisionTau), expect: expect,
            text: words.joined(separator: ". "),
            zone: zoneID, volumes: Set([min(percent, volume), min(percent, previousVolume)]), reminders: said.count,
            withTime: timeSpeaks, inWindow: instant.boundary && Self.inWindow(local, rhythm))
    }

    /// Whether a boundary lies in one of the rhythm's windows (for the counts).
    static func inWindow(_ local: (hour: Int, minute: Int), _ rhythm: SimulatedRhythm) -> Bool {
        let m = local.hour * 60 + local.minute
        return rhythm.windows.contains { $0.from < $0.to ? (m >= $0.from && m < $0.to) : (m >= $0.from || m < $0.to) }
    }

    /// The local hour and minute by Foundation's calendar, independent of the code under test.
    static func localTime(_ instant: Int, _ zone: String) -> (hour: Int, minute: Int) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = Self.zone(zone)
        let c = calendar.dateComponents([.hour, .minute, .second], from: Date(timeIntervalSince1970: Double(instant)))
        return (c.hour!, c.minute!)
    }

    // MARK: Playback

    /// The daemon started a session: pump it every tick from now on.
    func sessionStarted() {
        lastPumpTau = tau
        nextPumpTau = tau
    }

    func sessionEnded() { nextPumpTau = nil }

    private func pump() {
        playSink()
        nextPumpTau = tau + tick
        daemon.pumpPlayback()
    }

    /// The device plays the frames of the real time since it last played (nothing while the
    /// machine sleeps). The oracle notes exactly when the announcement's first and last frames
    /// played, by the wall clock, which runs continuously between two calls: every clock step,
    /// suspend and kill calls this first.
    private func playSink() {
        defer { lastPumpTau = tau }
        guard let sink = daemon.sink, tau > lastPumpTau else { return }
        let before = sink.writtenFrames - sink.queued
        sink.advance(frames: Int(((tau - lastPumpTau) * 1000).rounded()))
        let after = sink.writtenFrames - sink.queued
        guard var heard = daemon.heard else { return }
        func moment(_ frame: Int) -> (wall: Double, tau: Double) {
            let t = lastPumpTau + Double(frame - before) / 1000
            return (wall - (tau - t), t)
        }
        if heard.onsetReported == false, before <= heard.first, after > heard.first {
            let m = moment(heard.first)
            trace(
                "onset of \(CivilTime.utcString(heard.boundary)) \"\(heard.text)\" at \(m.wall - Double(heard.boundary))"
            )
            spoken[heard.boundary, default: []].append(
                Spoken(
                    boundary: heard.boundary, text: heard.text, onset: m.wall, tau: m.tau, zone: zoneID,
                    soundAfter: heard.soundAfter, gain: heard.gain))
            heard.onsetReported = true
        }
        if heard.onsetReported, before < heard.last, after >= heard.last, var list = spoken[heard.boundary],
            !list.isEmpty
        {
            list[list.count - 1].lastClip = moment(heard.last)
            spoken[heard.boundary] = list
        }
        daemon.heard = heard
    }

    func cutStale() { count.add("cut: stale") }
    func sayCutForBoundary() { count.add("says cut by a boundary") }

    // MARK: Perturbations

    private func scheduleNextEvent() {
        // About one event every 1.5 hours of real time; 40 % of them placed within seconds of a boundary.
        var t = tau + -log(max(1e-12, uniform(0, 1))) * 5400
        if below(10) < 4 {
            let target =
                Double(Int((wall + (t - tau)) / 900) * 900 + 900)
                + (below(2) == 0 ? uniform(-2.5, 0) : uniform(-2.5, 7))
            t = tau + max(0.01, target - wall)
            count.add("events near a boundary")
        }
        // A calm DST night: from two hours before each of London's transitions until two hours
        // after it, the clock is at home, unmuted and left alone, so the words across the
        // change are heard and judged (every other night is fair game).
        if let transition = Self.zone(Self.home).nextDaylightSavingTimeTransition(
            after: Date(timeIntervalSince1970: wall))
        {
            let calmStart = transition.timeIntervalSince1970 - 7200 + 300  // not on a boundary
            if calmStart > wall && calmStart < wall + (t - tau) {
                t = tau + (calmStart - wall)
                calmUntil = calmStart + 4 * 3600
                count.add("calm DST nights")
            }
        }
        nextEventTau = t
    }

    private var calmUntil: Double?

    /// Whether a user command at this wall time would fall in the seconds around a boundary where
    /// "muted at the boundary" depends on the exact instant the daemon decided.
    private func nearBoundary(_ w: Double, in other: String? = nil) -> Bool {
        let zone = instants(other ?? zoneID)
        let next = Double(zone.first(after: w, orAt: true))
        let previous = Double(zone.last(atOrBefore: w))
        return next - w < lead + 1 || w - previous < lateLimit + 1
    }

    private func perturb() {
        if let calm = calmUntil {
            guard wall >= calm || wall < calm - 4 * 3600 - 1 else {
                if zoneID != Self.home, nextPumpTau == nil, !nearBoundary(wall), !nearBoundary(wall, in: Self.home) {
                    zoneID = Self.home
                    zoneChanges.append(wall)
                    count.add("zone changes")
                    // The watch on /etc sees it (the instants of another zone are not this one's).
                    if downUntil == nil { daemon.systemZoneChanged() }
                }
                if userMute != .unmuted, !nearBoundary(wall), downUntil == nil {
                    userMute = .unmuted
                    _ = daemon.respond(to: .unmute)
                }
                return
            }
            if wall >= calm { calmUntil = nil }
        }
        let roll = below(100)
        trace("event \(roll)")
        switch roll {
        case 0..<25: suspend()
        case 25..<37: step(forward: true)
        case 37..<49: step(forward: false)
        case 49..<55:
            // A zone change while an announcement waits for its boundary does not change its
            // words (they were chosen at the decision): not something to judge here.
            // Nor one of the new zone's instants that passed within the late limit (it would be
            // spoken late, rightly: near an instant of either zone is no place for a change).
            let target = zoneID == Self.home ? Self.zones[below(Self.zones.count)] : Self.home
            guard !nearBoundary(wall), !nearBoundary(wall, in: target), nextPumpTau == nil else { return }
            count.add("zone changes")
            zoneID = target
            zoneChanges.append(wall)
            daemon.systemZoneChanged()
        case 55..<60:
            guard downUntil == nil else { return }
            playSink()
            interrupted()  // decided but not yet heard: its record says spoken, the new daemon leaves it out
            daemon.stop()
            volumeSetDuringReload = nil
            stopWall = wall
            downUntil = tau + uniform(0.1, 3)
        case 60..<68:
            // An on-demand `say`, often in the seconds around a boundary: the boundary always wins.
            guard downUntil == nil else { return }
            count.add("says")
            if nearBoundary(wall) { count.add("says near a boundary") }
            let reply = daemon.respond(to: .say)
            if case .error(let text, let kind) = reply, kind != .busy { violations.append("say refused: \(text)") }
        case 68..<74:
            // A reload (decoded off the loop: its result comes later), sometimes with a volume
            // set while it runs, which must survive it.
            guard downUntil == nil, !daemon.reloadPending else { return }
            count.add("reloads")
            _ = daemon.respond(to: .reload)
            reloadDueTau = tau + uniform(0.05, 3)
            if below(2) == 0 {
                let volume = 10 + below(90)
                if case .error(let text, _) = daemon.respond(to: .volume(volume)) { violations.append("volume refused: \(text)") }
                volumeSetDuringReload = volume
                previousVolume = self.volume
                self.volume = volume
            }
        default:
            guard !nearBoundary(wall), downUntil == nil else { return }
            command()
        }
    }

    private func suspend() {
        count.add("suspends")
        playSink()
        interrupted()
        var d: Double
        switch below(10) {
        case 0..<4: d = uniform(0.3, 12)  // around the late limit
        case 4..<9: d = uniform(60, 3600)
        default: d = uniform(3600, 10 * 3600)
        }
        d = landingNearABoundary(after: d)
        suspendStartWall = wall
        suspendedUntil = tau + d
        trace("suspend for \(d) s")
    }

    /// Half the time, stretches a jump of `d` seconds so that it lands within seconds of a
    /// boundary (just before it, or just after it, on either side of the late limit). A jump
    /// never skips a calm DST night: it lands before it instead.
    private func landingNearABoundary(after d: Double) -> Double {
        var d = d
        if below(2) == 0 {
            count.add("jumps landing near a boundary")
            let target = floor((wall + d) / 900) * 900 + uniform(-2, 2 * lateLimit)
            d = max(0.2, target - wall)
        }
        if let transition = Self.zone(Self.home).nextDaylightSavingTimeTransition(
            after: Date(timeIntervalSince1970: wall))
        {
            let calmStart = transition.timeIntervalSince1970 - 7200 + 300
            if wall < calmStart - 600, wall + d > calmStart - 600 {
                d = calmStart - 600 - wall + uniform(-2, 2 * lateLimit)
            }
        }
        return max(0.2, d)
    }

    private var suspendStartWall = 0.0
    private var reloadDueTau = 0.0
    private var volumeSetDuringReload: Int?
    private var stopWall: Double?

    private func resume() {
        trace("resume (slept from \(CivilTime.utcString(Int(suspendStartWall))))")
        suspendedUntil = nil
        lastPumpTau = tau  // the device did not play while suspended
        if nextPumpTau != nil { nextPumpTau = tau }
        landed(restart: false, jumpedFrom: suspendStartWall)
        // The absolute CLOCK_REALTIME timer then fires at once if its time passed during the sleep.
    }

    private func step(forward: Bool) {
        count.add(forward ? "steps forward" : "steps back")
        playSink()
        interrupted()
        var size: Double
        switch below(10) {
        case 0..<4: size = uniform(0.2, 12)
        case 4..<8: size = uniform(60, 3600)
        default: size = uniform(3600, forward ? 12 * 3600 : 6 * 3600)
        }
        if forward { size = landingNearABoundary(after: size) }
        let from = wall
        offset += forward ? size : -size
        trace("stepped \(forward ? "forward" : "back") \(size) s from \(CivilTime.utcString(Int(from)))")
        if from > wall {
            // Stepped back: nothing was jumped over; boundaries ahead will be passed again, and
            // one that passed within the late limit is due now.
            landed(restart: false)
        } else {
            landed(restart: false, jumpedFrom: from)
        }
        if downUntil == nil { daemon.boundaryTimerFired(clockWasSet: true) }  // TFD_TIMER_CANCEL_ON_SET
    }

    private func command() {
        count.add("commands")
        let request: ControlRequest
        switch below(100) {
        case 0..<45: request = .unmute
        case 45..<70: request = .muteFor(seconds: 600 + below(6 * 3600))
        case 70..<85: request = .muteUntil(hour: below(24), minute: below(4) * 15 + below(15))
        default: request = .mute
        }
        let now = Int(wall)
        switch request {
        case .mute: userMute = .muted
        case .unmute: userMute = .unmuted
        case .muteFor(let s): userMute = .mutedUntil(now + s)
        case .muteUntil(let h, let m):
            userMute = .mutedUntil(Self.nextLocal(hour: h, minute: m, after: now, zone: zoneID))
        default: break
        }
        let reply = daemon.respond(to: request)
        if case .error(let text, _) = reply { violations.append("command \(request) refused: \(text)") }
        if reply == nil { violations.append("command \(request) got no reply") }
    }

    /// The next instant after `now` whose local reading is HH:MM:00 (by Foundation's calendar;
    /// on a day where it is skipped, the end of the gap).
    static func nextLocal(hour: Int, minute: Int, after now: Int, zone: String) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = Self.zone(zone)
        let date = calendar.nextDate(
            after: Date(timeIntervalSince1970: Double(now)),
            matching: DateComponents(hour: hour, minute: minute, second: 0),
            matchingPolicy: .nextTime, repeatedTimePolicy: .first, direction: .forward)!
        return Int(date.timeIntervalSince1970)
    }

    // MARK: Judging

    /// Judges every boundary the wall clock has left behind for good (more than a day ago), so
    /// memory stays bounded however long the run.
    private func resolve(upTo limit: Double) {
        for boundary in passes.keys where Double(boundary) < limit {
            judge(boundary)
            passes.removeValue(forKey: boundary)
            spoken.removeValue(forKey: boundary)
        }
        for boundary in spoken.keys where Double(boundary) < limit {
            judge(boundary)
            spoken.removeValue(forKey: boundary)
        }
    }

    private func judge(_ boundary: Int) {
        let ps = passes[boundary] ?? []
        let ss = spoken[boundary] ?? []
        let name = CivilTime.utcString(boundary)
        if Double(boundary) >= start && Double(boundary) < end {
            count.add("boundaries in span")
            judged.insert(boundary)
        }
        if !ps.isEmpty { count.add("boundaries passed") }
        if ss.count > 1 { violations.append("doubled: \(name) spoken \(ss.count) times") }
        var satisfied = Set<Int>()
        for s in ss {
            // The decision this announcement comes from: the last one to speak it before it sounded.
            guard
                let index = ps.lastIndex(where: {
                    ($0.expect == .speak || $0.expect == .maySpeak) && $0.tau <= s.tau + 1e-6
                })
            else {
                switch ps.last(where: { $0.tau <= s.tau + 1e-6 })?.expect {
                case .silent(let why): violations.append("spoke while \(why): \(name) \"\(s.text)\"")
                case .excused("stale"): violations.append("spoke a stale boundary: \(name)")
                case .excused("replayed"): violations.append("spoke again after the clock went back: \(name)")
                case .excused(let why): count.add("spoken though excused (\(why))")
                default: violations.append("spoken without passing it: \(name) \"\(s.text)\"")
                }
                continue
            }
            let p = ps[index]
            satisfied.insert(index)
            // On the boundary, or within the late limit plus the device's 0.1 s buffer: by the wall
            // clock, or by the lateness the daemon saw when it decided plus the real time since
            // (a clock step between the decision and the first sound cannot be undone).
            let b = Double(boundary)
            let seenLate = p.wallAtDecision - b + (s.tau - p.tau)
            let wallLate = s.onset - b
            if (wallLate > lateLimit + 0.1 && seenLate > lateLimit + 0.1)
                || (wallLate < -0.01 && seenLate < -0.01 - lead)
            {
                violations.append(
                    "stale or early: \(name) onset \(wallLate) s by the wall clock, \(seenLate) s as seen")
            }
            // No sound after the announcement's due end plus the late limit (at least 1 s), the
            // same two ways.
            if let last = s.lastClip {
                let limit = s.soundAfter + max(lateLimit, 1) + 0.2
                if last.wall - b > limit
                    && p.wallAtDecision - b + (last.tau - p.tau) > limit + max(0, b - p.wallAtDecision)
                {
                    violations.append("stale sound: \(name) still playing at \(last.wall - b) s")
                }
            }
            if s.text != p.text {
                violations.append("wrong words: \(name) \"\(s.text)\", expected \"\(p.text)\" (\(p.zone))")
            }
            let percent = Int((s.gain * 100).rounded())
            if !p.volumes.contains(percent) {
                violations.append("wrong volume: \(name) \"\(s.text)\" at \(percent) %, expected \(p.volumes.sorted()) %")
            } else {
                count.add("volumes checked")
                if percent < 100 { count.add("volumes below 100 %") }
            }
            if p.reminders > 0 {
                count.add("reminders spoken", p.reminders)
                count.add(p.withTime ? "reminders with the time" : "reminders alone")
                if !p.withTime && (3..<6).contains(Self.localTime(boundary, p.zone).hour) { count.add("reminders through quiet hours") }
            }
            if p.inWindow { count.add("instants in windows") }
            if rhythm.baseMinutes == 10 { count.add("spoken at a ten-minute base") }
            count.add(wallLate > 0.01 ? "spoken late" : "spoken on time")
            if p.zone != Self.home { count.add("spoken in another zone") }
            let z = Self.zone(p.zone)
            if p.inWindow && z.secondsFromGMT(for: Date(timeIntervalSince1970: b - 7200)) != z.secondsFromGMT(for: Date(timeIntervalSince1970: b + 7200)) {
                count.add("window instants within 2 h of a DST change")
            }
            if z.secondsFromGMT(for: Date(timeIntervalSince1970: b - 7200))
                != z.secondsFromGMT(for: Date(timeIntervalSince1970: b + 7200))
            {
                count.add("spoken within 2 h of a DST change")
            }
            if p.expect == .maySpeak { count.add("spoken after an interruption before its boundary") }
        }
        for (index, p) in ps.enumerated() {
            switch p.expect {
            case .speak:
                if !satisfied.contains(index) { violations.append("missed: \(name) \"\(p.text)\" (\(p.zone))") }
            case .maySpeak: if !satisfied.contains(index) { count.add("decided, interrupted, not spoken") }
            case .silent(let why): count.add("silent: \(why)")
            case .excused(let why): count.add("excused: \(why)")
            }
        }
    }

    var memoryGrowthKB: Int { Self.growth(rssSamples) }
    var heapGrowthKB: Int { Self.growth(heapSamples) }

    /// Peak of the daily samples after the first week minus the first of them.
    private static func growth(_ samples: [Int]) -> Int {
        let settled = samples.dropFirst(7)
        guard let first = settled.first, let peak = settled.max() else { return 0 }
        return peak - first
    }

    func report(seconds: Double) -> String {
        let keys = count.values.keys.sorted()
        var lines = [
            "simulate-year: \(days) days (\(days * 96) boundaries) from \(CivilTime.utcString(Int(start))) in \(Self.home), seed \(seed)"
        ]
        for k in keys { lines.append("  \(k): \(count[k])") }
        lines.append("  violations: \(violations.count)")
        for v in violations.prefix(20) { lines.append("    \(v)") }
        let sampled = rssSamples.dropFirst(7)
        lines.append(
            "  RSS of the test process: \(rssAtStart) kB when the simulation started, \(sampled.first ?? 0) kB after the "
                + "first week, at most \(sampled.max() ?? 0) kB in the daily samples after it, \(rssSamples.last ?? 0) kB at "
                + "the end (growth \(memoryGrowthKB) kB); peak (VmHWM) \(DaemonProcessMemory.selfKB("VmHWM")) kB")
        let heap = heapSamples.dropFirst(7)
        lines.append(
            "  malloc heap in use: \(heap.first ?? 0) kB after the first week, at most \(heap.max() ?? 0) kB after it, "
                + "\(heapSamples.last ?? 0) kB at the end (growth \(heapGrowthKB) kB)")
        if ProcessInfo.processInfo.environment["TALKING_CLOCK_SIM_RSS"] != nil {
            lines.append("  daily RSS samples (kB): \(rssSamples.map(String.init).joined(separator: " "))")
            lines.append("  daily heap-in-use samples (kB): \(heapSamples.map(String.init).joined(separator: " "))")
        }
        lines.append("  took \(String(format: "%.1f", seconds)) s")
        return lines.joined(separator: "\n") + "\n"
    }
}

/// A set of instants (whole minutes) in [from, to), one bit each, allocated once.
struct BoundaryBitmap {
    let from: Int
    private var words: [UInt64]

    init(from: Int, to: Int) {
        self.from = from
        words = [UInt64](repeating: 0, count: max(0, (to - from) / 60 / 64 + 1))
    }

    private func slot(_ boundary: Int) -> (Int, UInt64)? {
        let index = (boundary - from) / 60
        guard boundary >= from, (boundary - from) % 60 == 0, index / 64 < words.count else { return nil }
        return (index / 64, 1 << UInt64(index % 64))
    }

    mutating func insert(_ boundary: Int) {
        guard let (word, bit) = slot(boundary) else { return }
        words[word] |= bit
    }

    func contains(_ boundary: Int) -> Bool {
        guard let (word, bit) = slot(boundary) else { return false }
        return words[word] & bit != 0
    }
}

enum DaemonProcessMemory {
    static func selfResidentKB() -> Int { selfKB("VmRSS") }

    /// tc_heap_in_use_bytes (mallinfo2): the simulation runs on one thread, so the main arena is all of it.
    static func heapInUseKB() -> Int { heapInUseBytes() / 1024 }

    /// A kB field of /proc/self/status (VmRSS, VmHWM: not inherited across exec, unlike ru_maxrss).
    static func selfKB(_ field: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        }
        return 0
    }
}

// MARK: - The real engine on the simulated machine

/// The daemon on the simulated machine: the real `EngineDriver` running the real `ClockEngine` on
/// the embedded ports (`TestSupport.EmbeddedPorts`), with the world's wall clock, a `CountingSink`
/// for the device and a real `StateStore` behind the state writes. The same driver the daemon
/// runs carries out every effect; this class only connects the world's events to it.
final class SimulatedDaemon: EngineSurface {
    let format = StreamFormat(sampleRate: 1000, channels: 1)
    let config: Config
    let store: StateStore
    let lead: Double
    unowned let world: YearSimulation
    private(set) var ports: EmbeddedPorts!
    private(set) var driver: EngineDriver!
    var engine: ClockEngine { driver.engine }
    /// When the boundary timer is armed for (wall clock).
    var wakeAt: Double? { ports?.armed[.boundary] }
    /// The device of the announcement playing.
    private(set) var sink: CountingSink?
    private var current: EmbeddedAnnouncement?
    var reloadPending: Bool { ports?.heldReload != nil }
    /// What the world's device is to listen for in the announcement playing.
    struct Heard {
        var boundary: Int
        var text: String
        var first: Int
        var last: Int
        var soundAfter: Double
        var gain: Float
        var onsetReported = false
    }
    var heard: Heard?

    init(config: Config, store: StateStore, lead: Double, world: YearSimulation) {
        self.config = config
        self.store = store
        self.lead = lead
        self.world = world
    }

    var now: Double { world.wall }
    func zone() -> Zone { YearSimulation.rules(world.zoneID) }

    /// The fixture pack as the engine sees it: every word, 50 ms a clip, no bells.
    var settings: EngineSettings {
        EngineSettings(config: config, pack: PackFacts.fixture(bells: nil).rendering(SimulatedRhythm.texts, frames: 80))
    }

    /// A start: the state as saved, then the engine's `.start`.
    func run() {
        let (state, warning) = store.load()
        let ports = EmbeddedPorts(
            now: { [unowned world] in world.wall }, zone: zone(), settings: settings,
            makeDevice: { CountingSink(format: $0, capacity: 100, periodFrames: 50) })  // ALSASink asks for 0.1 s
        ports.keepsHistory = false
        ports.holdReloads = true
        ports.clipSound = { _ in .float([0.25]) }
        ports.persist = { [store, unowned world] state in
            do { try store.save(state) } catch {
                world.fail("state not saved: \(error)")
                throw error
            }
        }
        ports.onOpen = { [unowned self] a in self.opened(a) }
        self.ports = ports
        driver = ports.start(
            ClockEngine(options: ClockEngine.Options(lead: lead), settings: settings, state: state, stateWarning: warning, zone: zone()),
            surfaces: [self])
        send { $0.send(.start) }
    }

    /// SIGKILL: nothing more happens (the state on disk is what was saved).
    func stop() {
        ports = nil
        driver = nil
        sink = nil
        current = nil
        heard = nil
        world.sessionEnded()
    }

    /// The /etc watch saw the system zone replaced.
    func systemZoneChanged() {
        ports.zone = zone()
        send { $0.send(.zoneChanged(self.zone())) }
    }

    func boundaryTimerFired(clockWasSet: Bool) {
        ports.zone = zone()
        send { _ in self.ports.fire(.boundary, clockWasSet: clockWasSet) }
    }

    /// The reload's file reads and decoding are done: the same settings, as the world never edits the file.
    func deliverReload() {
        ports.zone = zone()
        send { _ in self.ports.releaseReload() }
    }

    func respond(to request: ControlRequest) -> ControlReply? {
        var reply: ControlReply?
        send { $0.control(request) { reply = $0 } }
        return reply
    }

    /// The device played some frames: the driver asks the announcement how it goes.
    func pumpPlayback() {
        guard let current else { return }
        if heard == nil, let start = current.session.timelineStart, let b = current.request.boundary {
            // The frames the oracle listens for: the first and the last of the announcement.
            let t = current.session.timeline
            heard = Heard(
                boundary: b, text: current.request.text, first: start + t.anchorFrame, last: start + t.totalFrames,
                soundAfter: t.secondsAfterAnchor, gain: current.request.gain)
        }
        send { $0.pump() }
    }

    /// Runs `body` against the driver, then notices an announcement that ended on the way.
    private func send(_ body: (EngineDriver) -> Void) {
        body(driver)
        ports?.runDue()
        if current != nil, driver?.playingID != current?.request.id { ended() }
    }

    private func opened(_ a: EmbeddedAnnouncement) {
        current = a
        sink = a.device as? CountingSink
        heard = nil
        world.sessionStarted()
    }

    private func ended() {
        current = nil
        sink = nil
        heard = nil
        world.sessionEnded()
    }

    // MARK: EngineSurface

    func outcome(_ outcome: Outcome) {
        world.trace("outcome \(outcome.result) \(outcome.at)")
        if outcome.kind == .cut, outcome.reason == .stale { world.cutStale() }
        if outcome.kind == .skipped, outcome.reason == .zoneChanged {
            world.fail("armed a boundary that is none in \(zone().identifier): \(outcome.at)")
        }
        if outcome.kind == .cut, outcome.boundary == nil, case .boundaryDue = outcome.reason { world.sayCutForBoundary() }
    }
}

/// A paced device that keeps counts, not samples (a year of priming silence would not fit in a
/// `RecordingSink`, and memory is measured): `capacity` frames of buffer, played by `advance`.
final class CountingSink: SimulatedDevice {
    let deviceName = "simulated"
    let format: StreamFormat
    let periodFrames: Int
    let capacity: Int
    private(set) var writtenFrames = 0
    private(set) var queued = 0

    init(format: StreamFormat, capacity: Int, periodFrames: Int) {
        self.format = format
        self.capacity = capacity
        self.periodFrames = periodFrames
    }

    func write(_ frames: UnsafeBufferPointer<Int16>) throws(SinkError) -> Int {
        let accepted = min(frames.count / format.channels, capacity - queued)
        writtenFrames += accepted
        queued += accepted
        return accepted
    }

    func delay() throws(SinkError) -> Int { queued }
    func advance(frames: Int) { queued = max(0, queued - frames) }
    func pollDescriptors() -> [PollDescriptor] { [] }
    func acknowledge(revents: [Int16]) {}
    func stop() { queued = 0 }
    func close() {}
}

extension YearSimulation {
    func fail(_ message: String) { violations.append(message) }
}
