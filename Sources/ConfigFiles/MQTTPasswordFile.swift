import FoundationEssentials
import Glibc
import TalkingClockCore

/// The `[mqtt]` table's `password-file`: read by the daemon and by the CLI's `rooms` and
/// `--everywhere`, never a file others can read.
public enum MQTTPasswordFile {
    /// The password (nil without a file), refusing a file that group or others can read.
    public static func read(_ config: MQTTConfig, configPath: String?) throws(DaemonStartError) -> String? {
        var password: String?
        if let file = config.passwordFile {
            let origin = config.passwordFileOrigin ?? configPath ?? "config"
            var path = file
            if !path.hasPrefix("/"), let configPath {
                path = URL(fileURLWithPath: configPath).deletingLastPathComponent().appendingPathComponent(file).path
            }
            var st = stat()
            guard stat(path, &st) == 0 else {
                throw DaemonStartError(
                    status: .badInput,
                    description:
                        "\(origin): the MQTT password file \(path) cannot be read (\(String(cString: strerror(errno)))); create it with the password on one line and 'chmod 600 \(path)'.")
            }
            guard st.st_mode & 0o077 == 0 else {
                throw DaemonStartError(
                    status: .badInput,
                    description:
                        "\(origin): the MQTT password file \(path) can be read by other users (mode \(String(st.st_mode & 0o777, radix: 8))); run 'chmod 600 \(path)'.")
            }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw DaemonStartError(
                    status: .badInput,
                    description: "\(origin): the MQTT password file \(path) cannot be read; check that it is a file you own.")
            }
            let text = String(decoding: data, as: UTF8.self)
            password = String(text.split(separator: "\n", omittingEmptySubsequences: false).first ?? "")
        }
        return password
    }
}
