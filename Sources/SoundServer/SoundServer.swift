import CPulse
import FoundationEssentials
import Glibc

/// The sound server (PulseAudio, or PipeWire through pipewire-pulse) as the courtesy features see
/// it: the streams playing or recording, and their volumes. Every call connects, asks, and
/// disconnects within its own deadline; nothing stays open between announcements, so the clock
/// costs the server nothing while idle. The only importer of CPulse.
public enum SoundServer {
    /// A sink input (playing) or source output (recording).
    public struct Stream: Hashable, Sendable, Codable {
        public var index: UInt32
        public var isRecording: Bool
        public var corked: Bool
        /// `application.process.id`, 0 when the client did not say.
        public var pid: UInt32
        public var application: String
        /// `media.role`, "" when none.
        public var role: String
        public var applicationID: String
        /// Per channel, in `pa_volume_t` units (65536 = 100 %); empty for a recording stream.
        public var volume: [UInt32]

        /// A stream whose role means a call: "phone" (PulseAudio), "communication" (PipeWire's
        /// name, any case).
        public var isCall: Bool { ["phone", "communication"].contains(role.lowercased()) }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// `pa_volume_t` for 100 %.
    public static let normalVolume: UInt32 = 0x10000

    /// Whether a server could be there, decided without loading libpulse: `PULSE_SERVER` is set,
    /// or the default socket `$XDG_RUNTIME_DIR/pulse/native` exists (PulseAudio and
    /// pipewire-pulse both listen there). False on a headless machine, where the look then costs
    /// one `stat`.
    public static func mightBeRunning(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        if let server = environment["PULSE_SERVER"], !server.isEmpty { return true }
        guard let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else { return false }
        return FileManager.default.fileExists(atPath: runtime + "/pulse/native")
    }

    /// Every sink input, then every source output (`pa_context_get_sink_input_info_list`,
    /// `pa_context_get_source_output_info_list`), or a `Failure` if the server cannot be reached
    /// within `timeout` seconds.
    public static func streams(server: String? = nil, timeout: Double) throws(Failure) -> [Stream] {
        var capacity = 64
        while true {
            var buffer = [tc_pulse_stream](repeating: tc_pulse_stream(), count: capacity)
            var err = [CChar](repeating: 0, count: 512)
            let n = tc_pulse_list_streams(server, milliseconds(timeout), &buffer, Int32(capacity), &err, err.count)
            guard n >= 0 else { throw Failure(description: String(cString: err)) }
            if Int(n) > capacity {
                capacity = Int(n) + 16
                continue
            }
            return buffer.prefix(Int(n)).map(Stream.init)
        }
    }

    /// Sets sink inputs' volumes (`pa_context_set_sink_input_volume`); returns how many the
    /// server accepted (a stream that ended meanwhile is skipped, not an error).
    @discardableResult
    public static func setVolumes(_ volumes: [(index: UInt32, volume: [UInt32])], server: String? = nil, timeout: Double)
        throws(Failure) -> Int
    {
        let usable = volumes.filter { !$0.volume.isEmpty && $0.volume.count <= Int(TC_PULSE_MAX_CHANNELS) }
        guard !usable.isEmpty else { return 0 }
        let stride = Int(TC_PULSE_MAX_CHANNELS)
        var flat = [UInt32](repeating: 0, count: usable.count * stride)
        for (i, entry) in usable.enumerated() {
            for (c, v) in entry.volume.enumerated() { flat[i * stride + c] = v }
        }
        let indices = usable.map(\.index)
        let channels = usable.map { UInt8($0.volume.count) }
        var err = [CChar](repeating: 0, count: 512)
        let n = tc_pulse_set_volumes(
            server, milliseconds(timeout), Int32(usable.count), indices, channels, flat, &err, err.count)
        guard n >= 0 else { throw Failure(description: String(cString: err)) }
        return Int(n)
    }

    /// A sink: a sound card's output, or a network or virtual one (a tunnel to another host,
    /// PipeWire's AirPlay/RAOP or Snapcast sink, a null sink). The clock plays to one by name
    /// through ALSA's pulse plugin (`pulse:NAME`), whose delay includes the sink's latency.
    public struct Sink: Hashable, Sendable, Codable {
        public var index: UInt32
        public var name: String
        public var description: String
        /// The module behind it, e.g. "module-tunnel-sink.c".
        public var driver: String
        /// A network sink (PA_SINK_NETWORK).
        public var isNetwork: Bool
        /// Its latency now and as configured, in seconds (0 when it reports none).
        public var latency: Double
        public var configuredLatency: Double
        /// "running", "idle", "suspended" or "unknown".
        public var state: String

        /// The ALSA device name that plays to it.
        public var device: String { "pulse:\(name)" }
    }

    /// Every sink (`pa_context_get_sink_info_list`), or a `Failure` if the server cannot be
    /// reached within `timeout` seconds.
    public static func sinks(server: String? = nil, timeout: Double) throws(Failure) -> [Sink] {
        var capacity = 32
        while true {
            var buffer = [tc_pulse_sink](repeating: tc_pulse_sink(), count: capacity)
            var err = [CChar](repeating: 0, count: 512)
            let n = tc_pulse_list_sinks(server, milliseconds(timeout), &buffer, Int32(capacity), &err, err.count)
            guard n >= 0 else { throw Failure(description: String(cString: err)) }
            if Int(n) > capacity {
                capacity = Int(n) + 8
                continue
            }
            return buffer.prefix(Int(n)).map(Sink.init)
        }
    }

    static func milliseconds(_ seconds: Double) -> Int32 { Int32(max(1, min(600_000, (seconds * 1000).rounded(.up)))) }
}

extension SoundServer.Stream {
    init(_ c: tc_pulse_stream) {
        var c = c
        index = c.index
        isRecording = c.is_record != 0
        corked = c.corked != 0
        pid = c.pid
        application = withUnsafeBytes(of: &c.application) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        role = withUnsafeBytes(of: &c.role) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        applicationID = withUnsafeBytes(of: &c.app_id) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let count = Int(min(c.channels, UInt8(TC_PULSE_MAX_CHANNELS)))
        volume = withUnsafeBytes(of: &c.volume) { Array($0.bindMemory(to: UInt32.self).prefix(count)) }
    }
}

extension SoundServer.Sink {
    init(_ c: tc_pulse_sink) {
        var c = c
        index = c.index
        name = withUnsafeBytes(of: &c.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        description = withUnsafeBytes(of: &c.description) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        driver = withUnsafeBytes(of: &c.driver) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        isNetwork = c.network != 0
        latency = c.has_latency != 0 ? Double(c.latency_usec) / 1e6 : 0
        configuredLatency = c.has_latency != 0 ? Double(c.configured_latency_usec) / 1e6 : 0
        state = ["running", "idle", "suspended"][safe: Int(c.state)] ?? "unknown"
    }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
