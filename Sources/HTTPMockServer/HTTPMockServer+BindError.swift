#if Server
import Foundation
import HTTPMock
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension HTTPMock {
    /// A bind failure as an ``HTTPMockError`` naming the address and the cause, instead of
    /// NIO's text (`bind(descriptor:ptr:bytes:): Address already in use (errno: 98)`).
    static func bindError(_ error: any Error, host: String, port: Int) -> HTTPMockError {
        let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let cause: String
        if let io = error as? IOError {
            switch io.errnoCode {
            case EADDRINUSE: cause = "\(address) is already in use (another process listens there; port: 0 picks a free port)"
            case EADDRNOTAVAIL: cause = "\(address) is not an address of this machine"
            case EACCES, EPERM: cause = "\(address) needs privileges this process does not have (ports below 1024 usually do)"
            default: cause = "\(address) cannot be bound: \(String(cString: strerror(io.errnoCode)))"
            }
        } else if error is SocketAddressError {
            cause = "\(address) cannot be bound: \(host.debugDescription) is not an address or a host name this machine resolves"
        } else {
            cause = "\(address) cannot be bound: \(error)"
        }
        return HTTPMockError(.invalidRegistration, "startServer: \(cause)")
    }
}
#endif
