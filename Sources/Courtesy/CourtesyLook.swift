import DesktopBus
import Foundation
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
        for _ in parts {
            guard box.done.wait(timeout: .now() + max(0, deadline.timeIntervalSinceNow)) == .success else { break }
        }
        return box.lock.withLock {
            box.closed = true
            var merged = box.findings
            merged.speechDispatcher = findings.speechDispatcher
            merged.timedOut = parts.filter { !box.finished.contains($0) }
            return merged
        }
    }

    static let soundServerPart = "sound server"
    static let busPart = "session bus"

    /// The parts' results, filled in under the lock; ignored once `closed`.
    final class Box: @unchecked Sendable {
        let lock = NSLock()
        let done = DispatchSemaphore(value: 0)
        var findings = CourtesyFindings()
        var finished: Set<String> = []
        var closed = false
    }

    static func start(_ box: Box, _ name: String, _ work: @escaping @Sendable (inout CourtesyFindings) -> Void) {
        let thread = Thread {
            var partial = CourtesyFindings()
            work(&partial)
            box.lock.withLock {
                guard !box.closed else { return }
                if let call = partial.call { box.findings.call = call }
                if let dnd = partial.doNotDisturb { box.findings.doNotDisturb = dnd }
                box.findings.playingStreams += partial.playingStreams
                box.findings.playingPlayers += partial.playingPlayers
                box.finished.insert(name)
            }
            box.done.signal()
        }
        thread.name = "courtesy-look"
        thread.start()
    }

    /// Calls (any stream, playing or recording, with a call's role) and the other programs'
    /// playing streams (not a call's). Not this process's own, and not another talking-clock's.
    static func lookAtSoundServer(into findings: inout CourtesyFindings, server: String?, deadline: Date) {
        guard let streams = try? SoundServer.streams(server: server, timeout: deadline.timeIntervalSinceNow) else { return }
        let own = UInt32(getpid())
        let others = streams.filter { $0.pid != own && $0.application != Ducker.ownApplicationName }
        if let call = others.first(where: \.isCall) {
            findings.call = .init(application: call.application, role: call.role)
        }
        // A call's own audio is never ducked.
        findings.playingStreams = others.filter { !$0.isRecording && !$0.corked && !$0.isCall }.map {
            .init(index: $0.index, application: $0.application, role: $0.role.isEmpty ? nil : $0.role)
        }
    }

    /// Do-not-disturb (GNOME's show-banners, then org.freedesktop.Notifications Inhibited) and
    /// the MPRIS players that are playing.
    static func lookAtBus(into findings: inout CourtesyFindings, address: String, deadline: Date) {
        guard let bus = try? SessionBus(address: address) else { return }
        if DesktopSettings.bool(schema: "org.gnome.desktop.notifications", key: "show-banners") == false {
            findings.doNotDisturb = .gnomeShowBanners
        } else if let inhibited = try? bus.bool(
            "org.freedesktop.Notifications", "/org/freedesktop/Notifications", "org.freedesktop.Notifications",
            "Inhibited", timeout: max(0.001, deadline.timeIntervalSinceNow)), inhibited
        {
            findings.doNotDisturb = .notificationsInhibited
        }
        findings.playingPlayers = (try? MPRIS.playing(on: bus, timeout: max(0.001, deadline.timeIntervalSinceNow))) ?? []
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
