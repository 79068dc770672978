import ApplePay
import BoundedCache
import Crypto
import Foundation
import Logging
import OrderModel
import OrderPersistence
import OrderSigning
import Synchronization
import WireFormats
import X509

/// Apple Pay for merchants: their payment-processing identities, token decryption, one-call checkout (token + order
/// → order in Wallet) and merchant validation.
///
/// Decrypted card data passes through in memory only: it is never logged and never stored (a replayed checkout
/// decrypts its token again rather than keeping the first answer's card data).
package final class ApplePayService: Sendable {
    private let store: any ApplePayStore
    private let orders: OrderService
    private let cpu: CPUWorkPool
    private let logger: Logger
    private let now: @Sendable () -> Date
    /// Shares its remembered certificate chains with every per-merchant copy.
    private let decryptor: ApplePayDecryptor
    private let validation: MerchantValidation
    /// Parsed payment identities by record id; parsing PEM keys costs more than the decryption they serve. Bounded:
    /// identities deleted through another instance are never removed here, they age out.
    private let paymentIdentities = Mutex(LRUCache<String, ApplePayPaymentIdentity>(capacity: ApplePayService.cachedIdentities))
    /// Parsed Merchant Identity certificates by merchant, with the record they were parsed from.
    private let merchantIdentities = Mutex(
        LRUCache<String, (record: ApplePayMerchantIdentityRecord, identity: SigningIdentity)>(capacity: ApplePayService.cachedIdentities))
    /// Parsed identities kept in memory, of each kind.
    static let cachedIdentities = 10_000

    init(
        store: any ApplePayStore, orders: OrderService, cpu: CPUWorkPool, gateway: GatewayHTTPClient, configuration: ApplePayConfiguration,
        logger: Logger, now: @escaping @Sendable () -> Date
    ) {
        self.store = store
        self.orders = orders
        self.cpu = cpu
        self.logger = logger
        self.now = now
        decryptor = ApplePayDecryptor(
            identities: [], additionalTrustRoots: configuration.additionalTrustRoots, signingTimeTolerance: configuration.tokenMaxAge, now: now)
        validation = MerchantValidation(configuration: configuration, client: gateway, logger: logger)
    }

    // MARK: Payment-processing identities

    /// Stores a Payment Processing certificate and key, from PEM or PKCS#12; `merchantIdentifier`, when given, must be
    /// the certificate's.
    func addPaymentIdentity(merchant: MerchantRecord, body: JSONValue) async throws -> PaymentIdentityRecord {
        let certificatePEM: String
        let privateKeyPEM: String
        if let encoded = body["pkcs12"] {
            guard let text = encoded.stringValue, let bytes = Data(base64Encoded: text) else {
                throw OrderTrackError(.invalidPaymentIdentity, "pkcs12 must be a base64 PKCS#12 (.p12) file", field: "pkcs12")
            }
            let signing = try await readPKCS12(Array(bytes), password: body["password"]?.stringValue ?? "", refusedAs: .invalidPaymentIdentity)
            do {
                certificatePEM = try signing.certificate.serializeAsPEM().pemString
                privateKeyPEM = try signing.privateKey.serializeAsPEM().pemString
            } catch {
                throw OrderTrackError(.invalidPaymentIdentity, "the PKCS#12 key cannot be used: \(error)", field: "pkcs12")
            }
        } else {
            guard let certificate = body["certificatePEM"]?.stringValue, let key = body["privateKeyPEM"]?.stringValue else {
                throw OrderTrackError(
                    .invalidPaymentIdentity, "the body needs certificatePEM and privateKeyPEM, or pkcs12 and password", field: "certificatePEM")
            }
            (certificatePEM, privateKeyPEM) = (certificate, key)
        }
        let identity: ApplePayPaymentIdentity
        do {
            identity = try ApplePayPaymentIdentity(certificatePEM: certificatePEM, privateKeyPEM: privateKeyPEM)
        } catch {
            throw OrderTrackError(.invalidPaymentIdentity, error.reason, field: body["pkcs12"] == nil ? "certificatePEM" : "pkcs12")
        }
        // A certificate may name its merchant only by hash: the given identifier is compared by its hash and kept, so
        // the identity shows as `merchant.com.example` rather than 64 hex digits.
        var merchantIdentifier = identity.merchantIdentifier
        if let named = body["merchantIdentifier"] {
            guard let text = named.stringValue, identity.isFor(merchantIdentifier: text) else {
                let given =
                    named.stringValue.map { "\($0) (SHA-256 \(Hex.encode(SHA256.hash(data: Array($0.utf8))).uppercased()))" } ?? "not a string"
                throw OrderTrackError(
                    .invalidPaymentIdentity,
                    "merchantIdentifier is \(given) but the certificate is for \(identity.merchantIdentifier) "
                        + "(SHA-256 \(Hex.encode(identity.merchantIdentifierHash).uppercased()))",
                    field: "merchantIdentifier")
            }
            merchantIdentifier = text
        }
        let record = PaymentIdentityRecord(
            id: UUID().uuidString.lowercased(), merchantID: merchant.id, merchantIdentifier: merchantIdentifier,
            publicKeyHash: Data(identity.publicKeyHash).base64EncodedString(), notValidAfter: identity.certificate.notValidAfter,
            certificatePEM: certificatePEM, privateKeyPEM: privateKeyPEM, createdAt: now())
        let stored = try await store.addPaymentIdentity(record)
        paymentIdentities.withLock { _ = $0.setValue(identity, forKey: stored.id, cost: 1) }
        return stored
    }

    package func paymentIdentities(merchant: MerchantRecord) async throws -> [PaymentIdentityRecord] {
        try await store.paymentIdentities(merchantID: merchant.id)
    }

    func deletePaymentIdentity(merchant: MerchantRecord, id: String) async throws {
        guard try await store.deletePaymentIdentity(merchantID: merchant.id, id: id) else {
            throw OrderTrackError(.notFound, "no payment identity \(id)")
        }
        paymentIdentities.withLock { _ = $0.removeValue(forKey: id) }
    }

    // MARK: Tokens

    /// Verifies and decrypts a token with the merchant's payment-processing identities.
    ///
    /// - Throws: ``ApplePay/ApplePayError`` naming the check that failed.
    func decrypt(merchant: MerchantRecord, token: JSONValue) async throws -> ApplePayDecryptedToken {
        let parsed = try ApplePayToken(json: token)
        let records = try await store.paymentIdentities(merchantID: merchant.id)
        guard !records.isEmpty else {
            throw ApplePayError(
                .noMatchingKey, "this merchant has no payment-processing identity; add one with POST /api/v1/apple_pay/payment-identities")
        }
        var merchantDecryptor = decryptor
        merchantDecryptor.identities = try records.map(parsedIdentity)
        return try await merchantDecryptor.decrypt(parsed)
    }

    private func parsedIdentity(_ record: PaymentIdentityRecord) throws -> ApplePayPaymentIdentity {
        if let cached = paymentIdentities.withLock({ $0.value(forKey: record.id) }) { return cached }
        let identity: ApplePayPaymentIdentity
        do {
            identity = try ApplePayPaymentIdentity(certificatePEM: record.certificatePEM, privateKeyPEM: record.privateKeyPEM)
        } catch {
            throw OrderStoreError.corruptRecord(table: "apple_pay_payment_identities", reason: "identity \(record.id): \(error.reason)")
        }
        paymentIdentities.withLock { _ = $0.setValue(identity, forKey: record.id, cost: 1) }
        return identity
    }

    /// A checkout's answer: the order as created (or as first created, for a replay) and the decrypted payment.
    package struct Checkout: Sendable {
        var body: [UInt8]
        var created: Bool
    }

    /// Verifies and decrypts the token, checks that it pays exactly the stored order's `payment.total`, and creates the
    /// order once per transaction: the same token and order again answer the first response again (with the payment
    /// decrypted anew), the same transaction with another order is refused.
    func checkout(merchant: MerchantRecord, token: JSONValue, order: JSONValue, author: OrderChangeAuthor) async throws -> Checkout {
        let decrypted = try await decrypt(merchant: merchant, token: token)
        let payload = decrypted.payload
        let idempotency = OrderService.IdempotentRequest(
            // `/` never appears in Idempotency-Key headers, so these keys cannot collide with a merchant's.
            key: "apple-pay/\(decrypted.transactionId.lowercased())", requestHash: Secrets.sha256Hex(order.serialized()))
        let saved: [UInt8]
        let created: Bool
        do {
            if let replay = try await orders.savedResponse(merchant: merchant, idempotency: idempotency, grant: author.grant) {
                (saved, created) = (replay.body, false)
            } else {
                let webServiceURL = orders.webServiceURL
                switch try await orders.createOrder(
                    merchant: merchant, content: order, idempotency: idempotency,
                    author: OrderChangeAuthor(channel: .applePay, grant: author.grant, address: author.address),
                    // The order as stored, after translation: a body naming two totals cannot show one it was not paid.
                    accepting: { try payload.check(amount: try Self.expectedAmount(of: $0)) },
                    responseBody: {
                        $0.responseJSON(webServiceURL: webServiceURL).serialized()
                    })
                {
                case .created(_, let body): (saved, created) = (body, true)
                case .replayed(let record): (saved, created) = (record.body, false)
                }
            }
        } catch let error as OrderTrackError where error.code == .idempotencyKeyReused {
            throw OrderTrackError(
                .paymentAlreadyUsed,
                "transaction \(decrypted.transactionId) already created an order with a different order body; a payment creates one order")
        }
        let payment = decrypted.payload.json
        let transaction = JSONValue.string(decrypted.transactionId)
        let body = try await cpu.run {
            guard var response = try JSONValue.parse(saved).objectValue else {
                throw OrderStoreError.corruptRecord(table: "idempotency_keys", reason: "the stored checkout is not a JSON object")
            }
            response["payment"] = payment
            response["transactionId"] = transaction
            return JSONValue.object(response).serialized()
        }
        if created {
            logger.info(
                "Apple Pay checkout created an order",
                metadata: ["transaction": .string(decrypted.transactionId), "merchant_identifier": .string(decrypted.merchantIdentifier)])
        }
        return Checkout(body: body, created: created)
    }

    /// The amount an order's `payment.total` says the customer pays.
    static func expectedAmount(of order: JSONValue) throws -> ApplePayAmount {
        guard let total = order["payment"]?["total"], let currency = total["currency"]?.stringValue,
            let literal = total["amount"].flatMap(Amount.literal(of:))
        else {
            throw OrderTrackError.invalidOrder([
                ValidationProblem(path: "payment.total", message: "is required for an Apple Pay checkout: the payment's amount is checked against it")
            ])
        }
        guard let amount = ApplePayAmount(decimal: literal, currency: currency) else {
            throw OrderTrackError.invalidOrder([
                ValidationProblem(
                    path: "payment.total", message: "\(literal) \(currency) is not an amount in an ISO 4217 currency with its minor units")
            ])
        }
        return amount
    }

    // MARK: Merchant validation

    /// Stores the merchant's Merchant Identity certificate and what validation sends with it.
    func putMerchantIdentity(merchant: MerchantRecord, body: JSONValue) async throws -> ApplePayMerchantIdentityRecord {
        guard let encoded = body["pkcs12"]?.stringValue, let pkcs12 = Data(base64Encoded: encoded) else {
            throw OrderTrackError(
                .invalidMerchantIdentity, "pkcs12 must be the Merchant Identity certificate and key as a base64 PKCS#12 file", field: "pkcs12")
        }
        guard let merchantIdentifier = body["merchantIdentifier"]?.stringValue, (1...255).contains(merchantIdentifier.utf8.count) else {
            throw OrderTrackError(.invalidMerchantIdentity, "merchantIdentifier must be 1–255 characters", field: "merchantIdentifier")
        }
        guard let displayName = body["displayName"]?.stringValue, (1...64).contains(displayName.utf8.count) else {
            throw OrderTrackError(.invalidMerchantIdentity, "displayName must be 1–64 UTF-8 bytes (Apple's limit)", field: "displayName")
        }
        guard let list = body["domains"]?.arrayValue, (1...100).contains(list.count) else {
            throw OrderTrackError(.invalidMerchantIdentity, "domains must list 1–100 domains registered with Apple", field: "domains")
        }
        var domains: [String] = []
        for (index, item) in list.enumerated() {
            guard let domain = item.stringValue?.lowercased(), Self.isDomainName(domain) else {
                throw OrderTrackError(.invalidMerchantIdentity, "domains[\(index)] is not a fully-qualified domain name", field: "domains[\(index)]")
            }
            domains.append(domain)
        }
        let password = body["password"]?.stringValue ?? ""
        let signing = try await readPKCS12(Array(pkcs12), password: password, refusedAs: .invalidMerchantIdentity)
        let record = ApplePayMerchantIdentityRecord(
            merchantID: merchant.id, merchantIdentifier: merchantIdentifier, displayName: displayName, domains: domains, pkcs12: Array(pkcs12),
            password: password, updatedAt: now())
        try await store.putApplePayMerchantIdentity(record)
        merchantIdentities.withLock { _ = $0.setValue((record, signing), forKey: merchant.id, cost: 1) }
        return record
    }

    /// The merchant's Merchant Identity record and its parsed certificate.
    package func merchantIdentity(merchant: MerchantRecord) async throws -> (record: ApplePayMerchantIdentityRecord, identity: SigningIdentity) {
        guard let record = try await store.applePayMerchantIdentity(merchantID: merchant.id) else {
            throw OrderTrackError(
                .applePayNotConfigured, "no Merchant Identity certificate is configured; PUT /api/v1/apple_pay/merchant-identity first")
        }
        if let cached = merchantIdentities.withLock({ $0.value(forKey: merchant.id) }), cached.record == record { return cached }
        let signing: SigningIdentity
        do {
            signing = try await cpu.run { try SigningIdentity(pkcs12: record.pkcs12, password: record.password) }
        } catch {
            throw OrderTrackError(.applePayNotConfigured, "the stored Merchant Identity certificate cannot be read: \(error)")
        }
        merchantIdentities.withLock { _ = $0.setValue((record, signing), forKey: merchant.id, cost: 1) }
        return (record, signing)
    }

    /// Asks Apple for a payment session for `domain` at the browser's `validationURL`; Apple's answer, unchanged.
    package func session(merchant: MerchantRecord, validationURL: String, domain: String) async throws -> [UInt8] {
        guard let url = MerchantValidation.allowedGatewayURL(validationURL) else {
            throw OrderTrackError(
                .validationURLNotAllowed,
                "validationURL must be an https URL on Apple's payment gateway (apple-pay-gateway*.apple.com, default port)",
                field: "validationURL")
        }
        let (record, identity) = try await merchantIdentity(merchant: merchant)
        let requested = domain.lowercased()
        guard record.domains.contains(requested) else {
            throw OrderTrackError(
                .domainNotRegistered, "\(domain) is not one of the merchant's domains (\(record.domains.joined(separator: ", ")))", field: "domain")
        }
        return try await validation.requestSession(url: url, domain: requested, identity: record, signing: identity)
    }

    /// An uploaded PKCS#12 file, decrypted on the CPU pool (key derivation takes up to a second); refused with `code`.
    private func readPKCS12(_ bytes: [UInt8], password: String, refusedAs code: OrderTrackError.Code) async throws -> SigningIdentity {
        do {
            return try await cpu.run { try SigningIdentity(pkcs12: bytes, password: password) }
        } catch {
            throw OrderTrackError(code, "the PKCS#12 file cannot be read: \(error)", field: "pkcs12")
        }
    }

    /// A fully-qualified host name: dot-separated labels of letters, digits and inner hyphens, at most 253 bytes.
    static func isDomainName(_ text: String) -> Bool {
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        return text.utf8.count <= 253 && labels.count >= 2
            && labels.allSatisfy { label in
                (1...63).contains(label.utf8.count) && label.first != "-" && label.last != "-"
                    && label.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D }
            } && !(labels.last?.utf8.allSatisfy { (0x30...0x39).contains($0) } ?? true)
    }
}
