import Foundation
import TalkingClockCore

extension ClockDaemon {
    /// Config files larger than this are not a config file (and `--config /dev/zero` must not
    /// read forever).
    static let maximumConfigSize = 1 << 20

    /// The config file as text: unreadable, oversized and non-UTF-8 files are errors that say which.
    static func readConfigText(_ path: String) throws(DaemonStartError) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw DaemonStartError(
                status: .badInput, description: "Could not read the config file \(path); check its permissions.")
        }
        defer { try? handle.close() }
        let data = [UInt8]((try? handle.read(upToCount: maximumConfigSize + 1)) ?? Data())
        guard data.count <= maximumConfigSize else {
            throw DaemonStartError(
                status: .badInput,
                description:
                    "The config file \(path) is larger than \(maximumConfigSize) bytes, so it is not a talking-clock config; point --config at the right file (see 'talking-clock config-example')."
            )
        }
        if let text = String(validating: data, as: UTF8.self) { return text }
        let lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
        let bad = (lines.firstIndex { String(validating: $0, as: UTF8.self) == nil } ?? 0) + 1
        throw DaemonStartError(
            status: .badInput,
            description:
                "\(path): line \(bad): the file is not UTF-8 text (it may be damaged or not a config file); a config is a TOML text file, see 'talking-clock config-example'."
        )
    }

}
