/// What a sender of pushes needs of an APNs client: send one push, close the connection (APNSwift's
/// `APNSClientProtocol` is as small). ``APNsClient`` sends over HTTP/2; a test's stand-in answers without sockets.
public protocol APNsSending: Sendable {
    /// Sends one push. Never throws: every APNs answer and transport failure is classified in the result.
    func send(_ push: APNsPush) async -> APNsResult
    /// Closes the connection. Sends after this return a retryable error.
    func shutdown() async throws
}

extension APNsClient: APNsSending {}
