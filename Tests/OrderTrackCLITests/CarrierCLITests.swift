import Foundation
import OrderModel
import Testing

/// `ordertrack carriers connect|list|delete`, run as a process.
extension CLITests {
    @Test func connectsListsAndDeletesCarrierConnections() async throws {
        let created = try await run(["merchant", "create", "--name", "Carrier Shop", "--data-dir", "data"])
        let merchant = try #require(created.output.split(separator: "\n").first?.split(separator: " ").last.map(String.init))
        try Data("as-cli-secret".utf8).write(to: directory.appendingPathComponent("aftership.secret"))
        let base = ["--merchant", merchant, "--data-dir", "data"]
        let connected = try await run(
            [
                "carriers", "connect", "--provider", "aftership", "--secret-file", "aftership.secret", "--status", "InTransit=onTheWay",
                "--public-url", "https://orders.example.com/",
            ] + base)
        #expect(connected.status == 0, "\(connected.errors)")
        let json = try JSONValue.parse(Array(connected.output.utf8))
        let id = try #require(json["id"]?.stringValue)
        #expect(json["webhookURL"] == .string("https://orders.example.com/carriers/aftership/\(id)"))
        #expect(!connected.output.contains("as-cli-secret"))

        // Refused: no secret, a bad status map, no public URL to print the webhook URL with.
        #expect(try await run(["carriers", "connect", "--provider", "aftership", "--public-url", "https://o.example"] + base).status == 1)
        let badMap = try await run(
            [
                "carriers", "connect", "--provider", "generic", "--secret-file", "aftership.secret", "--status", "x=flying",
                "--public-url", "https://o.example",
            ] + base)
        #expect(badMap.status == 1 && badMap.errors.contains("statusMap.x"), "\(badMap.errors)")
        #expect(try await run(["carriers", "connect", "--provider", "generic", "--secret-file", "aftership.secret"] + base).status == 2)

        let listed = try await run(["carriers", "list", "--public-url", "https://o.example"] + base)
        #expect(listed.status == 0 && listed.output.contains("\(id)\taftership\t") && !listed.output.contains("as-cli-secret"))
        #expect(listed.output.contains("https://o.example/carriers/aftership/\(id)"))
        #expect(try await run(["carriers", "delete", id] + base).status == 0)
        #expect(try await run(["carriers", "delete", id] + base).status == 1, "already deleted")
        #expect(try await run(["carriers", "list", "--public-url", "https://o.example"] + base).output.isEmpty)
    }
}
