import CarrierTracking
import Foundation
import OrderPersistence

/// Creates, lists and deletes merchants' carrier connections; shared by the merchant API and the command line.
///
/// A connection pairs a provider with what verifies its webhooks (a shared secret, or for ShipEngine the URL of its
/// key set) and the merchant's status map overrides. Its id is random (144 bits from the system CSPRNG) and names its
/// webhook URL, `<public URL>/carriers/<provider>/<id>`.
public struct CarrierConnections: Sendable {
    let store: any CarrierConnectionStore
    let publicURL: String
    let jwksHosts: Set<String>
    let now: @Sendable () -> Date
    let onDelete: @Sendable (String) -> Void

    /// The longest webhook secret accepted, in UTF-8 bytes; the providers' secrets are tens of bytes.
    public static let maximumSecretLength = 512
    /// The longest `jwksURL` accepted, in UTF-8 bytes.
    public static let maximumJWKSURLLength = 2048

    /// A service over `store` naming webhook URLs under `publicURL`, accepting `jwksURL`s on `jwksHosts`, dating
    /// connections by `now`, and telling `onDelete` each deleted connection's id (the server's webhook route forgets
    /// its cached copy then, whichever page or API deleted it).
    public init(
        store: any CarrierConnectionStore, publicURL: String, jwksHosts: Set<String> = CarrierConfiguration().jwksHosts,
        now: @escaping @Sendable () -> Date = Date.init, onDelete: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.store = store
        self.publicURL = publicURL
        self.jwksHosts = jwksHosts
        self.now = now
        self.onDelete = onDelete
    }

    /// What a new connection asks for.
    public struct Creation: Sendable {
        /// The provider's name: `aftership`, `easypost`, `shippo`, `shipengine` or `generic`.
        public var provider: String
        /// The webhook signing secret; required for every provider but ShipEngine, which takes none.
        public var secret: String?
        /// ShipEngine only: where its keys are published, when not ShipEngine's own.
        public var jwksURL: String?
        /// Overrides of the provider's default status map (``CarrierStatusMap``).
        public var statusMap: [String: String]?

        /// A request with every field given.
        public init(provider: String, secret: String? = nil, jwksURL: String? = nil, statusMap: [String: String]? = nil) {
            self.provider = provider
            self.secret = secret
            self.jwksURL = jwksURL
            self.statusMap = statusMap
        }
    }

    /// Makes a connection for `merchantID`.
    ///
    /// - Throws: ``OrderTrackError/Code/invalidCarrierConnection`` naming the field at fault,
    ///   ``OrderStoreError/merchantNotFound(id:)``.
    public func create(merchantID: String, _ creation: Creation) async throws -> CarrierConnectionRecord {
        guard let provider = CarrierProvider(rawValue: creation.provider) else {
            throw invalid(
                "provider",
                "provider must be one of \(CarrierProvider.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(creation.provider.prefix(64))\""
            )
        }
        if provider == .shipengine {
            guard creation.secret == nil else {
                throw invalid("secret", "shipengine takes no secret: it signs with RSA keys published at its jwksURL")
            }
        } else {
            guard let secret = creation.secret, !secret.isEmpty, secret.utf8.count <= Self.maximumSecretLength else {
                throw invalid(
                    "secret",
                    "secret is required for \(provider.rawValue): the provider's webhook signing secret, 1 to \(Self.maximumSecretLength) bytes")
            }
            guard creation.jwksURL == nil else { throw invalid("jwksURL", "jwksURL is for shipengine connections only") }
        }
        let jwksURL = try creation.jwksURL.map(checkedJWKSURL)
        let statusMap = creation.statusMap.flatMap { $0.isEmpty ? nil : $0 }
        if let statusMap { try check(statusMap, provider: provider) }
        let record = CarrierConnectionRecord(
            id: "cc_" + Secrets.randomToken(bytes: 18), merchantID: merchantID, provider: provider.rawValue, secret: creation.secret,
            jwksURL: jwksURL, statusMap: statusMap, createdAt: now())
        try await store.addCarrierConnection(record)
        return record
    }

    /// The merchant's connections, oldest first (with their secrets: callers show them nowhere).
    public func list(merchantID: String) async throws -> [CarrierConnectionRecord] {
        try await store.carrierConnections(merchantID: merchantID)
    }

    /// Deletes one of the merchant's connections and its events.
    ///
    /// - Throws: ``OrderTrackError/Code/notFound`` when the merchant has no connection with this id (another
    ///   merchant's included).
    public func delete(merchantID: String, id: String) async throws {
        guard try await store.deleteCarrierConnection(merchantID: merchantID, id: id) else {
            throw OrderTrackError(.notFound, "no carrier connection \(id.prefix(64)) of this merchant")
        }
        onDelete(id)
    }

    /// The URL the merchant gives the provider: `<public URL>/carriers/<provider>/<id>`.
    public func webhookURL(_ record: CarrierConnectionRecord) -> String {
        "\(publicURL)/carriers/\(record.provider)/\(record.id)"
    }

    /// An https URL on an allowed host, without credentials or fragment: the server fetches it.
    private func checkedJWKSURL(_ text: String) throws -> String {
        let rule = "jwksURL must be an https URL on \(jwksHosts.sorted().joined(separator: " or ")), such as \(CarrierConfiguration.defaultJWKSURL)"
        guard text.utf8.count <= Self.maximumJWKSURLLength, let components = URLComponents(string: text), components.scheme == "https",
            let host = components.host?.lowercased(), jwksHosts.contains(host), components.user == nil, components.password == nil,
            components.fragment == nil, let url = components.url
        else { throw invalid("jwksURL", rule) }
        return url.absoluteString
    }

    /// Each override on its own, so the error names the key at fault.
    private func check(_ statusMap: [String: String], provider: CarrierProvider) throws {
        guard statusMap.count <= CarrierStatusMap.maximumOverrides else {
            throw invalid("statusMap", "statusMap has \(statusMap.count) entries; at most \(CarrierStatusMap.maximumOverrides) are allowed")
        }
        for (key, value) in statusMap.sorted(by: { $0.key < $1.key }) {
            do {
                _ = try CarrierStatusMap(provider: provider, overrides: [key: value])
            } catch {
                throw invalid("statusMap.\(key.prefix(128))", error.message)
            }
        }
    }

    private func invalid(_ field: String, _ reason: String) -> OrderTrackError {
        OrderTrackError(.invalidCarrierConnection, reason, field: field)
    }
}
