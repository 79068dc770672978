import Foundation
import HTTPTypes
import Logging
import OrderModel
import OrderPersistence
import OrderSigning
import OrderTrackServer
import ServerTestSupport
import TestSupport
import Testing

/// Audit findings M2 and L9: an order type is configured only with a certificate that proves ownership, and a refusal
/// never tells which identifiers other merchants use.
@Suite(.serialized) struct OrderTypeOwnershipTests {
    static func directory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("ordertrack-ownership-\(UUID().uuidString)", isDirectory: true)
    }

    /// A PKCS#12 (password `pw`) with a self-signed certificate whose subject names `orderTypeIdentifier`.
    static func selfSignedPKCS12(_ orderTypeIdentifier: String) throws -> IdentityConfig {
        let directory = Self.directory()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = directory.appendingPathComponent("key.pem").path
        let certificate = directory.appendingPathComponent("cert.pem").path
        let output = directory.appendingPathComponent("identity.p12").path
        _ = try ExternalTools.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "30", "-keyout", key, "-out",
                certificate, "-subj", "/UID=\(orderTypeIdentifier)/CN=Order Type ID: \(orderTypeIdentifier)",
            ])
        _ = try ExternalTools.run(
            "/usr/bin/openssl", ["pkcs12", "-export", "-inkey", key, "-in", certificate, "-passout", "pass:pw", "-out", output])
        return .pkcs12(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: output))), password: "pw", wwdrPEM: nil)
    }

    /// A development identity (test root, stand-in WWDR, leaf) for `orderTypeIdentifier`, in a fresh directory.
    static func developmentIdentity(_ orderTypeIdentifier: String, validity: TimeInterval = 86_400, now: Date = Date()) throws -> IdentityConfig {
        let directory = Self.directory()
        _ = try DevelopmentIdentity.create(orderTypeIdentifier: orderTypeIdentifier, in: directory, validity: validity, now: now)
        return .directory(path: directory.path)
    }

    /// Runs `body` with a store holding merchant A (owner of `order.com.victim`) and merchant B.
    static func withTenants(_ body: (SQLOrderStore, _ owner: String, _ other: String) async throws -> Void) async throws {
        let store = try await SQLOrderStore.inMemory()
        let owner = try await store.createMerchant(name: "Victim")
        let other = try await store.createMerchant(name: "Squatter")
        try await store.upsertOrderType(
            OrderTypeRecord(orderTypeIdentifier: "order.com.victim", merchantID: owner.id, identity: .directory(path: "/etc/victim")))
        do {
            try await body(store, owner.id, other.id)
            try await store.shutdown()
        } catch {
            try? await store.shutdown()
            throw error
        }
    }

    /// The refusal `setOrderType` throws, or `nil` when it succeeds.
    static func refusal(_ administration: Administration, merchant: String, type: String, identity: IdentityConfig) async -> String? {
        do {
            try await administration.setOrderType(merchantID: merchant, orderTypeIdentifier: type, identity: identity)
            return nil
        } catch let error as OrderTrackError {
            #expect(error.code == .orderTypeRejected)
            return error.reason
        } catch {
            Issue.record("unexpected error \(error)")
            return "\(error)"
        }
    }

    @Test func m2_aSelfSignedCertificateNamingTheOrderTypeIsRefusedEvenInDevelopmentMode() async throws {
        try await Self.withTenants { store, _, other in
            for trust in [OrderTypeTrust.apple, .development] {
                let reason = await Self.refusal(
                    Administration(store: store, trust: trust), merchant: other, type: "order.com.bigretailer",
                    identity: try Self.selfSignedPKCS12("order.com.bigretailer"))
                #expect(reason?.contains("does not prove ownership of order type order.com.bigretailer") == true, "\(trust): \(reason ?? "accepted")")
            }
            #expect(try await store.orderType("order.com.bigretailer") == nil)
        }
    }

    @Test func m2_aTestPKIChainIsRefusedInProductionAndAcceptedInDevelopmentMode() async throws {
        try await Self.withTenants { store, _, other in
            let identity = try Self.developmentIdentity("order.com.example.dev")
            let refused = await Self.refusal(
                Administration(store: store, trust: .apple), merchant: other, type: "order.com.example.dev", identity: identity)
            #expect(refused?.contains("does not chain to Apple") == true, "\(refused ?? "accepted")")
            #expect(try await store.orderType("order.com.example.dev") == nil)
            let accepted = await Self.refusal(
                Administration(store: store, trust: .development), merchant: other, type: "order.com.example.dev", identity: identity)
            #expect(accepted == nil)
            #expect(try await store.orderType("order.com.example.dev")?.merchantID == other)
        }
    }

    @Test func m2_aPKCS12CarryingItsIssuerIsAcceptedOnlyInDevelopmentMode() async throws {
        try await Self.withTenants { store, _, other in
            let identity = IdentityConfig.pkcs12(
                bytes: try DevelopmentPKCS12.make(orderTypeIdentifier: "order.com.example.p12", iterations: 2048), password: "pw", wwdrPEM: nil)
            let refused = await Self.refusal(
                Administration(store: store, trust: .apple), merchant: other, type: "order.com.example.p12", identity: identity)
            #expect(refused?.contains("does not chain to Apple") == true, "\(refused ?? "accepted")")
            let accepted = await Self.refusal(
                Administration(store: store, trust: .development), merchant: other, type: "order.com.example.p12", identity: identity)
            #expect(accepted == nil, "\(accepted ?? "")")
        }
    }

    @Test func m2_anExpiredOrNotYetValidCertificateIsRefused() async throws {
        try await Self.withTenants { store, _, other in
            let administration = Administration(store: store, trust: .development)
            let expired = try Self.developmentIdentity("order.com.example.old", validity: 86_400, now: Date().addingTimeInterval(-10 * 86_400))
            let reason = await Self.refusal(administration, merchant: other, type: "order.com.example.old", identity: expired)
            #expect(reason?.contains("expired on") == true, "\(reason ?? "accepted")")
            let future = try Self.developmentIdentity("order.com.example.new", now: Date().addingTimeInterval(10 * 86_400))
            let early = await Self.refusal(administration, merchant: other, type: "order.com.example.new", identity: future)
            #expect(early?.contains("not valid before") == true, "\(early ?? "accepted")")
            // A certificate for another order type than the one configured.
            let mismatch = await Self.refusal(
                administration, merchant: other, type: "order.com.example.other", identity: try Self.developmentIdentity("order.com.example.dev"))
            #expect(mismatch?.contains("is for order.com.example.dev, not order.com.example.other") == true, "\(mismatch ?? "accepted")")
        }
    }

    @Test func l9_anotherMerchantsOrderTypeIsRefusedWithTheMessageOfAnUnusedOne() async throws {
        try await Self.withTenants { store, _, other in
            // Every certificate that proves nothing: production with either kind, development with a self-signed one.
            let cases: [(OrderTypeTrust, @Sendable (String) throws -> IdentityConfig)] = [
                (.apple, Self.selfSignedPKCS12), (.apple, { try Self.developmentIdentity($0) }), (.development, Self.selfSignedPKCS12),
            ]
            for (trust, makeIdentity) in cases {
                let administration = Administration(store: store, trust: trust)
                let taken = await Self.refusal(
                    administration, merchant: other, type: "order.com.victim", identity: try makeIdentity("order.com.victim"))
                let unused = await Self.refusal(
                    administration, merchant: other, type: "order.com.unused", identity: try makeIdentity("order.com.unused"))
                let normalized = unused?.replacingOccurrences(of: "order.com.unused", with: "order.com.victim")
                #expect(taken != nil && taken == normalized, "\(trust): \(taken ?? "accepted") vs \(unused ?? "accepted")")
                #expect(taken?.contains("another merchant") == false)
            }
            #expect(try await store.orderType("order.com.victim")?.merchantID != other)
        }
    }

    @Test func l21_aDevelopmentServerTakesNoSelfMadeChainOnceItServesSeveralMerchants() async throws {
        let server = try TestServer()
        defer { server.remove() }
        // Row 32: `ordertrack identity create-dev`'s chain, its stand-in WWDR in the .p12.
        @Sendable func upload(_ client: Client, key: String, _ type: String) async throws -> Client.Reply {
            let pkcs12 = try DevelopmentPKCS12.make(orderTypeIdentifier: type, iterations: 2048)
            return try await RestrictedKeyTests.call(
                client, key, .put, "/api/v1/order-types/\(type)", json: ["pkcs12": .string(Data(pkcs12).base64EncodedString()), "password": "pw"])
        }
        try await server.run { client in
            // Alone on the server, the developer's merchant configures order types with development chains.
            let alone = try await upload(client, key: client.apiKey, "order.com.example.solo")
            #expect(alone.status == .ok, "\(alone.text)")

            let (squatter, squatterKey) = try await Administration(store: client.store).createMerchant(name: "Squatter")
            let squat = try await upload(client, key: squatterKey, "order.com.bigretailer")
            #expect(squat.status == .unprocessableContent && squat.json["error"]?["code"] == "order_type_rejected", "\(squat.text)")
            let reason = try #require(squat.json["error"]?["message"]?.stringValue)
            #expect(reason.contains("does not chain to Apple"), "\(reason)")
            #expect(try await client.store.orderType("order.com.bigretailer") == nil)
            // An order type another merchant has is refused with the same words: nothing tells which are taken.
            let taken = try await upload(client, key: squatterKey, "order.com.example.solo")
            #expect(
                taken.json["error"]?["message"]?.stringValue
                    == reason.replacingOccurrences(of: "order.com.bigretailer", with: "order.com.example.solo"),
                "\(taken.text)")
            // The first merchant is now one of several: its development chains are refused too.
            let later = try await upload(client, key: client.apiKey, "order.com.example.later")
            #expect(later.status == .unprocessableContent, "\(later.text)")
            // The operator (`ordertrack order-type`, with the database in hand) still configures development identities.
            let refusal = await Self.refusal(
                Administration(store: client.store, trust: .development), merchant: squatter.id, type: "order.com.example.operator",
                identity: try Self.developmentIdentity("order.com.example.operator"))
            #expect(refusal == nil, "\(refusal ?? "")")
        }
        // Each start of a development server with several merchants warns about it.
        let log = RecordingLogHandler.Entries()
        try await server.run(logger: Logger(label: "l21", factory: { _ in RecordingLogHandler(entries: log) })) { _ in }
        #expect(
            log.messages(atLeast: .warning).contains { $0.contains("development mode serves 2 merchants") }, "\(log.messages(atLeast: .warning))")
    }
}
