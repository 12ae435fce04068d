import CMosquitto

/// Every libmosquitto function the MQTT target uses, wrapped once (swift-system's `Syscalls.swift`
/// pattern): the rest of the target never calls C directly. Each returns the library's own code
/// (`MOSQ_ERR_*`) or value unchanged; `MQTTClient` turns codes into `MQTTError`s.
/// The library is not linked: `CMosquitto` loads libmosquitto.so.1 on first use (dlopen), and
/// `MQTTClient` checks `loadFailure` before it calls anything else here.
enum Mosquitto {
    typealias Handle = OpaquePointer

    /// Loads libmosquitto and runs `mosquitto_lib_init`, exactly once per process (in C, under
    /// `pthread_once`: lib_init is not thread-safe, and it seeds OpenSSL). nil when loaded, else a
    /// sentence with dlerror's text and the fix ("apt install libmosquitto1").
    static var loadFailure: String? { tc_mosquitto_load().map { String(cString: $0) } }

    /// `mosquitto_new`: clean session, no user data yet (set once the Swift owner exists).
    static func new(clientID: String) -> Handle? { tc_mosquitto_new(clientID, true, nil) }

    /// `mosquitto_destroy`: closes the socket (and libmosquitto's internal socketpair).
    static func destroy(_ m: Handle) { tc_mosquitto_destroy(m) }

    /// `mosquitto_user_data_set`: the pointer handed back to every callback.
    static func setUserData(_ m: Handle, _ p: UnsafeMutableRawPointer?) { tc_mosquitto_user_data_set(m, p) }

    /// `mosquitto_will_set`: the Last Will, published by the broker if we vanish without DISCONNECT.
    static func willSet(_ m: Handle, topic: String, payload: [UInt8], qos: Int32, retain: Bool) -> Int32 {
        payload.withUnsafeBytes { tc_mosquitto_will_set(m, topic, Int32($0.count), $0.baseAddress, qos, retain) }
    }

    /// `mosquitto_username_pw_set`.
    static func usernamePasswordSet(_ m: Handle, username: String, password: String?) -> Int32 {
        tc_mosquitto_username_pw_set(m, username, password)
    }

    /// `mosquitto_tls_set`: a CA file only (no client certificate); the peer certificate and its
    /// host name are verified (libmosquitto's default, `mosquitto_tls_insecure_set` is never called).
    static func tlsSet(_ m: Handle, caFile: String) -> Int32 { tc_mosquitto_tls_set(m, caFile, nil, nil, nil, nil) }

    /// `mosquitto_connect_async`: opens a non-blocking socket and queues CONNECT. Host name
    /// resolution (getaddrinfo) still blocks: pass an address or a name in /etc/hosts.
    static func connectAsync(_ m: Handle, host: String, port: Int32, keepalive: Int32) -> Int32 {
        tc_mosquitto_connect_async(m, host, port, keepalive)
    }

    /// `mosquitto_reconnect_async`: the same broker and options as the last connect.
    static func reconnectAsync(_ m: Handle) -> Int32 { tc_mosquitto_reconnect_async(m) }

    /// `mosquitto_disconnect`: queues DISCONNECT (no Last Will) and closes the socket.
    static func disconnect(_ m: Handle) -> Int32 { tc_mosquitto_disconnect(m) }

    /// `mosquitto_socket`: the descriptor to watch, -1 when not connected.
    static func socket(_ m: Handle) -> Int32 { tc_mosquitto_socket(m) }

    /// `mosquitto_want_write`: there are queued bytes (or TLS wants to write).
    static func wantWrite(_ m: Handle) -> Bool { tc_mosquitto_want_write(m) }

    /// `mosquitto_loop_read`: reads and dispatches what the socket has (runs callbacks). Guarded in
    /// C: where libmosquitto would abort the process on the bytes it reads (an MQTT 5 property it
    /// does not know), it returns `aborted` instead; the connection must then be dropped.
    static func loopRead(_ m: Handle) -> Int32 { tc_mosquitto_loop_read(m, 1) }

    /// `loopRead`'s code for a packet libmosquitto aborted on (not a `MOSQ_ERR_*`).
    static let aborted = Int32(TC_MOSQ_ERR_ABORTED)

    /// `mosquitto_loop_write`: writes queued packets.
    static func loopWrite(_ m: Handle) -> Int32 { tc_mosquitto_loop_write(m, 1) }

    /// `mosquitto_loop_misc`: keepalive (sends PINGREQ, or drops a connection whose ping went
    /// unanswered for a whole interval).
    static func loopMisc(_ m: Handle) -> Int32 { tc_mosquitto_loop_misc(m) }

    /// `mosquitto_publish`: queues a PUBLISH (written now if the socket takes it).
    static func publish(_ m: Handle, topic: String, payload: [UInt8], qos: Int32, retain: Bool) -> Int32 {
        payload.withUnsafeBytes { tc_mosquitto_publish(m, nil, topic, Int32($0.count), $0.baseAddress, qos, retain) }
    }

    /// `mosquitto_subscribe`.
    static func subscribe(_ m: Handle, pattern: String, qos: Int32) -> Int32 {
        tc_mosquitto_subscribe(m, nil, pattern, qos)
    }

    /// `mosquitto_int_option(MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5)`: before connecting.
    static func useMQTT5(_ m: Handle) -> Int32 {
        tc_mosquitto_int_option(m, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5)
    }

    /// `mosquitto_subscribe_v5` with the subscription options (`MQTT_SUB_OPT_*`).
    static func subscribe(_ m: Handle, pattern: String, qos: Int32, options: Int32) -> Int32 {
        tc_mosquitto_subscribe_v5(m, nil, pattern, qos, options)
    }

    /// `mosquitto_reason_string`: the text for an MQTT 5 reason code (a CONNACK refusal).
    static func reasonString(_ code: Int32) -> String { String(cString: tc_mosquitto_reason_string(code)) }

    static let retainAsPublished = Int32(MQTT_SUB_OPT_RETAIN_AS_PUBLISHED.rawValue)

    /// `mosquitto_strerror`: the text for a `MOSQ_ERR_*` code.
    static func strerror(_ code: Int32) -> String { String(cString: tc_mosquitto_strerror(code)) }

    /// `mosquitto_connack_string`: the text for a CONNACK return code.
    static func connackString(_ code: Int32) -> String { String(cString: tc_mosquitto_connack_string(code)) }

    /// `mosquitto_connect_callback_set`.
    static func connectCallbackSet(
        _ m: Handle, _ cb: @escaping @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void
    ) { tc_mosquitto_connect_callback_set(m, cb) }

    /// `mosquitto_disconnect_callback_set`.
    static func disconnectCallbackSet(
        _ m: Handle, _ cb: @escaping @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void
    ) { tc_mosquitto_disconnect_callback_set(m, cb) }

    /// `mosquitto_message_callback_set`.
    static func messageCallbackSet(
        _ m: Handle,
        _ cb:
            @escaping @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafePointer<mosquitto_message>?) ->
            Void
    ) { tc_mosquitto_message_callback_set(m, cb) }

    static let success = Int32(MOSQ_ERR_SUCCESS.rawValue)
    static let errErrno = Int32(MOSQ_ERR_ERRNO.rawValue)
}
