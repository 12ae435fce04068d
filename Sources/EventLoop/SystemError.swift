import Glibc

/// A system call failed; names the call and the errno text.
public struct SystemError: Error, CustomStringConvertible, Sendable {
    public var call: String
    public var code: Int32
    public var context: String
    /// A refusal, not a failed call: `context` is the whole sentence.
    public var isRefusal = false

    public init(_ call: String, code: Int32 = errno, context: String = "") {
        self.call = call
        self.code = code
        self.context = context
    }

    /// A check that refused (a directory open to others): the sentence says why and what to do,
    /// with no "call failed" after it.
    public static func refusal(_ sentence: String, code: Int32 = EPERM) -> SystemError {
        var error = SystemError("", code: code, context: sentence)
        error.isRefusal = true
        return error
    }

    public var description: String {
        if isRefusal { return context }
        return "\(context.isEmpty ? "" : context + ": ")\(call) failed: \(String(cString: strerror(code))) (errno \(code))"
    }
}
