import Foundation
import OrderModel
import Testing

/// `ordertrack webhooks create|list|rotate-secret|enable|deliveries|delete`, run as a process, for a merchant and for the
/// platform (`--all-merchants`).
extension CLITests {
    @Test func createsListsRotatesAndDeletesWebhookEndpoints() async throws {
        let created = try await run(["merchant", "create", "--name", "Webhook Shop", "--data-dir", "data"])
        let merchant = try #require(created.output.split(separator: "\n").first?.split(separator: " ").last.map(String.init))
        let base = ["--merchant", merchant, "--data-dir", "data"]
        let made = try await run(["webhooks", "create", "--url", "https://shop.example.com/hooks", "--events", "order.created,order.updated"] + base)
        #expect(made.status == 0, "\(made.errors)")
        let json = try JSONValue.parse(Array(made.output.utf8))
        let id = try #require(json["id"]?.stringValue)
        let secret = try #require(json["secret"]?.stringValue)
        #expect(secret.hasPrefix("whsec_") && json["events"] == ["order.created", "order.updated"] && json["status"] == "enabled")

        // Refused: plain http outside development mode, an unknown event type.
        let plain = try await run(["webhooks", "create", "--url", "http://127.0.0.1:9/"] + base)
        #expect(plain.status == 1 && plain.errors.contains("url: "), "\(plain.errors)")
        #expect(try await run(["webhooks", "create", "--url", "http://127.0.0.1:9/", "--development"] + base).status == 0)
        let unknown = try await run(["webhooks", "create", "--url", "https://shop.example.com/", "--events", "order.shipped"] + base)
        #expect(unknown.status == 1 && unknown.errors.contains("events: "), "\(unknown.errors)")

        let listed = try await run(["webhooks", "list"] + base)
        #expect(listed.status == 0 && listed.output.contains("\(id)\tenabled\torder.created,order.updated\thttps://shop.example.com/hooks"))
        #expect(!listed.output.contains("whsec_"))
        let rotated = try await run(["webhooks", "rotate-secret", id] + base)
        let newSecret = try JSONValue.parse(Array(rotated.output.utf8))["secret"]?.stringValue
        #expect(rotated.status == 0 && newSecret?.hasPrefix("whsec_") == true && newSecret != secret)
        #expect(try await run(["webhooks", "delete", id] + base).status == 0)
        #expect(try await run(["webhooks", "delete", id] + base).status == 1, "already deleted")
    }

    @Test func aPlatformEndpointServesEveryMerchantAndStaysOutOfTheirLists() async throws {
        var merchants: [String] = []
        for name in ["One", "Two"] {
            let created = try await run(["merchant", "create", "--name", name, "--data-dir", "data"])
            merchants.append(try #require(created.output.split(separator: "\n").first?.split(separator: " ").last.map(String.init)))
        }
        let platform = ["--all-merchants", "--data-dir", "data"]
        let made = try await run(["webhooks", "create", "--url", "https://platform.example.com/hooks", "--description", "all shops"] + platform)
        #expect(made.status == 0, "\(made.errors)")
        let json = try JSONValue.parse(Array(made.output.utf8))
        let id = try #require(json["id"]?.stringValue)
        #expect(id.hasPrefix("wep_") && json["secret"]?.stringValue?.hasPrefix("whsec_") == true && json["merchants"] == 2, "\(json)")
        // A merchant created afterwards is served too.
        #expect(try await run(["merchant", "create", "--name", "Three", "--data-dir", "data"]).status == 0)
        let listed = try await run(["webhooks", "list"] + platform)
        #expect(listed.output == "\(id)\tenabled for 3 merchants\t*\thttps://platform.example.com/hooks\n", "\(listed.output)")
        #expect(try await run(["webhooks", "list", "--merchant", merchants[0], "--data-dir", "data"]).output.isEmpty)
        // A merchant's commands cannot reach it.
        #expect(try await run(["webhooks", "delete", id, "--merchant", merchants[0], "--data-dir", "data"]).status == 1)

        let rotated = try JSONValue.parse(Array(try await run(["webhooks", "rotate-secret", id] + platform).output.utf8))
        #expect(rotated["secret"]?.stringValue?.hasPrefix("whsec_") == true && rotated["secret"] != json["secret"])
        let enabled = try await run(["webhooks", "enable", id] + platform)
        let enabledJSON = try JSONValue.parse(Array(enabled.output.utf8))
        #expect(enabled.status == 0 && enabledJSON["disabledMerchants"] == [:])
        let deliveries = try await run(["webhooks", "deliveries", id] + platform)
        #expect(deliveries.status == 0 && deliveries.output.isEmpty)
        // Exactly one of --merchant and --all-merchants.
        #expect(try await run(["webhooks", "list", "--data-dir", "data"]).status != 0)
        #expect(try await run(["webhooks", "list", "--merchant", merchants[0]] + platform).status != 0)
        #expect(try await run(["webhooks", "delete", id] + platform).status == 0)
        #expect(try await run(["webhooks", "delete", id] + platform).status == 1, "already deleted")
    }
}
