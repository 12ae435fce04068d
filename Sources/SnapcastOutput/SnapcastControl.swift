#if canImport(Glibc)
    import Glibc
#endif
import JSON
import Playback
import TalkingClockCore

/// What snapserver's JSON-RPC control API (`Server.GetStatus`, TCP port 1705) says about its
/// streams and clients: enough to check a clock's source and to list the speakers.
public struct SnapcastServerStatus: Hashable, Sendable {
    public struct Stream: Hashable, Sendable {
        public var id: String
        /// "playing" or "idle".
        public var status: String
        /// "tcp", "pipe", "meta", …
        public var scheme: String
        /// The URI's host part ("127.0.0.1:4953" for a TCP source), and its path ("/clock/music"
        /// for a meta stream).
        public var host: String
        public var path: String
        public var query: [String: String]

        /// The TCP port of a `tcp://` source (its `port` option, else the host's port, else 4953).
        public var tcpPort: Int? {
            guard scheme == "tcp" else { return nil }
            if let p = query["port"].flatMap({ Int($0) }) { return p }
            if let colon = host.lastIndex(of: ":"), let p = Int(host[host.index(after: colon)...]) { return p }
            return 4953
        }

        /// The streams a meta stream plays from, in order of precedence.
        public var metaParts: [String] { scheme == "meta" ? path.split(separator: "/").map(String.init) : [] }
    }

    public struct Client: Hashable, Sendable {
        public var id: String
        public var name: String
        public var connected: Bool
        /// The stream its group plays.
        public var stream: String
        /// The client's own latency setting (ms), which it compensates itself.
        public var latencyMs: Int
    }

    public var version: String
    public var streams: [Stream]
    public var clients: [Client]
}

public enum SnapcastControl {
    /// `Server.GetStatus` from snapserver's TCP JSON-RPC at `host:port`, within `timeout` seconds
    /// in all (blocking: call it off the event loop).
    public static func status(host: String, port: Int, timeout: Double = 1) throws(SinkError) -> SnapcastServerStatus {
        let peer = "snapserver's JSON-RPC control port \(host.contains(":") ? "[\(host)]" : host):\(port)"
        let deadline = monotonic() + timeout
        let address = try ResolvedAddress.resolve(host: host, port: port)
        let connection = try TCPConnection(to: address, peer: peer)
        defer { connection.close() }
        try connection.waitEstablished(timeout: max(0.001, deadline - monotonic()))
        let request = Array("{\"id\":1,\"jsonrpc\":\"2.0\",\"method\":\"Server.GetStatus\"}\r\n".utf8)
        var offset = 0
        while offset < request.count {
            let result = try connection.send(request, from: offset)
            if case .sent(let n) = result { offset += n } else { try wait(connection.fd, POLLOUT, deadline, peer) }
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            if let n = try connection.receive(into: &buffer) {
                received += buffer[0..<n]
                while let newline = received.firstIndex(of: 0x0A) {
                    let line = Array(received[..<newline])
                    received.removeSubrange(...newline)
                    if let status = try parse(line, peer: peer) { return status }
                }
                guard received.count < 16 << 20 else { throw SinkError(.failed, "\(peer) sent more than 16 MB without an answer.") }
            } else {
                try wait(connection.fd, POLLIN, deadline, peer)
            }
        }
    }

    /// The answer to request 1 in one JSON line (nil: a notification, keep reading).
    static func parse(_ line: [UInt8], peer: String) throws(SinkError) -> SnapcastServerStatus? {
        guard line.contains(where: { $0 > 0x20 }) else { return nil }
        let tree: Any
        do { tree = try JSONTree.parse(line) } catch {
            throw SinkError(.failed, "\(peer) did not answer in JSON (\(error.description)); is it snapserver's control port (tcp port in snapserver.conf)?")
        }
        guard let message = tree as? [String: Any], message["id"] as? Int == 1 else { return nil }
        if let error = message["error"] { throw SinkError(.failed, "\(peer) refused Server.GetStatus: \(error).") }
        guard let server = (message["result"] as? [String: Any])?["server"] as? [String: Any] else {
            throw SinkError(.failed, "\(peer) answered Server.GetStatus without a server object.")
        }
        let version = ((server["server"] as? [String: Any])?["snapserver"] as? [String: Any])?["version"] as? String ?? "?"
        var streams: [SnapcastServerStatus.Stream] = []
        for case let s as [String: Any] in server["streams"] as? [Any] ?? [] {
            let uri = s["uri"] as? [String: Any] ?? [:]
            var query: [String: String] = [:]
            for (k, v) in uri["query"] as? [String: Any] ?? [:] { query[k] = v as? String ?? "\(v)" }
            streams.append(
                .init(
                    id: s["id"] as? String ?? "", status: s["status"] as? String ?? "", scheme: uri["scheme"] as? String ?? "",
                    host: uri["host"] as? String ?? "", path: uri["path"] as? String ?? "", query: query))
        }
        var clients: [SnapcastServerStatus.Client] = []
        for case let g as [String: Any] in server["groups"] as? [Any] ?? [] {
            let stream = g["stream_id"] as? String ?? ""
            for case let c as [String: Any] in g["clients"] as? [Any] ?? [] {
                let config = c["config"] as? [String: Any] ?? [:]
                let host = c["host"] as? [String: Any] ?? [:]
                let name = (config["name"] as? String).flatMap { $0.isEmpty ? nil : $0 } ?? host["name"] as? String ?? ""
                clients.append(
                    .init(
                        id: c["id"] as? String ?? "", name: name, connected: c["connected"] as? Bool ?? false, stream: stream,
                        latencyMs: config["latency"] as? Int ?? 0))
            }
        }
        return SnapcastServerStatus(version: version, streams: streams, clients: clients)
    }

    private static func wait(_ fd: Int32, _ events: Int32, _ deadline: Double, _ peer: String) throws(SinkError) {
        let left = deadline - monotonic()
        var p = pollfd(fd: fd, events: Int16(events), revents: 0)
        if left <= 0 || poll(&p, 1, Int32(max(1, left * 1000))) == 0 {
            throw SinkError(.failed, "\(peer) did not answer Server.GetStatus in time.")
        }
    }
}

/// CLOCK_MONOTONIC in seconds: the sink's pacing clock (wall-clock steps do not move it).
func monotonic() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
