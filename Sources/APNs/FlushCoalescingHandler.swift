import NIOCore

/// Turns the many flushes of concurrent pushes on one connection into one flush per event-loop turn.
///
/// Every request stream flushes on its own, and each flush on the connection costs a TLS record and a `write` system
/// call. Placed between TLS and HTTP/2, this handler lets the frames of all streams written in the same turn of the
/// event loop go out together: fewer records, one system call.
/// A flush is only postponed to the end of the tasks already queued on the loop, so no frame waits for more traffic.
final class FlushCoalescingHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = NIOAny

    private var flushScheduled = false

    func flush(context: ChannelHandlerContext) {
        guard !flushScheduled else { return }
        flushScheduled = true
        context.eventLoop.assumeIsolated().execute {
            self.flushScheduled = false
            context.flush()
        }
    }
}
