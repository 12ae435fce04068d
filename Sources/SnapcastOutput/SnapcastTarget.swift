import Playback
import TalkingClockCore

/// A Snapcast endpoint made ready to open: its address resolved and, when snapserver's JSON-RPC
/// answers, its source's chunk, sample format and meta stream read from the server. Preparing
/// may block (DNS, one JSON-RPC exchange within `timeout`): do it off the event loop (the
/// registry's open-ahead); opening a sink from it does not block.
public struct SnapcastTarget: Sendable {
    public let endpoint: SnapcastEndpoint
    public let address: ResolvedAddress
    /// The source's `chunk_ms`.
    public let chunkMs: Int
    /// The source's sample format.
    public let streamFormat: StreamFormat
    /// Whether the source is part of a meta stream (the sink then leads in so the meta stream
    /// switches to it, and makes both resync before the announcement).
    public let meta: Bool
    /// The server's answer, nil when not asked or when it did not answer.
    public let status: SnapcastServerStatus?
    /// The name of the source on the server, when listed.
    public let streamName: String?
    /// What was assumed and why, for `check` and `outputs` ("snapserver's control port did not
    /// answer: assuming …").
    public let notes: [String]

    public init(
        endpoint: SnapcastEndpoint, address: ResolvedAddress, chunkMs: Int, streamFormat: StreamFormat, meta: Bool,
        status: SnapcastServerStatus? = nil, streamName: String? = nil, notes: [String] = []
    ) {
        self.endpoint = endpoint
        self.address = address
        self.chunkMs = chunkMs
        self.streamFormat = streamFormat
        self.meta = meta
        self.status = status
        self.streamName = streamName
        self.notes = notes
    }

    /// The endpoint with its own options and snapserver's defaults, asking the server nothing: for
    /// a caller that must not wait on it (an announcement on the event loop with nothing prepared
    /// ahead). Resolving a host name may still block on DNS: give an IP address there, or prepare.
    public static func unprobed(_ endpoint: SnapcastEndpoint) throws(SinkError) -> SnapcastTarget {
        let address = try ResolvedAddress.resolve(host: endpoint.host, port: endpoint.port)
        return SnapcastTarget(
            endpoint: endpoint, address: address, chunkMs: endpoint.chunkMs ?? SnapcastEndpoint.defaultChunkMs,
            streamFormat: endpoint.format ?? SnapcastEndpoint.defaultFormat, meta: endpoint.meta != .no,
            notes: endpoint.meta == .auto ? ["not prepared: assuming the source may be part of a meta stream"] : [])
    }

    /// Resolves the endpoint and asks snapserver (if `control` is on) within `timeout` seconds.
    /// Throws when the name does not resolve, when the server lists no source for the port, or
    /// when the source's format cannot be sent (not 16-bit).
    public static func prepare(_ endpoint: SnapcastEndpoint, timeout: Double = 1) throws(SinkError) -> SnapcastTarget {
        let address = try ResolvedAddress.resolve(host: endpoint.host, port: endpoint.port)
        var notes: [String] = []
        var status: SnapcastServerStatus?
        if let control = endpoint.controlPort {
            do { status = try SnapcastControl.status(host: endpoint.host, port: control, timeout: timeout) } catch {
                notes.append("snapserver's JSON-RPC did not answer (\(error.message)); using the device's options and snapserver's defaults")
            }
        }
        var chunk = endpoint.chunkMs
        var format = endpoint.format
        var meta: Bool? = endpoint.meta == .auto ? nil : endpoint.meta == .yes
        var name: String?
        if let status {
            if let stream = status.streams.first(where: { $0.tcpPort == endpoint.port }) {
                name = stream.id
                if stream.query["mode"] == "client" {
                    throw SinkError(
                        .notFound,
                        "snapserver's source \"\(stream.id)\" on port \(endpoint.port) connects out (mode=client); the clock needs "
                            + "mode=server: source = tcp://0.0.0.0:\(endpoint.port)?name=\(stream.id)&mode=server")
                }
                if chunk == nil { chunk = stream.query["chunk_ms"].flatMap { Int($0) } }
                if format == nil, let text = stream.query["sampleformat"] {
                    let f = text.split(separator: ":")
                    guard f.count == 3, let rate = Int(f[0]), let channels = Int(f[2]) else {
                        throw SinkError(.unsupported, "snapserver's source \"\(stream.id)\" has a sample format the clock cannot read: \(text).")
                    }
                    guard f[1] == "16" else {
                        throw SinkError(
                            .unsupported,
                            "snapserver's source \"\(stream.id)\" takes \(f[1])-bit samples; the clock sends 16-bit: set sampleformat=\(rate):16:\(channels) on it in snapserver.conf.")
                    }
                    format = StreamFormat(sampleRate: rate, channels: channels)
                }
                if let codec = stream.query["codec"], codec != "pcm", codec != "null" {
                    notes.append("the source's codec is \(codec): it adds latency the clock does not know; codec=pcm is exact")
                }
                if meta == nil { meta = status.streams.contains { $0.metaParts.contains(stream.id) } }
            } else if let house = status.streams.first(where: { $0.scheme == "meta" }) {
                // A part of a meta stream with codec=null is not listed: the usual music-plus-clock set-up.
                notes.append(
                    "no source on port \(endpoint.port) is listed (a meta stream's part with codec=null is not); assuming it is part of the meta stream \"\(house.id)\"")
                if chunk == nil { chunk = house.query["chunk_ms"].flatMap { Int($0) } }
                if meta == nil { meta = true }
            } else {
                let listed = status.streams.map { "\($0.id) (\($0.scheme)\($0.tcpPort.map { " port \($0)" } ?? ""))" }
                throw SinkError(
                    .notFound,
                    "snapserver at \(endpoint.host) has no TCP source on port \(endpoint.port) (its streams: \(listed.joined(separator: ", "))); "
                        + "add source = tcp://0.0.0.0:\(endpoint.port)?name=clock&mode=server to snapserver.conf, see docs/outputs.md.")
            }
        }
        if meta == nil { notes.append("assuming the source may be part of a meta stream (a lead-in of about 1 s)") }
        return SnapcastTarget(
            endpoint: endpoint, address: address, chunkMs: chunk ?? SnapcastEndpoint.defaultChunkMs,
            streamFormat: format ?? SnapcastEndpoint.defaultFormat, meta: meta ?? true, status: status, streamName: name,
            notes: notes)
    }

    /// How long snapclients should hear the stream before its first sample matters (seconds).
    /// A snapclient closes its player after 5 s without audio and places the first audio after
    /// that by its player's latency estimate, then corrects itself: with 0.25 s of stream before
    /// the first sample two clients were up to 13 ms off and 10 ms apart, with 1 s up to 2.5 ms
    /// apart, with 2 s within 1 ms at 27 of 30 boundaries (scripts/harness/snapcast,
    /// docs/outputs.md).
    public static let warmup = 2.0

    /// Seconds ahead of its anchor at which to open a sink: `latency` and `warmup`.
    public var openAhead: Double { Self.openAhead(endpoint, chunkMs: chunkMs, meta: meta) }

    /// The latency a sink adds before its first frame can be heard (seconds): the least a caller
    /// must open it ahead of a boundary by (`openAhead` for an announcement heard exactly).
    public var latency: Double { Self.latency(endpoint, chunkMs: chunkMs, meta: meta) }

    static func latency(_ endpoint: SnapcastEndpoint, chunkMs: Int, meta: Bool) -> Double {
        let chunk = Double(chunkMs) / 1000
        let playout = Double(endpoint.bufferMs + endpoint.latencyMs) / 1000
        return playout + chunk + (meta ? SnapcastSink.leadIn(chunk: chunk) + SnapcastSink.stallGap(chunk: chunk) + SnapcastSink.lead : 0)
    }

    public static func openAhead(_ endpoint: SnapcastEndpoint, chunkMs: Int, meta: Bool) -> Double {
        latency(endpoint, chunkMs: chunkMs, meta: meta) + warmup
    }
}
