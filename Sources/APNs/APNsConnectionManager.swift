import NIOCore
import NIOHPACK
import NIOHTTP2

/// Runs all sends of one client over one long-lived HTTP/2 connection, on one event loop.
///
/// Requests wait in `waiting` while there is no connection or the server's concurrent-stream limit is reached, and
/// start as streams when a slot frees up. After GOAWAY or a lost connection the next request connects again. Every
/// unanswered request sits in `unanswered`, ordered by deadline, so one timer serves all timeouts.
/// All state is touched only on `eventLoop`.
final class APNsConnectionManager: @unchecked Sendable {
    let eventLoop: any EventLoop
    private let connector: HTTP2Connector
    private let timeout: Duration
    private var current: APNsConnection?
    private var connecting: EventLoopFuture<APNsConnection>?
    private var open: [ObjectIdentifier: APNsConnection] = [:]
    private var waiting = CircularBuffer<PendingPush>()
    private var unanswered = CircularBuffer<PendingPush>()
    private var timer: Scheduled<Void>?
    private var timerDeadline = NIODeadline.distantFuture
    private var isShutDown = false

    init(eventLoop: any EventLoop, connector: HTTP2Connector, timeout: Duration) {
        self.eventLoop = eventLoop
        self.connector = connector
        self.timeout = timeout
    }

    /// Sends one request and waits for APNs' answer or the reason there is none.
    func execute(headers: HPACKHeaders, body: ByteBuffer?, deadline: NIODeadline) async -> Result<APNsResponse, any Error> {
        await withUnsafeContinuation { continuation in
            let push = PendingPush(headers: headers, body: body, deadline: deadline, continuation: continuation)
            eventLoop.execute { self.enqueue(push) }
        }
    }

    private func enqueue(_ push: PendingPush) {
        guard !isShutDown else { return push.complete(.failure(APNsTransportError.shutDown)) }
        track(push)
        waiting.append(push)
        startWaiting()
    }

    /// Starts waiting requests while the connection has free stream slots; connects when there is no connection.
    private func startWaiting() {
        guard let connection = current else {
            if connecting == nil, !waiting.isEmpty, !isShutDown { connect() }
            return
        }
        var started = false
        while connection.acceptsStreams, let push = waiting.popFirst() {
            guard !push.isDone else { continue }
            connection.start(push)
            started = true
        }
        if started { connection.flush() }
        if connection.isOutOfStreamIDs, !connection.goingAway {
            // The next connection takes the waiting pushes and the later ones.
            goingAway(connection)
        }
    }

    private func connect() {
        let future = connector.connect(on: eventLoop, manager: self)
        connecting = future
        future.assumeIsolated().whenComplete { result in
            self.connecting = nil
            switch result {
            case .success(let connection):
                guard !self.isShutDown else {
                    connection.channel.close(promise: nil)
                    return
                }
                self.open[ObjectIdentifier(connection)] = connection
                self.current = connection
                self.startWaiting()
            case .failure(let error):
                // The waiting sends get the real reason now (TLS trust, refused certificate), not a timeout later.
                while let push = self.waiting.popFirst() { push.complete(.failure(error)) }
                self.pruneAnswered()
            }
        }
    }

    // MARK: Connection events (called by the handlers on the event loop)

    func maxStreamsChanged(on connection: APNsConnection) {
        if connection === current { startWaiting() }
    }

    func goingAway(_ connection: APNsConnection) {
        connection.goingAway = true
        if connection === current {
            current = nil
            startWaiting()
        }
        if connection.openStreams == 0 { connection.channel.close(promise: nil) }
    }

    func streamClosed(on connection: APNsConnection) {
        pruneAnswered()
        if connection === current {
            startWaiting()
        } else if connection.goingAway, connection.openStreams == 0 {
            connection.channel.close(promise: nil)
        }
    }

    func connectionClosed(_ connection: APNsConnection) {
        open[ObjectIdentifier(connection)] = nil
        if connection === current {
            current = nil
            startWaiting()
        }
    }

    // MARK: Timeouts

    /// Files `push` by deadline: sends share one timeout, so only retries (which keep their first deadline) go
    /// anywhere but the end.
    private func track(_ push: PendingPush) {
        var index = unanswered.endIndex
        while index > unanswered.startIndex, unanswered[unanswered.index(before: index)].deadline > push.deadline {
            index = unanswered.index(before: index)
        }
        if index == unanswered.endIndex { unanswered.append(push) } else { unanswered.insert(push, at: index) }
        if timer == nil || push.deadline < timerDeadline { scheduleTimer() }
    }

    /// Sets the timer for the first deadline. A timer set for a request answered since just fires early and moves on.
    private func scheduleTimer() {
        timer?.cancel()
        timer = nil
        guard let first = unanswered.first else { return }
        timerDeadline = first.deadline
        timer = eventLoop.assumeIsolated().scheduleTask(deadline: first.deadline) { self.expire() }
    }

    /// Answers every request past its deadline as timed out and resets its stream, which frees the slot.
    private func expire() {
        timer = nil
        let now = NIODeadline.now()
        while let first = unanswered.first, first.isDone || first.deadline <= now {
            unanswered.removeFirst()
            guard !first.isDone else { continue }
            first.complete(.failure(APNsTransportError.timedOut(timeout)))
            if let stream = first.stream { stream.connection.reset(stream.id) }
        }
        scheduleTimer()
    }

    /// Drops answered requests from the front; the timer stays as it is.
    private func pruneAnswered() {
        while let first = unanswered.first, first.isDone { unanswered.removeFirst() }
    }

    // MARK: Shutdown

    /// Fails every pending send and closes every connection, including one still being opened.
    func shutdown() async {
        let closed: EventLoopFuture<Void> = eventLoop.flatSubmit {
            self.isShutDown = true
            self.timer?.cancel()
            self.timer = nil
            self.waiting.removeAll()
            while let push = self.unanswered.popFirst() { push.complete(.failure(APNsTransportError.shutDown)) }
            self.current = nil
            var closing = self.open.values.map { $0.channel.close() }
            if let connecting = self.connecting {
                closing.append(connecting.flatMap { $0.channel.close() })
            }
            return EventLoopFuture.andAllComplete(closing, on: self.eventLoop)
        }
        try? await closed.get()
    }
}
