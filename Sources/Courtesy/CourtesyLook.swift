import DesktopBus
import FoundationEssentials
import Glibc
import SoundServer
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

    /// The parts' results, filled in under the mutex and signalled on the condition variable
    /// (CLOCK_MONOTONIC); ignored once `closed`. Plain pthreads, not Dispatch or Swift
    /// concurrency, whose runtime threads would wake the process every second afterwards.
    final class Box: @unchecked Sendable {
        private var mutex = pthread_mutex_t()
        private var condition = pthread_cond_t()
        private var findings = CourtesyFindings()
        private var finished: Set<String> = []
        private var reported = 0
        private var closed = false

        init() {
            pthread_mutex_init(&mutex, nil)
            var attributes = pthread_condattr_t()
            pthread_condattr_init(&attributes)
            pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
            pthread_cond_init(&condition, &attributes)
            pthread_condattr_destroy(&attributes)
        }

        deinit {
            pthread_cond_destroy(&condition)
            pthread_mutex_destroy(&mutex)
        }

        /// `completed` false: the part gave up at its deadline (it is named in `timedOut`).
        func deliver(_ partial: CourtesyFindings, from name: String, completed: Bool) {
            pthread_mutex_lock(&mutex)
            if !closed {
                reported += 1
                pthread_cond_broadcast(&condition)
            }
            if !closed && completed {
                if let call = partial.call { findings.call = call }
                if let dnd = partial.doNotDisturb { findings.doNotDisturb = dnd }
                findings.playingStreams += partial.playingStreams
                findings.playingPlayers += partial.playingPlayers
                finished.insert(name)
                pthread_cond_broadcast(&condition)
            }
            pthread_mutex_unlock(&mutex)
        }

        /// Waits until every part has delivered or `deadline` passes; then closes the box.
        func collect(parts: [String], until deadline: Date, speechDispatcher: Bool) -> CourtesyFindings {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let left = max(0, deadline.timeIntervalSinceNow)
            var end = timespec(tv_sec: now.tv_sec + Int(left), tv_nsec: now.tv_nsec + Int((left - left.rounded(.down)) * 1e9))
            if end.tv_nsec >= 1_000_000_000 {
                end.tv_sec += 1
                end.tv_nsec -= 1_000_000_000
            }
            pthread_mutex_lock(&mutex)
            while reported < parts.count {
                if pthread_cond_timedwait(&condition, &mutex, &end) == ETIMEDOUT { break }
            }
            closed = true
            var result = findings
            result.speechDispatcher = speechDispatcher
            result.timedOut = parts.filter { !finished.contains($0) }
            pthread_mutex_unlock(&mutex)
            return result
        }
    }

    /// One part of the look, on a detached thread of its own.
    final class Part {
        let box: Box
        let name: String
        /// Fills in its findings; false when it ran out of time.
        let work: (inout CourtesyFindings) -> Bool
        init(box: Box, name: String, work: @escaping (inout CourtesyFindings) -> Bool) {
            self.box = box
            self.name = name
            self.work = work
        }
        func run() {
            var partial = CourtesyFindings()
            let completed = work(&partial)
            box.deliver(partial, from: name, completed: completed)
        }
    }

    static func start(_ box: Box, _ name: String, _ work: @escaping (inout CourtesyFindings) -> Bool) {
        let part = Unmanaged.passRetained(Part(box: box, name: name, work: work)).toOpaque()
        var thread = pthread_t()
        if pthread_create(&thread, nil, partMain, part) == 0 {
            pthread_detach(thread)
        } else {
            // No thread could be made: this part finds nothing.
            Unmanaged<Part>.fromOpaque(part).release()
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

private func partMain(_ raw: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    Unmanaged<CourtesyLook.Part>.fromOpaque(raw!).takeRetainedValue().run()
    return nil
}
