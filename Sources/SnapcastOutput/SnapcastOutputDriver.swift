import Playback
import TalkingClockCore

/// Snapcast in the output registry: every `snapcast://HOST:PORT?…` device name.
///
/// Preparing resolves the host and asks snapserver's JSON-RPC for the source's chunk, format and
/// meta stream (within `rpcTimeout`; the registry's callers run it off the event loop). It holds
/// no connection (each announcement is its own), so keeping it between announcements costs
/// nothing and saves the next one the question.
public struct SnapcastOutputDriver: OutputDriver {
    /// The JSON-RPC question's bound, inside the daemon's 2 s bound on a device call.
    public static let rpcTimeout = 0.8

    public init() {}
    public var name: String { "snapcast" }
    public func serves(_ device: String) -> Bool { SnapcastEndpoint.matches(device) }

    public func prepare(_ device: String) throws(SinkError) -> any PreparedOutput {
        SnapcastPrepared(try SnapcastTarget.prepare(try SnapcastEndpoint(device), timeout: Self.rpcTimeout))
    }

    public func sink(_ device: String, format: StreamFormat, prepared: (any PreparedOutput)?) throws(SinkError)
        -> any AudioSink
    {
        if let ready = prepared as? SnapcastPrepared, ready.deviceName == device {
            return try SnapcastSink(target: ready.target, format: format)
        }
        return try SnapcastSink(target: try SnapcastTarget.prepare(try SnapcastEndpoint(device), timeout: Self.rpcTimeout), format: format)
    }

    /// The buffer, a chunk, the clients' warm-up and (unless the device says `meta=no`) a meta
    /// stream's lead-in: `SnapcastTarget.openAhead` from the device's own options. An unparsable
    /// name needs none (opening it fails anyway).
    public func leadTime(_ device: String) -> Double {
        guard let endpoint = try? SnapcastEndpoint(device) else { return 0 }
        return SnapcastTarget.openAhead(endpoint, chunkMs: endpoint.chunkMs ?? SnapcastEndpoint.defaultChunkMs, meta: endpoint.meta != .no)
    }

    /// Prepares and connects to the source (and lets go): whether the clock could play there now.
    public func probe(_ device: String, format: StreamFormat) throws(SinkError) {
        try SnapcastSink.probe(try SnapcastTarget.prepare(try SnapcastEndpoint(device), timeout: Self.rpcTimeout))
    }
}

/// A Snapcast target made ready ahead of an announcement (no connection held).
public final class SnapcastPrepared: PreparedOutput {
    public let target: SnapcastTarget
    public var deviceName: String { target.endpoint.name }
    public var worthKeeping: Bool { true }

    public init(_ target: SnapcastTarget) { self.target = target }
}
