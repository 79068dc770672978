import Foundation
import Synchronization

/// What the soak's merchants and simulated Wallets know: each order's acknowledged writes and its devices, each
/// device's registrations and the version it holds of each order (its package's `Last-Modified`, in whole seconds:
/// the server moves an order's `updatedAt` to a later second at every change, so the second names the version), and
/// the update-to-Wallet latencies measured so far.
final class SoakWorld: Sendable {
    struct Order {
        var id: String
        /// The `SOAK-<number>` it was created with.
        var number: Int
        var token: String
        /// Devices registered for it.
        var devices: Set<Int> = []
        /// The `updatedAt` second of the last write the server acknowledged.
        var acknowledged: Int64
        /// A carrier scan reached it, or a write's answer was lost to a fault: the server may hold a version no answer
        /// acknowledged.
        var mayBeNewer = false
        /// Acknowledged writes: their second and when their answer arrived, for the latency of each device's catch-up.
        var acks: [(second: Int64, at: ContinuousClock.Instant)] = []
    }

    struct Device {
        var library: String
        var token: String
        /// The orders it is registered for, with the second of the package it holds.
        var held: [Int: Int64] = [:]
        /// The `lastModified` tag of its last registrations list.
        var tag: String?
        /// Until when it is offline: pushes meanwhile are missed, and it catches up when it comes back.
        var offlineUntil: ContinuousClock.Instant?
        var missedWhileOffline = false
        /// Its app was deleted: APNs answers 410 and the server forgets it.
        var deleted = false
        var syncing = false
        var dirty = false
        /// When the mock APNs last answered a push to it, for the report of a device left behind.
        var lastPush: Date?
    }

    struct State {
        var orders: [Order] = []
        var orderIndex: [String: Int] = [:]
        var devices: [Device] = []
        var deviceByToken: [String: Int] = [:]
        /// Each catch-up: when the write it caught up with was acknowledged, and how long it took.
        var latencies: [(acknowledgedAt: ContinuousClock.Instant, seconds: Double)] = []
        /// Catch-ups of writes acknowledged while the device was offline: its absence, not the server's pace.
        var offlineLatencies: [Double] = []
        var pushes = 0
        /// Pushes whose registrations list named no order with a newer package than the device held.
        var pushesFindingNothing = 0
        var refusedPushes = 0
        /// The `apns-id` of every push the mock accepted: the server gives each send of one job at one generation the
        /// same id, so a push that went out twice shows as an id accepted twice.
        var acceptedPushIDs: Set<UUID> = []
        /// When each push accepted a second time arrived.
        var duplicatePushes: [ContinuousClock.Instant] = []
    }

    let state = Mutex(State())

    func addDevice(library: String, token: String) -> Int {
        state.withLock { state in
            state.devices.append(Device(library: library, token: token))
            state.deviceByToken[token] = state.devices.count - 1
            return state.devices.count - 1
        }
    }

    func addOrder(id: String, number: Int, token: String, second: Int64) -> Int {
        state.withLock { state in
            if let existing = state.orderIndex[id] { return existing }
            state.orders.append(Order(id: id, number: number, token: token, acknowledged: second))
            state.orderIndex[id] = state.orders.count - 1
            return state.orders.count - 1
        }
    }

    /// An acknowledged write: devices that already hold it (their fetch beat the answer here) count a zero latency.
    func acknowledge(order: Int, second: Int64, at instant: ContinuousClock.Instant) {
        state.withLock { state in
            state.orders[order].acknowledged = max(state.orders[order].acknowledged, second)
            state.orders[order].acks.append((second, instant))
            for device in state.orders[order].devices where (state.devices[device].held[order] ?? 0) >= second {
                state.latencies.append((instant, 0))
            }
        }
    }

    /// A device got the package of `order` at `second`: every acknowledged write it had not held yet reached it now.
    func hold(device: Int, order: Int, second: Int64, at instant: ContinuousClock.Instant) {
        state.withLock { state in
            // Not registered (any more): a fetch racing its unregistration.
            guard let previous = state.devices[device].held[order], second > previous else { return }
            let offlineUntil = state.devices[device].offlineUntil
            for ack in state.orders[order].acks where ack.second > previous && ack.second <= second {
                let latency = max(0, (instant - ack.at).inSeconds)
                if let offlineUntil, ack.at < offlineUntil {
                    state.offlineLatencies.append(latency)
                } else {
                    state.latencies.append((ack.at, latency))
                }
            }
            state.devices[device].held[order] = second
        }
    }

    func register(device: Int, order: Int, second: Int64) {
        state.withLock { state in
            state.devices[device].held[order] = max(state.devices[device].held[order] ?? 0, second)
            state.orders[order].devices.insert(device)
        }
    }

    func unregister(device: Int, order: Int) {
        state.withLock { state in
            state.devices[device].held[order] = nil
            state.orders[order].devices.remove(device)
        }
    }

    /// What a push to `token` asks of its device: `true` when it should sync now (online, not already syncing).
    func pushArrived(token: String, status: Int, apnsID: String, now: ContinuousClock.Instant) -> Int? {
        state.withLock { state in
            if status == 200, let id = UUID(uuidString: apnsID), !state.acceptedPushIDs.insert(id).inserted {
                state.duplicatePushes.append(now)
            }
            guard let index = state.deviceByToken[token] else { return nil }
            guard status == 200 else {
                state.refusedPushes += 1
                // 410: the server forgets the device's registrations, as it does for an app deleted.
                if status == 410 {
                    state.devices[index].deleted = true
                    for order in state.devices[index].held.keys { state.orders[order].devices.remove(index) }
                    state.devices[index].held = [:]
                }
                return nil
            }
            state.pushes += 1
            state.devices[index].lastPush = Date()
            if let until = state.devices[index].offlineUntil, now < until {
                state.devices[index].missedWhileOffline = true
                return nil
            }
            return Self.claimSync(&state, index)
        }
    }

    /// Devices back online that missed pushes: they catch up now.
    func devicesBackOnline(now: ContinuousClock.Instant) -> [Int] {
        state.withLock { state in
            var due: [Int] = []
            for index in state.devices.indices where state.devices[index].missedWhileOffline {
                guard let until = state.devices[index].offlineUntil, now >= until else { continue }
                state.devices[index].missedWhileOffline = false
                if let claimed = Self.claimSync(&state, index) { due.append(claimed) }
            }
            return due
        }
    }

    private static func claimSync(_ state: inout State, _ index: Int) -> Int? {
        if state.devices[index].syncing {
            state.devices[index].dirty = true
            return nil
        }
        state.devices[index].syncing = true
        return index
    }

    /// A sync a fault cut short: the device syncs again when this one finishes.
    func syncAgain(device: Int) {
        state.withLock { $0.devices[device].dirty = true }
    }

    /// After a sync: `true` when another push came meanwhile and the device must sync again.
    func syncFinished(device: Int) -> Bool {
        state.withLock { state in
            if state.devices[device].dirty {
                state.devices[device].dirty = false
                return true
            }
            state.devices[device].syncing = false
            return false
        }
    }

    /// Devices still registered that do not hold the latest version of one of their orders: the acknowledged one, or
    /// the server's where `truth` gives it (by order index); with the first of them.
    func lagging(truth: [Int: Int64] = [:]) -> (count: Int, first: (device: Int, order: Int, held: Int64, latest: Int64)?) {
        state.withLock { state in
            var count = 0
            var first: (device: Int, order: Int, held: Int64, latest: Int64)?
            for (index, device) in state.devices.enumerated() where !device.deleted {
                for (order, second) in device.held {
                    let latest = truth[order] ?? state.orders[order].acknowledged
                    guard second < latest else { continue }
                    count += 1
                    if first == nil { first = (index, order, second, latest) }
                }
            }
            return (count, first)
        }
    }
}
