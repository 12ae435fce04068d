import CMosquitto

/// Every libmosquitto function the MQTT target uses, wrapped once (swift-system's `Syscalls.swift`
/// pattern): the rest of the target never calls C directly. Each returns the library's own code
/// (`MOSQ_ERR_*`) or value unchanged; `MQTTClient` turns codes into `MQTTError`s.
enum Mosquitto {
    typealias Handle = OpaquePointer

    /// `mosquitto_lib_init`, exactly once per process (the Swift `static let` initialiser is run
    /// once, thread-safely). Not thread-safe in C, and it seeds OpenSSL.
    static let initialised: Void = { _ = mosquitto_lib_init() }()

    /// `mosquitto_new`: clean session, no user data yet (set once the Swift owner exists).
    static func new(clientID: String) -> Handle? { mosquitto_new(clientID, true, nil) }

    /// `mosquitto_destroy`: closes the socket (and libmosquitto's internal socketpair).
    static func destroy(_ m: Handle) { mosquitto_destroy(m) }

    /// `mosquitto_user_data_set`: the pointer handed back to every callback.
    static func setUserData(_ m: Handle, _ p: UnsafeMutableRawPointer?) { mosquitto_user_data_set(m, p) }

    /// `mosquitto_will_set`: the Last Will, published by the broker if we vanish without DISCONNECT.
    static func willSet(_ m: Handle, topic: String, payload: [UInt8], qos: Int32, retain: Bool) -> Int32 {
        payload.withUnsafeBytes { mosquitto_will_set(m, topic, Int32($0.count), $0.baseAddress, qos, retain) }
    }

    /// `mosquitto_username_pw_set`.
    static func usernamePasswordSet(_ m: Handle, username: String, password: String?) -> Int32 {
        mosquitto_username_pw_set(m, username, password)
    }

    /// `mosquitto_tls_set`: a CA file only (no client certificate); the peer certificate and its
    /// host name are verified (libmosquitto's default, `mosquitto_tls_insecure_set` is never called).
    static func tlsSet(_ m: Handle, caFile: String) -> Int32 { mosquitto_tls_set(m, caFile, nil, nil, nil, nil) }

    /// `mosquitto_connect_async`: opens a non-blocking socket and queues CONNECT. Host name
    /// resolution (getaddrinfo) still blocks: pass an address or a name in /etc/hosts.
    static func connectAsync(_ m: Handle, host: String, port: Int32, keepalive: Int32) -> Int32 {
        mosquitto_connect_async(m, host, port, keepalive)
    }

    /// `mosquitto_reconnect_async`: the same broker and options as the last connect.
    static func reconnectAsync(_ m: Handle) -> Int32 { mosquitto_reconnect_async(m) }

    /// `mosquitto_disconnect`: queues DISCONNECT (no Last Will) and closes the socket.
    static func disconnect(_ m: Handle) -> Int32 { mosquitto_disconnect(m) }

    /// `mosquitto_socket`: the descriptor to watch, -1 when not connected.
    static func socket(_ m: Handle) -> Int32 { mosquitto_socket(m) }

    /// `mosquitto_want_write`: there are queued bytes (or TLS wants to write).
    static func wantWrite(_ m: Handle) -> Bool { mosquitto_want_write(m) }

    /// `mosquitto_loop_read`: reads and dispatches what the socket has (runs callbacks).
    static func loopRead(_ m: Handle) -> Int32 { mosquitto_loop_read(m, 1) }

    /// `mosquitto_loop_write`: writes queued packets.
    static func loopWrite(_ m: Handle) -> Int32 { mosquitto_loop_write(m, 1) }

    /// `mosquitto_loop_misc`: keepalive (sends PINGREQ, or drops a connection whose ping went
    /// unanswered for a whole interval).
    static func loopMisc(_ m: Handle) -> Int32 { mosquitto_loop_misc(m) }

    /// `mosquitto_publish`: queues a PUBLISH (written now if the socket takes it).
    static func publish(_ m: Handle, topic: String, payload: [UInt8], qos: Int32, retain: Bool) -> Int32 {
        payload.withUnsafeBytes { mosquitto_publish(m, nil, topic, Int32($0.count), $0.baseAddress, qos, retain) }
    }

    /// `mosquitto_subscribe`.
    static func subscribe(_ m: Handle, pattern: String, qos: Int32) -> Int32 {
        mosquitto_subscribe(m, nil, pattern, qos)
    }

    /// `mosquitto_strerror`: the text for a `MOSQ_ERR_*` code.
    static func strerror(_ code: Int32) -> String { String(cString: mosquitto_strerror(code)) }

    /// `mosquitto_connack_string`: the text for a CONNACK return code.
    static func connackString(_ code: Int32) -> String { String(cString: mosquitto_connack_string(code)) }

    /// `mosquitto_connect_callback_set`.
    static func connectCallbackSet(
        _ m: Handle, _ cb: @escaping @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void
    ) { mosquitto_connect_callback_set(m, cb) }

    /// `mosquitto_disconnect_callback_set`.
    static func disconnectCallbackSet(
        _ m: Handle, _ cb: @escaping @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void
    ) { mosquitto_disconnect_callback_set(m, cb) }

    /// `mosquitto_message_callback_set`.
    static func messageCallbackSet(
        _ m: Handle,
        _ cb:
            @escaping @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafePointer<mosquitto_message>?) ->
            Void
    ) { mosquitto_message_callback_set(m, cb) }

    static let success = Int32(MOSQ_ERR_SUCCESS.rawValue)
    static let errErrno = Int32(MOSQ_ERR_ERRNO.rawValue)
}
