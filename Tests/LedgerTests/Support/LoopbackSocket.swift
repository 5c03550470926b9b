import Glibc

// MARK: - Loopback sockets

/// A TCP socket bound to 127.0.0.1 on a port the kernel picks (listening when `listening`), and
/// that port. The caller closes the descriptor.
func loopbackSocket(listening: Bool) throws -> (fd: Int32, port: UInt16) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw SystemTestError("socket failed") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
            bind(fd, raw, length) == 0 && (!listening || listen(fd, 8) == 0) && getsockname(fd, raw, &length) == 0
        }
    }
    guard bound else {
        close(fd)
        throw SystemTestError("could not bind a socket on 127.0.0.1")
    }
    return (fd, UInt16(bigEndian: address.sin_port))
}

/// Runs `body` with the port of a TCP listener on 127.0.0.1 that takes connections into its
/// backlog and never answers (a hung server, as a client sees it).
func withSilentListener(_ body: (UInt16) throws -> Void) throws {
    let (fd, port) = try loopbackSocket(listening: true)
    defer { close(fd) }
    try body(port)
}
