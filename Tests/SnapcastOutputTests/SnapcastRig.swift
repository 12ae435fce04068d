import Foundation
import Playback
import SnapcastOutput
import TalkingClockCore
import TestSupport
import XCTest

/// A private snapserver with snapclients playing into private PulseAudio null sinks
/// (`scripts/harness/snapcast`), owned by one test: `stop()` (in a `defer`) stops everything and
/// removes the directory.
final class SnapcastRig {
    let dir: String
    let environment: [String: String]

    static var isAvailable: Bool {
        AudioHarness.isAvailable && ["/usr/bin/snapserver", "/usr/bin/snapclient"].allSatisfy(FileManager.default.isExecutableFile(atPath:))
    }

    init(_ tag: String, clients: Int = 2, bufferMs: Int = 1000, music: Bool = false) throws {
        dir = "/tmp/tc-sc-\(getpid())-\(tag)-\(UUID().uuidString.prefix(6))"
        var arguments = ["up", "--dir", dir, "--clients", "\(clients)", "--buffer", "\(bufferMs)"]
        if music { arguments.append("--music") }
        do {
            var env: [String: String] = [:]
            for line in try AudioHarness.run("snapcast", arguments).split(separator: "\n") where line.hasPrefix("export ") {
                let assignment = line.dropFirst("export ".count)
                guard let eq = assignment.firstIndex(of: "=") else { continue }
                var value = String(assignment[assignment.index(after: eq)...])
                if value.hasPrefix("'") && value.hasSuffix("'") { value = String(value.dropFirst().dropLast()) }
                env[String(assignment[..<eq])] = value
            }
            environment = env
        } catch {
            _ = try? AudioHarness.run("snapcast", ["down", "--dir", dir])
            throw error
        }
    }

    var device: String { environment["SNAPCAST_DEVICE"]! }
    var clients: Int { Int(environment["SNAPCAST_CLIENTS"] ?? "0") ?? 0 }
    func pulseServer(_ client: Int) -> String { environment["SNAPCAST_PULSE_\(client)"]! }

    /// Starts recording client `client`'s sink (1-based).
    func capture(_ client: Int, to url: URL, maxSeconds: Int = 120) throws -> AudioHarness.Capture {
        try AudioHarness.startCapture(to: url, environment: ["PULSE_SERVER": pulseServer(client)], maxSeconds: maxSeconds)
    }

    /// Sends snapserver a signal: STOP, CONT, KILL.
    func signalServer(_ name: String) throws {
        try AudioHarness.run("snapcast", ["signal", "--dir", dir, name])
    }

    func stop() {
        _ = try? AudioHarness.run("snapcast", ["down", "--dir", dir])
        try? FileManager.default.removeItem(atPath: dir)
    }
}

/// Plays one timeline on a sink the way the daemon's loop does: pump, wait on the sink's
/// descriptors or the session's timeout, acknowledge, pump again.
struct Played {
    var results: [ClipResult] = []
    var failure: SinkError?
    var predictedAnchor: Double?
    var endedAt: Double = 0
}

func wallClock() -> Double { Date().timeIntervalSince1970 }

func play(
    _ sink: any AudioSink, _ timeline: Timeline, pcm: [Int16], anchorAt: Double?, stallLimit: Double = 2,
    during: (PlaybackSession) -> Void = { _ in }
) -> Played {
    var played = Played()
    let session = PlaybackSession(
        sink: sink, timeline: timeline, pcm: pcm, anchorAt: anchorAt, clock: wallClock, stallLimit: stallLimit,
        onClip: { _, result in played.results.append(result) })
    while true {
        during(session)
        switch session.pump() {
        case .done:
            played.failure = session.failure
            played.predictedAnchor = session.predictedAnchorTime
            played.endedAt = wallClock()
            return played
        case .wait(let timeout):
            let descriptors = session.wantsDeviceEvents ? sink.pollDescriptors() : []
            var fds = descriptors.map { pollfd(fd: $0.fd, events: $0.events, revents: 0) }
            let ms = timeout.map { Int32(max(0, min(1000, ($0 * 1000).rounded(.up)))) } ?? 1000
            _ = poll(&fds, nfds_t(fds.count), ms)
            sink.acknowledge(revents: fds.map(\.revents))
        }
    }
}

/// A tone clip: `frequency` Hz at `level` dBFS for `seconds`, with a 2 ms raised-cosine fade at
/// each end (band-limited, so a resampler adds no ringing before its first sample).
func toneTimeline(format: StreamFormat, seconds: Double, frequency: Double = 1000, level: Double = -6) -> (Timeline, [Int16]) {
    let frames = Int(seconds * Double(format.sampleRate))
    let fade = Double(format.sampleRate) * 0.002
    let amplitude = pow(10, level / 20) * 32767
    var pcm = [Int16](repeating: 0, count: frames * format.channels)
    for f in 0..<frames {
        let edge = min(Double(f), Double(frames - 1 - f))
        let env = edge < fade ? 0.5 - 0.5 * cos(Double.pi * edge / fade) : 1
        let v = Int16((amplitude * env * sin(2 * Double.pi * frequency * Double(f) / Double(format.sampleRate))).rounded())
        for c in 0..<format.channels { pcm[f * format.channels + c] = v }
    }
    let timeline = Timeline(items: [TimelineItem(clip: "tone", start: 0, frames: frames, role: .voice)], anchorFrame: 0, format: format)
    return (timeline, pcm)
}

/// Waits (the schedule itself: a clock that opens its output ahead of a boundary) until `instant`.
func sleepUntil(_ instant: Double) {
    let left = instant - wallClock()
    if left > 0 { usleep(useconds_t(left * 1e6)) }
}

/// The onsets `analyze onsets` finds in a capture: (time, peak dBFS).
func onsets(_ file: URL, minSilenceMs: Int) throws -> [(time: Double, peak: Double, duration: Double)] {
    let result = try AudioHarness.analyze("onsets", file, ["--min-silence-ms", "\(minSilenceMs)"])
    return (result["onsets"] as? [[String: Any]] ?? []).compactMap { o in
        guard let t = o["time"] as? Double, let p = o["peak_db"] as? Double else { return nil }
        return (t, p, (o["duration_ms"] as? Double) ?? 0)
    }
}
