import CAlsa
import Glibc

/// The playback devices ALSA names (what `aplay -L` lists): `snd_device_name_hint` over every
/// card and the configuration's named PCMs.
public enum ALSADevices {
    public struct Device: Hashable, Sendable {
        /// The name to pass as `device` / `--device` ("default", "hw:CARD=PCH,DEV=0", "pulse").
        public var name: String
        /// Its description, one line ("PulseAudio Sound Server", "HDA Intel PCH, ALC257 Analog").
        public var description: String
        /// The kind: a card (`hw:`/`plughw:`/`sysdefault:`/…), a sound server's plugin, or another
        /// plugin (rate converters, `null`).
        public var isCard: Bool
    }

    /// Every device that can play. Empty when ALSA lists none.
    public static func list() -> [Device] {
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        // snd_device_name_hint (card -1: every card and the global configuration)
        guard snd_device_name_hint(-1, "pcm", &hints) == 0, let hints else { return [] }
        defer { snd_device_name_free_hint(hints) }
        var devices: [Device] = []
        var i = 0
        while let hint = hints[i] {
            i += 1
            // snd_device_name_get_hint: malloc'ed strings, or NULL
            func field(_ id: String) -> String? {
                guard let p = snd_device_name_get_hint(hint, id) else { return nil }
                defer { free(p) }
                return String(cString: p)
            }
            guard let name = field("NAME") else { continue }
            if let io = field("IOID"), io == "Input" { continue }
            let description = (field("DESC") ?? "").split(separator: "\n").map(String.init).joined(separator: ", ")
            let isCard = ["hw:", "plughw:", "sysdefault:", "front:", "surround", "iec958:", "hdmi:", "dmix:", "dsnoop:", "usbstream:"]
                .contains { name.hasPrefix($0) }
            devices.append(Device(name: name, description: description, isCard: isCard))
        }
        return devices
    }
}
