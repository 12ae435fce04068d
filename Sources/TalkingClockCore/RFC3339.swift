import FoundationEssentials

/// Reading instants the way users type them on the command line.
public enum InstantParser {
    /// A parse failure, phrased for the user.
    public struct Failure: Error, CustomStringConvertible, Hashable, Sendable {
        public var description: String
    }

    /// Parses RFC 3339 (`2026-11-01T01:30:00-05:00`, `…Z`) or a local time without offset
    /// (`2026-11-01T01:30`, read in `zone`; the earlier occurrence when it is ambiguous).
    public static func parse(_ text: String, in zone: Zone) throws(Failure) -> Double {
        let s = Array(text.utf8)
        var i = 0
        func number(_ digits: Int) -> Int? {
            guard i + digits <= s.count else { return nil }
            var v = 0
            for k in 0..<digits {
                let c = s[i + k]
                guard c >= 48 && c <= 57 else { return nil }
                v = v * 10 + Int(c - 48)
            }
            i += digits
            return v
        }
        func expect(_ chars: String) -> Bool {
            guard i < s.count, chars.utf8.contains(s[i]) else { return false }
            i += 1
            return true
        }
        let bad = Failure(
            description: "\"\(text)\" is not a date and time: use RFC 3339 such as 2026-11-01T01:30:00-05:00, "
                + "2026-11-01T06:30:00Z, or a local time such as 2026-11-01T01:30.")
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
            expect("Tt "), let hour = number(2), expect(":"), let minute = number(2)
        else { throw bad }
        var second = 0
        var fraction = 0.0
        if expect(":") {
            guard let sec = number(2) else { throw bad }
            second = sec
            if expect(".,") {
                var scale = 0.1
                let start = i
                while i < s.count, s[i] >= 48 && s[i] <= 57 {
                    fraction += Double(s[i] - 48) * scale
                    scale /= 10
                    i += 1
                }
                if i == start { throw bad }
            }
        }
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { throw bad }
        let daysInMonth = CivilTime.days(year: month == 12 ? year + 1 : year, month: month % 12 + 1, day: 1)
            - CivilTime.days(year: year, month: month, day: 1)
        guard day <= daysInMonth else {
            throw Failure(description: "\"\(text)\": \(pad(year, 4))-\(pad(month, 2)) has only \(daysInMonth) days.")
        }
        let civil = CivilTime.days(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
        if i == s.count {
            let candidates = CivilTime.instants(
                year: year, month: month, day: day, hour: hour, minute: minute, second: second, in: zone)
            guard let first = candidates.first else {
                throw Failure(
                    description: "\"\(text)\" does not exist in \(zone.identifier) (the clocks jump over it); "
                        + "give an offset such as \(text)\(CivilTime.formatOffset(zone.offset(at: civil))) or another time.")
            }
            return Double(first) + fraction
        }
        if expect("Zz") {
            guard i == s.count else { throw bad }
            return Double(civil) + fraction
        }
        guard i < s.count else { throw bad }
        let sign = s[i] == UInt8(ascii: "-") ? -1 : 1
        guard expect("+-"), let oh = number(2), expect(":"), let om = number(2), i == s.count, oh < 24, om < 60 else {
            throw bad
        }
        return Double(civil - sign * (oh * 3600 + om * 60)) + fraction
    }

    /// Parses `HH:MM` (24-hour).
    public static func parseClockTime(_ text: String) throws(Failure) -> (hour: Int, minute: Int) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ (1...2).contains($0.count) && $0.allSatisfy { $0 >= "0" && $0 <= "9" } }),
            let h = Int(parts[0]), let m = Int(parts[1]), (0..<24).contains(h), (0..<60).contains(m), parts[1].count == 2
        else {
            throw Failure(description: "\"\(text)\" is not a time of day: use 24-hour HH:MM, such as 07:30 or 15:45.")
        }
        return (h, m)
    }
}
