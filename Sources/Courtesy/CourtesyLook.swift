import DesktopBus
import EventLoop
import FoundationEssentials
import Glibc
import SoundServer
import Synchronization
import TalkingClockCore

/// One bounded look at the desktop, just before a boundary: a call, do-not-disturb, media
/// playing, speech-dispatcher. The findings go to the engine as an event and `CourtesyPolicy`
/// decides. Never polled: the shell calls this once per announcement, off the event loop.
public enum CourtesyLook {
    /// Looks at the sound server and the session bus at once, each on its own thread, and
    /// returns within `budget` seconds whatever happened: a part still running then is abandoned
    /// (it finishes on its own and its answer is dropped), counts as nothing found and is named
    /// in `timedOut`. With no session bus and no sound server (a headless machine) it returns
    /// `.nothing` at once, having started no thread and loaded no library.
    public static func look(
        budget: Double = 0.2, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> CourtesyFindings {
        let deadline = Date().addingTimeInterval(budget)
        var findings = CourtesyFindings()
        findings.speechDispatcher = speechDispatcherSocket(environment) != nil
        let server = SoundServer.mightBeRunning(environment: environment)
        let bus = SessionBus.address(environment: environment)
        guard server || bus != nil else { return findings }

        let box = Box()
        var parts: [String] = []
        if server {
            parts.append(soundServerPart)
            start(box, soundServerPart) { lookAtSoundServer(into: &$0, server: environment["PULSE_SERVER"], deadline: deadline) }
        }
        if let bus {
            parts.append(busPart)
            start(box, busPart) { lookAtBus(into: &$0, address: bus, deadline: deadline) }
        }
        return box.collect(parts: parts, until: deadline, speechDispatcher: findings.speechDispatcher)
    }

    static let soundServerPart = "sound server"
    static let busPart = "session bus"

    /// The parts' results, filled in under the lock, each part giving the latch once it has
    /// reported; ignored once `closed`.
    final class Box: Sendable {
        struct State {
            var findings = CourtesyFindings()
            var finished: Set<String> = []
            var reported = 0
            var closed = false
        }
        private let state = Mutex(State())
        /// Given by each part as it reports (nil: no latch could be made; the look waits for nothing).
        private let reported: Latch?

        init() { reported = try? Latch() }

        /// `completed` false: the part gave up at its deadline (it is named in `timedOut`).
        func deliver(_ partial: CourtesyFindings, from name: String, completed: Bool) {
            state.withLock { s in
                guard !s.closed else { return }
                s.reported += 1
                guard completed else { return }
                if let call = partial.call { s.findings.call = call }
                if let dnd = partial.doNotDisturb { s.findings.doNotDisturb = dnd }
                s.findings.playingStreams += partial.playingStreams
                s.findings.playingPlayers += partial.playingPlayers
                s.finished.insert(name)
            }
            reported?.signal()
        }

        /// Waits until every part has delivered or `deadline` passes; then closes the box.
        func collect(parts: [String], until deadline: Date, speechDispatcher: Bool) -> CourtesyFindings {
            while state.withLock({ $0.reported < parts.count }) {
                let left = deadline.timeIntervalSinceNow
                guard left > 0, let reported, reported.wait(timeout: left) else { break }
            }
            return state.withLock { s in
                s.closed = true
                var result = s.findings
                result.speechDispatcher = speechDispatcher
                result.timedOut = parts.filter { !s.finished.contains($0) }
                return result
            }
        }
    }

    static func start(_ box: Box, _ name: String, _ work: @escaping @Sendable (inout CourtesyFindings) -> Bool) {
        // No thread could be made: this part finds nothing (and is named as timed out).
        Threads.spawn {
            var partial = CourtesyFindings()
            let completed = work(&partial)
            box.deliver(partial, from: name, completed: completed)
        }
    }

    /// Calls (any stream, playing or recording, with a call's role) and the other programs'
    /// playing streams (not a call's). Not this process's own, and not another talking-clock's.
    /// Whether a part that failed did so because its time was up (rather than, say, no server).
    static func outOfTime(_ deadline: Date) -> Bool { deadline.timeIntervalSinceNow < 0.002 }

    static func lookAtSoundServer(into findings: inout CourtesyFindings, server: String?, deadline: Date) -> Bool {
        guard let streams = try? SoundServer.streams(server: server, timeout: deadline.timeIntervalSinceNow) else {
            return !outOfTime(deadline)
        }
        let own = UInt32(getpid())
        let others = streams.filter { $0.pid != own && $0.application != Ducker.ownApplicationName }
        if let call = others.first(where: \.isCall) {
            findings.call = .init(application: call.application, role: call.role)
        }
        // A call's own audio is never ducked.
        findings.playingStreams = others.filter { !$0.isRecording && !$0.corked && !$0.isCall }.map {
            .init(index: $0.index, application: $0.application, role: $0.role.isEmpty ? nil : $0.role)
        }
        return true
    }

    /// Do-not-disturb (GNOME's show-banners, then org.freedesktop.Notifications Inhibited) and
    /// the MPRIS players that are playing.
    static func lookAtBus(into findings: inout CourtesyFindings, address: String, deadline: Date) -> Bool {
        guard let bus = try? SessionBus(address: address, timeout: max(0.001, deadline.timeIntervalSinceNow)) else {
            return !outOfTime(deadline)
        }
        if DesktopSettings.bool(schema: "org.gnome.desktop.notifications", key: "show-banners") == false {
            findings.doNotDisturb = .gnomeShowBanners
        } else if let inhibited = try? bus.bool(
            "org.freedesktop.Notifications", "/org/freedesktop/Notifications", "org.freedesktop.Notifications",
            "Inhibited", timeout: max(0.001, deadline.timeIntervalSinceNow)), inhibited
        {
            findings.doNotDisturb = .notificationsInhibited
        }
        findings.playingPlayers = (try? MPRIS.playing(on: bus, timeout: max(0.001, deadline.timeIntervalSinceNow))) ?? []
        return !outOfTime(deadline)
    }

    /// speech-dispatcher's socket: `SPEECHD_ADDRESS` ("unix_socket:PATH"), else
    /// `$XDG_RUNTIME_DIR/speech-dispatcher/speechd.sock` when it exists.
    public static func speechDispatcherSocket(_ environment: [String: String]) -> String? {
        if let address = environment["SPEECHD_ADDRESS"], !address.isEmpty { return address }
        guard let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else { return nil }
        let path = runtime + "/speech-dispatcher/speechd.sock"
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }
}
