import Foundation
import OrderModel
import Testing

/// `ordertrack webhooks create|list|rotate-secret|delete`, run as a process.
extension CLITests {
    @Test func createsListsRotatesAndDeletesWebhookEndpoints() throws {
        let created = try run(["merchant", "create", "--name", "Webhook Shop", "--data-dir", "data"])
        let merchant = try #require(created.output.split(separator: "\n").first?.split(separator: " ").last.map(String.init))
        let base = ["--merchant", merchant, "--data-dir", "data"]
        let made = try run(["webhooks", "create", "--url", "https://shop.example.com/hooks", "--events", "order.created,order.updated"] + base)
        #expect(made.status == 0, "\(made.errors)")
        let json = try JSONValue.parse(Array(made.output.utf8))
        let id = try #require(json["id"]?.stringValue)
        let secret = try #require(json["secret"]?.stringValue)
        #expect(secret.hasPrefix("whsec_") && json["events"] == ["order.created", "order.updated"] && json["status"] == "enabled")

        // Refused: plain http outside development mode, an unknown event type.
        let plain = try run(["webhooks", "create", "--url", "http://127.0.0.1:9/"] + base)
        #expect(plain.status == 1 && plain.errors.contains("url: "), "\(plain.errors)")
        #expect(try run(["webhooks", "create", "--url", "http://127.0.0.1:9/", "--development"] + base).status == 0)
        let unknown = try run(["webhooks", "create", "--url", "https://shop.example.com/", "--events", "order.shipped"] + base)
        #expect(unknown.status == 1 && unknown.errors.contains("events: "), "\(unknown.errors)")

        let listed = try run(["webhooks", "list"] + base)
        #expect(listed.status == 0 && listed.output.contains("\(id)\tenabled\torder.created,order.updated\thttps://shop.example.com/hooks"))
        #expect(!listed.output.contains("whsec_"))
        let rotated = try run(["webhooks", "rotate-secret", id] + base)
        let newSecret = try JSONValue.parse(Array(rotated.output.utf8))["secret"]?.stringValue
        #expect(rotated.status == 0 && newSecret?.hasPrefix("whsec_") == true && newSecret != secret)
        #expect(try run(["webhooks", "delete", id] + base).status == 0)
        #expect(try run(["webhooks", "delete", id] + base).status == 1, "already deleted")
    }
}
