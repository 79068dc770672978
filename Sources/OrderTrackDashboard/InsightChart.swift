import Foundation
import OrderTrackServer

/// A chart drawn on the server as inline SVG, for the Insights page: bars for the first series and a line for a
/// second, over a y axis of round figures, with the first, middle and last buckets labelled. It scales with its
/// `viewBox`, so one drawing serves a phone and a desktop, and it says what it shows in its `<title>` and `<desc>`.
struct InsightChart {
    struct Series {
        var name: String
        var values: [Int64]
    }

    /// Unique on the page: the title's and description's ids derive from it.
    var id: String
    var title: String
    /// A sentence with the figures, for screen readers.
    var description: String
    /// Each bucket's short label.
    var labels: [String]
    var bars: Series
    var line: Series?

    static let width = 640.0
    static let height = 240.0
    static let left = 60.0
    static let right = 12.0
    static let top = 12.0
    static let bottom = 28.0

    /// The axis' top and its step: the smallest 1, 2 or 5 × 10ⁿ step whose four make at least `maximum`.
    static func scale(_ maximum: Int64) -> (top: Int64, step: Int64) {
        let target = max(1, (maximum + 3) / 4)
        var magnitude: Int64 = 1
        while magnitude * 10 <= target { magnitude *= 10 }
        let step = [1, 2, 5, 10].map { $0 * magnitude }.first { $0 >= target } ?? magnitude * 10
        return (step * 4, step)
    }

    var svg: String {
        let plotWidth = Self.width - Self.left - Self.right
        let plotHeight = Self.height - Self.top - Self.bottom
        let all = bars.values + (line?.values ?? [])
        let (axisTop, step) = Self.scale(all.max() ?? 0)
        let count = max(bars.values.count, 1)
        let slot = plotWidth / Double(count)
        let y = { (value: Int64) in Self.top + plotHeight - Double(value) / Double(axisTop) * plotHeight }
        let x = { (index: Int) in Self.left + slot * (Double(index) + 0.5) }
        var parts = [
            #"<svg class="chart-svg" viewBox="0 0 \#(Int(Self.width)) \#(Int(Self.height))" role="img" aria-labelledby="\#(id)-title" aria-describedby="\#(id)-desc">"#,
            "<title id=\"\(id)-title\">\(HTMLText.escaped(title))</title>", "<desc id=\"\(id)-desc\">\(HTMLText.escaped(description))</desc>",
        ]
        for tick in stride(from: Int64(0), through: axisTop, by: Int(step)) {
            let at = Self.format(y(tick))
            parts.append(
                #"<line class="chart-grid" x1="\#(Self.format(Self.left))" x2="\#(Self.format(Self.width - Self.right))" y1="\#(at)" y2="\#(at)"/>"#)
            parts.append(
                #"<text class="chart-axis" x="\#(Self.format(Self.left - 6))" y="\#(at)" text-anchor="end" dominant-baseline="middle">\#(tick)</text>"#
            )
        }
        let barWidth = max(slot * 0.7, 1)
        for (index, value) in bars.values.enumerated() where value > 0 {
            parts.append(
                #"<rect class="chart-bar" x="\#(Self.format(x(index) - barWidth / 2))" y="\#(Self.format(y(value)))" width="\#(Self.format(barWidth))" height="\#(Self.format(y(0) - y(value)))"/>"#
            )
        }
        if let line {
            let points = line.values.enumerated().map { "\(Self.format(x($0.offset))),\(Self.format(y($0.element)))" }.joined(separator: " ")
            parts.append(#"<polyline class="chart-line" points="\#(points)"/>"#)
        }
        for index in Set([0, labels.count / 2, labels.count - 1]).sorted() where labels.indices.contains(index) {
            let anchor = index == 0 ? "start" : index == labels.count - 1 ? "end" : "middle"
            let at = index == 0 ? Self.left : index == labels.count - 1 ? Self.width - Self.right : x(index)
            parts.append(
                #"<text class="chart-axis" x="\#(Self.format(at))" y="\#(Self.format(Self.height - 8))" text-anchor="\#(anchor)">\#(HTMLText.escaped(labels[index]))</text>"#
            )
        }
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }

    static func format(_ value: Double) -> String { String(format: "%.1f", value) }
}
