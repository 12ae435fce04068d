/// Numbers with a fixed count of decimals ("0.734", "+1.250") without `String(format:)`, which
/// exists only in full Foundation (the targets are moving to FoundationEssentials).
public enum FixedDecimal {
    /// `value` rounded to `places` decimals (0…9); with `plus`, positive values get a `+`.
    /// Not finite: "nan", "inf", "-inf".
    public static func text(_ value: Double, places: Int, plus: Bool = false) -> String {
        guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
        let places = min(max(places, 0), 9)
        var scale: Int64 = 1
        for _ in 0..<places { scale *= 10 }
        let scaled = (abs(value) * Double(scale)).rounded()
        guard scaled < 9e18 else { return String(value) }
        let units = Int64(scaled)
        let sign = value < 0 && units != 0 ? "-" : (plus ? "+" : "")
        let whole = String(units / scale)
        guard places > 0 else { return sign + whole }
        let fraction = String(units % scale)
        return sign + whole + "." + String(repeating: "0", count: places - fraction.count) + fraction
    }
}
