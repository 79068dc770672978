import OrderModel
import Testing

/// The audit trail's diff: one entry per changed leaf, keyed by RFC 6901 pointer, with `from` absent for an addition and
/// `to` absent for a removal.
@Suite struct JSONDiffTests {
    @Test func changesAdditionsAndRemovalsAreKeyedByEscapedPointers() throws {
        let before: JSONValue = [
            "status": "open", "a/b": "x", "tilde~": 1, "gone": true,
            "fulfillments": [["fulfillmentIdentifier": "f1", "status": "processing"], ["fulfillmentIdentifier": "f2"]],
        ]
        let after: JSONValue = [
            "status": "completed", "a/b": "y", "tilde~": 1, "new": ["nested": 1],
            "fulfillments": [["fulfillmentIdentifier": "f1", "status": "onTheWay", "carrier": "UPS"]],
        ]
        let diff = JSONDiff(from: before, to: after)
        #expect(
            diff.changes.map(\.path) == ["/a~1b", "/fulfillments/0/carrier", "/fulfillments/0/status", "/fulfillments/1", "/gone", "/new", "/status"])
        #expect(
            diff.json == [
                "/a~1b": ["from": "x", "to": "y"], "/fulfillments/0/carrier": ["to": "UPS"],
                "/fulfillments/0/status": ["from": "processing", "to": "onTheWay"], "/fulfillments/1": ["from": ["fulfillmentIdentifier": "f2"]],
                "/gone": ["from": true], "/new": ["to": ["nested": 1]], "/status": ["from": "open", "to": "completed"],
            ])
        #expect(JSONDiff(from: before, to: before).changes.isEmpty)
        #expect(JSONDiff(from: nil, to: after).json == ["": ["to": after]], "a creation is the whole document")
        #expect(JSONDiff.pointerToken("~/x") == "~0~1x")
    }
}
