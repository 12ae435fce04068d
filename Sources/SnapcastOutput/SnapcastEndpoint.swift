import Playback
import TalkingClockCore

/// A Snapcast output as the user names it: `snapcast://HOST:PORT?option=value&…`, where HOST:PORT
/// is a TCP source of snapserver in server mode (`source = tcp://0.0.0.0:4953?name=clock&mode=server`
/// in snapserver.conf). Options (all optional; docs/outputs.md):
///
/// - `buffer=MS`: snapserver's end-to-end buffer, `[stream] buffer` in snapserver.conf (default
///   1000, snapserver's own default). Snapserver does not report it, so it must match.
/// - `latency=MS`: added on top (a network hop to a remote server, a speaker's own delay that its
///   snapclient does not compensate); may be negative; default 0.
/// - `chunk=MS`: the source's read chunk, `chunk_ms` (default: read from snapserver, else 20).
/// - `format=RATE:16:CHANNELS`: the source's `sampleformat` (default: read from snapserver, else
///   48000:16:2). The clock converts its pack to it.
/// - `control=PORT`: snapserver's JSON-RPC port on the same host (default 1705), or `off`.
/// - `meta=auto|yes|no`: whether the source is part of a meta stream (music that the clock cuts
///   into), which needs a lead-in for the meta stream to switch; `auto` asks snapserver and
///   assumes yes when it cannot tell.
public struct SnapcastEndpoint: Hashable, Sendable {
    public enum Meta: String, Hashable, Sendable { case auto, yes, no }

    /// The device name as given.
    public var name: String
    public var host: String
    public var port: Int
    public var bufferMs: Int = 1000
    public var latencyMs: Int = 0
    /// nil: ask snapserver, else 20.
    public var chunkMs: Int?
    /// nil: ask snapserver, else 48000:16:2.
    public var format: StreamFormat?
    /// nil: do not ask snapserver.
    public var controlPort: Int? = 1705
    public var meta: Meta = .auto

    public static let scheme = "snapcast://"
    public static let defaultFormat = StreamFormat(sampleRate: 48_000, channels: 2)
    public static let defaultChunkMs = 20

    /// Whether `device` names a Snapcast output (the registry's `serves`).
    public static func matches(_ device: String) -> Bool { device.hasPrefix(scheme) }

    /// Parses a device name; the error names the part that is wrong and shows a correct one.
    public init(_ device: String) throws(SinkError) {
        name = device
        func bad(_ why: String) -> SinkError {
            SinkError(
                .notFound,
                "Snapcast device \"\(device)\": \(why). Write it as snapcast://HOST:PORT?buffer=1000, with the port of "
                    + "snapserver's TCP source (source = tcp://0.0.0.0:4953?name=clock&mode=server); see docs/outputs.md.")
        }
        guard device.hasPrefix(Self.scheme) else { throw bad("it does not start with snapcast://") }
        let rest = device.dropFirst(Self.scheme.count)
        let parts = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var authority = String(parts[0])
        if authority.hasSuffix("/") { authority.removeLast() }
        guard !authority.isEmpty else { throw bad("the host and port are missing") }
        // [IPv6]:port, host:port
        let hostPart: Substring
        let portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw bad("an IPv6 address needs its closing ']'") }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            portPart = after.hasPrefix(":") ? after.dropFirst() : (after.isEmpty ? nil : after)
        } else {
            let pieces = authority.split(separator: ":", omittingEmptySubsequences: false)
            guard pieces.count <= 2 else { throw bad("write an IPv6 address in brackets, e.g. snapcast://[::1]:4953") }
            hostPart = pieces[0]
            portPart = pieces.count == 2 ? pieces[1] : nil
        }
        guard !hostPart.isEmpty, !hostPart.contains("/") else { throw bad("the host is missing") }
        host = String(hostPart)
        guard let portPart else { throw bad("the port is missing (snapserver's TCP source has no fixed port)") }
        guard let p = Int(portPart), (1...65535).contains(p) else { throw bad("'\(portPart)' is not a port from 1 to 65535") }
        port = p
        guard parts.count == 2, !parts[1].isEmpty else { return }
        for pair in parts[1].split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(kv[0])
            let value = kv.count == 2 ? String(kv[1]) : ""
            func milliseconds(_ range: ClosedRange<Int>, example: String) throws(SinkError) -> Int {
                guard let v = Int(value), range.contains(v) else {
                    throw bad("'\(key)' must be whole milliseconds from \(range.lowerBound) to \(range.upperBound) (e.g. \(key)=\(example)), not '\(value)'")
                }
                return v
            }
            switch key {
            case "buffer": bufferMs = try milliseconds(0...60_000, example: "1000")
            case "latency": latencyMs = try milliseconds(-10_000...10_000, example: "30")
            case "chunk": chunkMs = try milliseconds(1...1000, example: "20")
            case "format":
                let f = value.split(separator: ":")
                guard f.count == 3, let rate = Int(f[0]), (8000...384_000).contains(rate), f[1] == "16",
                    let channels = Int(f[2]), (1...8).contains(channels)
                else {
                    throw bad("'format' must be RATE:16:CHANNELS as snapserver's sampleformat (e.g. format=48000:16:2), not '\(value)'; the clock sends 16-bit samples")
                }
                format = StreamFormat(sampleRate: rate, channels: channels)
            case "control":
                if value == "off" {
                    controlPort = nil
                } else {
                    guard let v = Int(value), (1...65535).contains(v) else {
                        throw bad("'control' must be snapserver's JSON-RPC port (e.g. control=1705) or off, not '\(value)'")
                    }
                    controlPort = v
                }
            case "meta":
                guard let m = Meta(rawValue: value) else { throw bad("'meta' must be auto, yes or no, not '\(value)'") }
                meta = m
            default:
                throw bad("unknown option '\(key)' (known: buffer, latency, chunk, format, control, meta)")
            }
        }
    }

    /// `host:port` as a person reads it.
    public var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
