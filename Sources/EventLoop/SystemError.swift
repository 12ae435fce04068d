import Glibc

/// A system call failed; names the call and the errno text.
public struct SystemError: Error, CustomStringConvertible, Sendable {
    public var call: String
    public var code: Int32
    public var context: String

    public init(_ call: String, code: Int32 = errno, context: String = "") {
        self.call = call
        self.code = code
        self.context = context
    }

    public var description: String {
        "\(context.isEmpty ? "" : context + ": ")\(call) failed: \(String(cString: strerror(code))) (errno \(code))"
    }
}
