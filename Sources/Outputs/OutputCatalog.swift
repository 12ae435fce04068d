import ALSAOutput
import FoundationEssentials
import Playback
import SnapcastOutput
import SoundServer

/// What this machine can play to, and what each output would do (`talking-clock outputs`): the
/// ALSA devices, the sound server's sinks (network ones included), and the configured device
/// opened the way the daemon opens it (a Snapcast server asked about its stream).
public enum OutputCatalog {
    public struct Entry: Hashable, Sendable {
        public enum Kind: String, Sendable { case configured, alsa, sink, snapcast }
        public var kind: Kind
        /// The name to give as `device` / `--device`.
        public var device: String
        public var description: String
        /// What the clock would do with it: how its delay is compensated, whether it is held open.
        public var behaviour: String
    }

    /// Everything, within about `timeout` seconds per question asked (the sound server, a
    /// Snapcast server); `configured` is the device the configuration names, if any.
    public static func list(configured: String?, timeout: Double = 1) -> [Entry] {
        var entries: [Entry] = []
        if let configured { entries.append(describe(configured, timeout: timeout)) }
        for device in ALSADevices.list() where !converters.contains(device.name) {
            entries.append(
                Entry(kind: .alsa, device: device.name, description: device.description, behaviour: alsaBehaviour(device)))
        }
        if SoundServer.mightBeRunning(), let sinks = try? SoundServer.sinks(timeout: timeout) {
            for sink in sinks {
                entries.append(Entry(kind: .sink, device: sink.device, description: sinkDescription(sink), behaviour: sinkBehaviour(sink)))
            }
        }
        return entries
    }

    /// The configured device, opened ahead as the daemon does (a Snapcast server is asked).
    public static func describe(_ device: String, timeout: Double) -> Entry {
        let driver = OutputRegistry.driver(for: device)
        if driver is SnapcastOutputDriver {
            do {
                let target = try SnapcastTarget.prepare(try SnapcastEndpoint(device), timeout: timeout)
                try SnapcastSink.probe(target, timeout: timeout)
                return Entry(kind: .snapcast, device: device, description: snapcastDescription(target), behaviour: snapcastBehaviour(target))
            } catch {
                return Entry(kind: .snapcast, device: device, description: "cannot be opened now", behaviour: error.message)
            }
        }
        do {
            let prepared = try OutputRegistry.prepare(device)
            return Entry(
                kind: .configured, device: device, description: "opens now (\(driver.name))",
                behaviour: prepared.worthKeeping
                    ? "a sound server's stream: its delay (the sink's latency included) compensated; held open between announcements"
                    : "a device of its own: its buffer compensated; closed between announcements so other programs can use it")
        } catch {
            return Entry(kind: .configured, device: device, description: "cannot be opened now", behaviour: error.message)
        }
    }

    /// ALSA plugins that convert for another device rather than play (alsa-plugins' rate
    /// converters, mixers and effects), and `null`: left out of the list.
    static let converters: Set<String> = ["null", "lavrate", "samplerate", "speexrate", "speex", "upmix", "vdownmix", "a52", "dca"]

    static func alsaBehaviour(_ device: ALSADevices.Device) -> String {
        if device.isCard {
            return "a sound card: its buffer compensated, not its DAC (set output-latency); closed between announcements"
        }
        if ["default", "pulse", "pipewire", "jack"].contains(device.name) || device.name.hasPrefix("pulse:") {
            return "a sound server: its delay (the sink's latency included) compensated; held open between announcements"
        }
        return "an ALSA plugin: its delay compensated"
    }

    static func sinkDescription(_ sink: SoundServer.Sink) -> String {
        var parts = [sink.description.isEmpty ? sink.name : sink.description]
        if sink.isNetwork { parts.append("network (\(sink.driver))") }
        parts.append(sink.state)
        return parts.joined(separator: ", ")
    }

    static func sinkBehaviour(_ sink: SoundServer.Sink) -> String {
        let latency = sink.latency > 0 ? "reports \(milliseconds(sink.latency)) ms, " : ""
        return "\(latency)compensated through the stream's delay"
            + (sink.isNetwork ? "; what the far end adds without reporting it needs output-latency" : "")
    }

    static func snapcastDescription(_ target: SnapcastTarget) -> String {
        var parts: [String] = []
        if let name = target.streamName { parts.append("source \"\(name)\"") }
        parts.append("\(target.streamFormat.sampleRate):16:\(target.streamFormat.channels), chunk \(target.chunkMs) ms, buffer \(target.endpoint.bufferMs) ms")
        if target.meta { parts.append("part of a meta stream") }
        if let status = target.status {
            let clients = status.clients.filter(\.connected)
            parts.append("snapserver \(status.version), \(clients.count) client\(clients.count == 1 ? "" : "s") connected"
                + (clients.isEmpty ? "" : " (\(clients.map(\.name).joined(separator: ", ")))"))
        }
        return parts.joined(separator: "; ")
    }

    static func snapcastBehaviour(_ target: SnapcastTarget) -> String {
        "opened \(tenths(target.openAhead)) s ahead (buffer, chunk, "
            + (target.meta ? "the meta stream's lead-in, " : "") + "the clients' warm-up); a connection per announcement, nothing held"
            + (target.notes.isEmpty ? "" : "; " + target.notes.joined(separator: "; "))
    }

    static func milliseconds(_ seconds: Double) -> Int { Int((seconds * 1000).rounded()) }

    static func tenths(_ seconds: Double) -> String {
        let t = Int((seconds * 10).rounded())
        return "\(t / 10).\(t % 10)"
    }
}
