import AsyncHTTPClient
import Foundation
import NIOCore

/// Latencies of sequential requests over one connection, after a warm-up: how the dashboard and insights benchmarks
/// measure their pages against a baseline in the same run.
struct Latencies {
    var milliseconds: [Double]
    var seconds: Double

    func percentile(_ fraction: Double) -> Double { milliseconds[min(milliseconds.count - 1, Int(Double(milliseconds.count) * fraction))] }
    var requestsPerSecond: Double { Double(milliseconds.count) / seconds }

    /// Latencies of `samples` sequential requests after a warm-up, each answered 200; the first answer must contain
    /// `shows`, so that a case never measures an empty page by mistake.
    static func measure(_ http: HTTPClient, url: String, header: (String, String), shows: String, samples: Int) async throws -> Latencies {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: header.0, value: header.1)
        let first = try await http.execute(request, timeout: .seconds(30))
        let body = try await first.body.collect(upTo: 8 << 20)
        guard String(buffer: body).contains(shows) else { throw usageError("\(url) does not show \(shows)") }
        var timings: [Double] = []
        timings.reserveCapacity(samples)
        let started = ContinuousClock.now
        for index in 0..<(samples + 20) {
            let start = ContinuousClock.now
            let response = try await http.execute(request, timeout: .seconds(30))
            _ = try await response.body.collect(upTo: 8 << 20)
            guard response.status == .ok else { throw usageError("\(url) answered \(response.status)") }
            if index >= 20 { timings.append((ContinuousClock.now - start).inSeconds * 1000) }
        }
        return Latencies(milliseconds: timings.sorted(), seconds: (ContinuousClock.now - started).inSeconds * Double(samples) / Double(samples + 20))
    }

    /// Prints each case's p50, p99 and rate, the first case being the baseline, and the worst p99 of the others.
    static func report(_ results: [(String, Latencies)], subject: String) {
        guard let baseline = results.first?.1 else { return }
        print("\(baseline.milliseconds.count) sequential requests per case (one connection); ratio = p50 / baseline p50")
        print(
            "case".padding(toLength: 46, withPad: " ", startingAt: 0) + "p50 ms".leftPadded(9) + "p99 ms".leftPadded(9) + "req/s".leftPadded(9)
                + "ratio".leftPadded(8))
        for (name, timings) in results {
            print(
                name.padding(toLength: 46, withPad: " ", startingAt: 0) + String(format: "%.2f", timings.percentile(0.5)).leftPadded(9)
                    + String(format: "%.2f", timings.percentile(0.99)).leftPadded(9) + String(format: "%.0f", timings.requestsPerSecond).leftPadded(9)
                    + String(format: "%.2f", timings.percentile(0.5) / baseline.percentile(0.5)).leftPadded(8))
        }
        let worst = results.dropFirst().map { $0.1.percentile(0.99) }.max() ?? 0
        print("worst \(subject) p99: \(String(format: "%.2f", worst)) ms (goal: under 100 ms)")
    }
}
