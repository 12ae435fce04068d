/// "Did you mean …?" for unknown keys, values, commands and zone names.
public enum Suggestion {
    /// The candidate closest to `word`, if it is close enough to be a plausible typo.
    ///
    /// Spelling variants that differ only in case, `-` or `_` ("lead_in", "LateLimit") match
    /// outright; otherwise the optimal-string-alignment distance (a swap of two neighbours counts
    /// as one edit) must be small for the word's length.
    public static func closest(to word: String, in candidates: some Sequence<String>) -> String? {
        let normalized = normalize(word)
        let scalars = Array(word.lowercased().unicodeScalars)
        let limit = scalars.count <= 3 ? 1 : scalars.count <= 8 ? 2 : 3
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            if normalize(candidate) == normalized { return candidate }
            let other = Array(candidate.lowercased().unicodeScalars)
            // The distance is at least the difference in length: skip hopeless pairs without the
            // quadratic work (a 500-byte garbage request must stay cheap).
            guard abs(other.count - scalars.count) <= limit else { continue }
            let d = distance(scalars, other)
            if d <= limit && d < (best?.distance ?? .max) { best = (candidate, d) }
        }
        return best?.candidate
    }

    static func normalize(_ s: String) -> String {
        String(s.lowercased().unicodeScalars.filter { $0 != "-" && $0 != "_" && $0 != " " })
    }

    /// Optimal string alignment distance (Levenshtein plus adjacent transpositions).
    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            swap(&previous2, &previous)  // rotate rows: previous2 ← previous ← current
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    /// `"a", "b" or "c"` for messages.
    static func list(_ items: [String], quoted: Bool = true, conjunction: String = "or") -> String {
        let shown = quoted ? items.map { "\"\($0)\"" } : items
        guard shown.count > 1 else { return shown.first ?? "" }
        return shown.dropLast().joined(separator: ", ") + " \(conjunction) " + shown[shown.count - 1]
    }
}
