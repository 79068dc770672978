import Foundation
import OrderLookupSigning
import OrderModel
import TestSupport
import Testing
import X509

/// The signing chain, the order → transactions mapping and the signed transactions, judged by OpenSSL's strict mode
/// and by Apple's own `SignedDataVerifier` (PyPI `app-store-server-library`).
@Suite struct LookupSigningTests {
    static let chain = Result { try LookupSigningChain.generate(deployment: "Test Deployment") }
    static let bundleId = "com.example.shop"

    static func order(refunded: Bool = false) -> Order {
        let created = Date(timeIntervalSince1970: 1_790_000_000.123)
        var order = Order(
            orderTypeIdentifier: "order.com.example.shop", orderIdentifier: "A-1001", createdAt: created,
            updatedAt: created.addingTimeInterval(3_600), status: .open,
            merchant: Merchant(displayName: "Shop", merchantIdentifier: "merchant.com.example", url: URL(string: "https://shop.example")!),
            orderManagementURL: URL(string: "https://shop.example/orders/A-1001")!)
        var mug = LineItem(title: "Mug", quantity: 2, price: CurrencyAmount(amount: Decimal(string: "12.99")!, currency: "EUR"))
        mug.sku = "MUG-1"
        var tea = LineItem(title: "Tea", quantity: 1, price: CurrencyAmount(amount: Decimal(string: "4.5")!, currency: "EUR"))
        tea.sku = "TEA-9"
        order.lineItems = [mug, tea, LineItem(title: "Gift note", quantity: 1)]
        var returned = Return(returnIdentifier: "r1", status: .completed)
        returned.returnedAt = created.addingTimeInterval(86_400)
        returned.lineItems = [tea]
        order.returns = [returned]
        if refunded { order.payment = Payment(total: CurrencyAmount(amount: 30.48, currency: "EUR"), status: .refunded) }
        return order
    }

    /// schemaVersion 2 leaves the deprecated status out: refunds come from completed refund transactions adding up to
    /// the total; a partial or unfinished refund revokes nothing.
    @Test func refundTransactionsRevokeWithoutAStatus() {
        let total = CurrencyAmount(amount: Decimal(string: "30.48")!, currency: "EUR")
        func order(refunds: [(Decimal, PaymentTransaction.Status)]) -> Order {
            var order = Self.order()
            order.schemaVersion = 2
            order.returns = nil
            var payment = Payment(total: total, status: nil)
            let card = PaymentMethod(displayName: "Visa 1234")
            payment.transactions =
                [PaymentTransaction(amount: total, createdAt: order.createdAt, paymentMethod: card, status: .completed, transactionType: .purchase)]
                + refunds.enumerated().map { index, refund in
                    PaymentTransaction(
                        amount: CurrencyAmount(amount: refund.0, currency: "EUR"),
                        createdAt: order.createdAt.addingTimeInterval(Double(index + 1) * 60),
                        paymentMethod: card, status: refund.1, transactionType: .refund)
                }
            order.payment = payment
            return order
        }
        let revoked = { (order: Order) in OrderTransactions.payloads(for: order, context: Self.context).map(\.revocationReason) }
        #expect(revoked(order(refunds: [])) == [nil, nil, nil])
        #expect(revoked(order(refunds: [(10, .completed)])) == [nil, nil, nil], "partial")
        #expect(revoked(order(refunds: [(Decimal(string: "30.48")!, .pending)])) == [nil, nil, nil], "not completed")
        let full = OrderTransactions.payloads(
            for: order(refunds: [(10, .completed), (Decimal(string: "20.48")!, .completed)]), context: Self.context)
        #expect(full.allSatisfy { $0.revocationReason == 0 && $0.revocationDate == 1_790_000_120_123 }, "the latest refund's date")
    }

    static let context = OrderTransactions.Context(bundleId: bundleId, storefront: "DEU", signedAt: Date())

    @Test func mapsLineItemsToTransactions() throws {
        let payloads = OrderTransactions.payloads(for: Self.order(), context: Self.context)
        #expect(payloads.map(\.productId) == ["MUG-1", "TEA-9", "Gift note"])
        #expect(payloads.map(\.quantity) == [2, 1, 1])
        #expect(payloads.map(\.price) == [12_990, 4_500, nil])
        #expect(payloads.map(\.currency) == ["EUR", "EUR", nil])
        #expect(payloads.allSatisfy { $0.purchaseDate == 1_790_000_000_123 && $0.environment == "Production" })
        #expect(payloads.map(\.revocationReason) == [nil, 0, nil])
        #expect(payloads[1].revocationDate == 1_790_086_400_123)
        let refunded = OrderTransactions.payloads(for: Self.order(refunded: true), context: Self.context)
        #expect(refunded.allSatisfy { $0.revocationDate == 1_790_003_600_123 && $0.revocationReason == 0 })
    }

    @Test func transactionIdentifiersAreStableAndDistinct() {
        let first = OrderTransactions.payloads(for: Self.order(), context: Self.context).map(\.transactionId)
        let second = OrderTransactions.payloads(for: Self.order(refunded: true), context: Self.context).map(\.transactionId)
        #expect(first == second)
        #expect(Set(first).count == 3)
        #expect(first.allSatisfy { $0.count == 16 && $0.allSatisfy(\.isNumber) })
        let other = TransactionIdentifier.derive(orderTypeIdentifier: "order.com.example.shop", orderIdentifier: "A-1002", lineItemIndex: 0)
        #expect(!first.contains(other))
    }

    @Test func chainRoundTripsThroughPEM() throws {
        let chain = try Self.chain.get()
        let loaded = try LookupSigningChain(pem: try chain.pem)
        #expect(loaded.root == chain.root && loaded.leaf == chain.leaf)
        #expect(throws: LookupSigningError.self) {
            var pem = try chain.pem
            pem.leafPrivateKey = P256PrivateKeyPEM.other
            return try LookupSigningChain(pem: pem)
        }
    }

    @Test(.enabled(if: ExternalTools.hasOpenSSL)) func chainPassesOpenSSLStrictVerification() throws {
        let pem = try Self.chain.get().pem
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lookup-chain-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try pem.rootCertificate.write(to: directory.appendingPathComponent("root.pem"), atomically: true, encoding: .utf8)
        try pem.intermediateCertificate.write(to: directory.appendingPathComponent("ca.pem"), atomically: true, encoding: .utf8)
        try pem.leafCertificate.write(to: directory.appendingPathComponent("leaf.pem"), atomically: true, encoding: .utf8)
        let output = try ExternalTools.requireOpenSSL(
            ["verify", "-x509_strict", "-CAfile", "root.pem", "-untrusted", "ca.pem", "leaf.pem"], in: directory)
        #expect(output.contains("leaf.pem: OK"))
        let text = try ExternalTools.requireOpenSSL(["x509", "-in", "leaf.pem", "-noout", "-text"], in: directory)
        #expect(text.contains("1.2.840.113635.100.6.11.1"))
        let intermediate = try ExternalTools.requireOpenSSL(["x509", "-in", "ca.pem", "-noout", "-text"], in: directory)
        #expect(intermediate.contains("1.2.840.113635.100.6.2.1"))
    }

    @Test(.enabled(if: ExternalTools.pythonHasModule("appstoreserverlibrary"), "needs app-store-server-library (scripts/python-env)"))
    func appleVerifierAcceptsSignedTransactions() async throws {
        let chain = try Self.chain.get()
        let payloads = OrderTransactions.payloads(for: Self.order(), context: Self.context)
        let signed = try await TransactionSigner(chain: chain).sign(payloads)
        let decoded = try Self.judge(signed, root: try chain.rootDER)
        #expect(decoded.count == 3)
        for (theirs, ours) in zip(decoded, payloads) {
            #expect(theirs["transactionId"] as? String == ours.transactionId)
            #expect(theirs["productId"] as? String == ours.productId)
            #expect(theirs["quantity"] as? Int == ours.quantity)
            #expect((theirs["price"] as? Int).map(Int64.init) == ours.price)
            #expect(theirs["environment"] as? String == "Production")
            #expect(theirs["type"] as? String == "Consumable")
        }
        #expect(decoded[1]["revocationReason"] as? Int == 0)
    }

    @Test(.enabled(if: ExternalTools.pythonHasModule("appstoreserverlibrary"), "needs app-store-server-library (scripts/python-env)"))
    func appleVerifierRejectsAnotherRoot() async throws {
        let payloads = OrderTransactions.payloads(for: Self.order(), context: Self.context)
        let signed = try await TransactionSigner(chain: try Self.chain.get()).sign(payloads)
        let other = try LookupSigningChain.generate(deployment: "Other")
        #expect(throws: (any Error).self) { try Self.judge(signed, root: try other.rootDER) }
    }

    /// Runs verify_transactions.py: Apple's verifier, strict, Production, offline.
    static func judge(_ signed: [String], root: [UInt8]) throws -> [[String: Any]] {
        let rootURL = FileManager.default.temporaryDirectory.appendingPathComponent("lookup-root-\(UUID().uuidString).der")
        try Data(root).write(to: rootURL)
        defer { try? FileManager.default.removeItem(at: rootURL) }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("verify_transactions.py")
        let output = try ExternalTools.run(
            "/usr/bin/env", ["python3", script.path, rootURL.path, bundleId, "1234567890"],
            input: Array(signed.joined(separator: "\n").utf8))
        return try JSONSerialization.jsonObject(with: Data(output)) as? [[String: Any]] ?? []
    }
}

enum P256PrivateKeyPEM {
    /// A key that belongs to no chain.
    static let other = LookupKeyMaterial.generate().privateKeyPEM
}
