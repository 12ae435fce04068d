import FoundationEssentials

/// The one JSON encoding of the values the clock reports (`status json`, MQTT `state` and
/// `event`): keys sorted, no spaces, '/' not escaped, every string escaped by `JSONEncoder`.
public enum ReportJSON {
    public static func encode<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding these plain values cannot fail (no non-finite numbers: see `milliseconds`).
        guard let data = try? encoder.encode(value) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Milliseconds to the microsecond (as the log shows them), and never NaN or infinite.
    public static func milliseconds(_ ms: Double?) -> Double? {
        guard let ms, ms.isFinite else { return nil }
        return (ms * 1000).rounded() / 1000
    }
}
