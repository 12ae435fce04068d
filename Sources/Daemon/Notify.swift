import ConfigFiles
import EventLoop
import FoundationEssentials
import Glibc

/// systemd's notification protocol (`sd_notify`): datagrams to `$NOTIFY_SOCKET`. Without
/// systemd the variable is unset and every call does nothing.
public struct SystemdNotifier {
    private let path: String?
    /// Half the watchdog interval, if systemd asked for pings.
    public let watchdogInterval: Double?

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        path = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        if let usec = environment["WATCHDOG_USEC"].flatMap(Double.init),
            environment["WATCHDOG_PID"].flatMap(Int32.init).map({ $0 == getpid() }) ?? true
        {
            watchdogInterval = usec / 1e6 / 2
        } else {
            watchdogInterval = nil
        }
    }

    public func send(_ message: String) {
        guard let path else { return }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return }
        defer { Glibc.close(fd) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }  // abstract namespace
        let capacity = MemoryLayout.size(ofValue: addr.sun_path)
        guard bytes.count < capacity else { return }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (bytes.first == 0 ? 0 : 1))
        _ = message.withCString { text in
            withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, text, strlen(text), Int32(MSG_NOSIGNAL), $0, length)
                }
            }
        }
    }
}
