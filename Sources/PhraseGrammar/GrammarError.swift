/// A problem with a language file or a request to a grammar, phrased for the user: what is wrong,
/// where, and what would fix it.
public struct GrammarError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The file is not valid JSON or does not follow the format (Languages/README.md).
        case badFile
        /// A tag, phrasing, lead-in or option the grammar does not have.
        case unknown
        /// The rules say nothing, or name a form a table does not have, for some time of day.
        case noPhrase
        /// A date or a value the clock does not say (a day 32, a value of 1000).
        case outOfRange
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
