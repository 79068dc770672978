import Foundation
import Logging
@_spi(WorkTally) import OrderModel
import OrderPersistence
import ServerTestSupport
import Testing

@testable import OrderTrackServer

/// A new version's package is built from the order as its writer validated it, whether the queued background build or
/// a device's fetch comes first.
@Suite struct PackageServiceTests {
    static let type = "order.com.example.prepared"

    /// The service with its background builds not running, so the test decides what comes first; an order of `type`
    /// stored, and the same order validated as a writer would have.
    static func prepared() async throws -> (PackageService, SQLOrderStore, OrderRecord, ValidatedOrder) {
        let store = try await SQLOrderStore.inMemory()
        let merchant = try await store.createMerchant(name: "Shop")
        try await store.upsertOrderType(
            OrderTypeRecord(orderTypeIdentifier: type, merchantID: merchant.id, identity: try OrderTypeOwnershipTests.developmentIdentity(type)))
        let options = ValidationOptions(allowInsecureWebServiceURL: true)
        var document: JSONValue = [
            "schemaVersion": 1, "orderTypeIdentifier": .string(type), "orderIdentifier": "ORD-1", "orderType": "ecommerce",
            "createdAt": "2026-11-20T10:00:00Z", "updatedAt": "2026-11-20T10:00:00Z", "status": "open",
            "authenticationToken": "a-token-of-more-than-twenty-two-characters",
            "merchant": ["displayName": "Example Shop", "merchantIdentifier": "merchant.com.example.shop", "url": "https://shop.example.com"],
            "orderManagementURL": "https://shop.example.com/orders/1",
        ]
        document["webServiceURL"] = "https://orders.example.com/wallet"
        let validated = try OrderValidator.check(document: document, options: options).validated(package: PackageContents(files: [:]))
        let record = try await store.createOrder(
            OrderRecord(
                orderTypeIdentifier: type, orderIdentifier: "ORD-1", merchantID: merchant.id,
                authenticationToken: "a-token-of-more-than-twenty-two-characters",
                document: validated.bytes, status: "open", createdAt: Date(), updatedAt: Date()))
        let cpu = CPUWorkPool(threadCount: 1)
        let packages = PackageService(
            store: store, credentials: CredentialProvider(store: store, cpu: cpu, logger: Logger(label: "test")), cpu: cpu,
            validationOptions: options, capacityBytes: 1 << 20, logger: Logger(label: "test"), clock: .system)
        _ = try await packages.identity(for: type) // loaded once, before anything is counted
        return (packages, store, record, validated)
    }

    @Test func aFetchBeforeTheQueuedBuildSignsTheVersionAsItsWriterValidatedIt() async throws {
        let (packages, store, record, validated) = try await Self.prepared()
        defer { Task { try? await store.shutdown() } }
        packages.prepare(record, validated)

        let fetch = WorkTally()
        let bytes = try await fetch.measure { try await packages.package(for: record) }
        #expect(ZipNames.of(bytes).contains("order.json"))
        #expect(fetch[.parse] == 0, "the stored document is not parsed")
        #expect(fetch[.schemaWalk] == 0, "nor validated again")
        #expect(fetch[.assetRead] == 0, "nor are the assets read")
        #expect(fetch[.cpuHop] == 1, "one job: the signature")
        #expect(try await store.cachedPackage(type: Self.type, id: "ORD-1", version: record.version) == bytes, "stored as a build stores it")

        // The queued build, when it comes, finds the package built.
        let background = WorkTally()
        #expect(try await background.measure { try await packages.package(for: record, validated: validated) } == bytes)
        #expect(background[.cpuHop] == 0)
    }

    /// Once built, the validated version is let go; a version nobody prepared is parsed and validated from the store.
    @Test func aVersionNobodyPreparedIsValidatedFromItsStoredDocument() async throws {
        let (packages, store, record, validated) = try await Self.prepared()
        defer { Task { try? await store.shutdown() } }
        packages.prepare(record, validated)
        _ = try await packages.package(for: record)

        var next = record
        next.version += 1
        let fetch = WorkTally()
        let bytes = try await fetch.measure { try await packages.package(for: next) }
        #expect(ZipNames.of(bytes).contains("order.json"))
        #expect(fetch[.parse] == 1 && fetch[.schemaWalk] > 0, "parse \(fetch[.parse]), walks \(fetch[.schemaWalk])")

        // An older version prepared late does not stand in for the newer one kept.
        packages.prepare(record, validated)
        var newest = next
        newest.version += 1
        packages.prepare(newest, validated)
        packages.prepare(record, validated)
        let later = WorkTally()
        _ = try await later.measure { try await packages.package(for: newest) }
        #expect(later[.parse] == 0 && later[.schemaWalk] == 0, "the newest prepared version signed as validated")
    }

    /// A prepared version stands in only for its own change (an order made again after its order type was deleted
    /// starts at version 1 anew), and not after its order type's packages were forgotten.
    @Test func aPreparedVersionStandsInOnlyForItsOwnChange() async throws {
        let (packages, store, record, validated) = try await Self.prepared()
        defer { Task { try? await store.shutdown() } }
        packages.prepare(record, validated)
        var other = record
        other.changeSequence += 1
        let remade = WorkTally()
        _ = try await remade.measure { try await packages.package(for: other) }
        #expect(remade[.parse] == 1, "another change of the same version number is built from its own document")

        var next = record
        next.version += 1
        packages.prepare(next, validated)
        packages.invalidateIdentity(Self.type)
        let forgotten = WorkTally()
        _ = try await forgotten.measure { try await packages.package(for: next) }
        #expect(forgotten[.parse] == 1, "forgotten with the order type's packages")
    }
}
