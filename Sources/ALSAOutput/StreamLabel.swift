#if canImport(Glibc)
    import Glibc
#endif

/// Names the clock's own stream on the sound server, so a user can see it, route it, give it
/// its own volume or duck it by role (docs/desktop.md): `application.name` and `application.id`
/// "talking-clock", and with `[courtesy] role` its `media.role`.
///
/// ALSA's PulseAudio plugin connects with libpulse at `snd_pcm_open`, and libpulse merges
/// `PULSE_PROP` into the client's properties, then `PULSE_PROP_OVERRIDE` over them; the plugin
/// names the client "ALSA plug-in [program]", which wins over `PULSE_PROP` (measured), so the
/// label goes into `PULSE_PROP_OVERRIDE`. A key the user set in either variable keeps the user's
/// value (copied into the override, so it too wins over the plugin's name). PipeWire's ALSA
/// plugin reads `PIPEWIRE_ALSA` and `PIPEWIRE_PROPS`; one the user set is left exactly as it is.
/// A plain `hw:` device reads none of them and costs nothing.
public enum StreamLabel {
    public static let applicationName = "talking-clock"
    public static let applicationID = "talking-clock"

    /// The variables to set, given the current environment (pure: a test compares values).
    public static func variables(role: String?, environment: [String: String]) -> [String: String] {
        var wanted: [(String, String)] = [("application.name", applicationName), ("application.id", applicationID)]
        if let role, !role.isEmpty { wanted.append(("media.role", role)) }
        var result: [String: String] = [:]

        let override = environment["PULSE_PROP_OVERRIDE"] ?? ""
        let overridden = Set(pulsePropPairs(override).map(\.key))
        let userPairs = pulsePropPairs(environment["PULSE_PROP"] ?? "")
        var added: [String] = []
        for (key, value) in wanted where !overridden.contains(key) {
            added.append(userPairs.last { $0.key == key }?.text ?? "\(key)=\(value)")
        }
        if !added.isEmpty {
            result["PULSE_PROP_OVERRIDE"] = ([override].filter { !$0.isEmpty } + added).joined(separator: " ")
        }
        let pipewire = "{ " + wanted.map { "\($0.0)=\"\($0.1)\"" }.joined(separator: " ") + " }"
        for name in ["PIPEWIRE_ALSA", "PIPEWIRE_PROPS"] where (environment[name] ?? "").isEmpty {
            result[name] = pipewire
        }
        return result
    }

    /// Sets `variables(role:environment:)` in this process's environment. Call once at start,
    /// before any thread exists and before the first `snd_pcm_open` (setenv is not thread-safe).
    public static func apply(role: String?, environment: [String: String]) {
        for (name, value) in variables(role: role, environment: environment) {
            setenv(name, value, 1)
        }
    }

    /// The `key=value` pairs of a `PULSE_PROP` string, separated by spaces, values possibly
    /// quoted with '…' or "…" (`pa_proplist_from_string`); `text` is the pair as written.
    static func pulsePropPairs(_ text: String) -> [(key: String, text: String)] {
        var pairs: [(key: String, text: String)] = []
        var i = text.startIndex
        while i < text.endIndex {
            while i < text.endIndex, text[i] == " " || text[i] == "\t" { i = text.index(after: i) }
            guard i < text.endIndex else { break }
            let keyStart = i
            while i < text.endIndex, text[i] != "=", text[i] != " " { i = text.index(after: i) }
            let key = String(text[keyStart..<i])
            defer { pairs.append((key, String(text[keyStart..<i]))) }
            guard i < text.endIndex, text[i] == "=" else { continue }
            i = text.index(after: i)
            if i < text.endIndex, text[i] == "'" || text[i] == "\"" {
                let quote = text[i]
                i = text.index(after: i)
                while i < text.endIndex, text[i] != quote { i = text.index(after: i) }
                if i < text.endIndex { i = text.index(after: i) }
            } else {
                while i < text.endIndex, text[i] != " " { i = text.index(after: i) }
            }
        }
        return pairs
    }
}
