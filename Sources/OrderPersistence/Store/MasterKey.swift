import Crypto
import Foundation

/// The key-encryption key that seals every private key and password the store keeps (AES-256-GCM).
///
/// It never enters the database: operators give it as `ORDERTRACK_MASTER_KEY` (base64 of 32 random bytes, e.g.
/// `openssl rand -base64 32`) or as a key file holding the same text.
public struct MasterKey: Sendable {
    let key: SymmetricKey

    /// A new key from the system's CSPRNG.
    public static func generate() -> MasterKey {
        MasterKey(key: SymmetricKey(size: .bits256))
    }

    private init(key: SymmetricKey) {
        self.key = key
    }

    /// Reads the base64 text of 32 bytes; surrounding whitespace (a key file's newline) is ignored.
    ///
    /// - Throws: ``OrderStoreError/invalidArgument(name:reason:)`` naming `source` when the text is not base64 of
    ///   exactly 32 bytes (the key itself is never part of the message).
    public init(base64 text: String, source: String) throws(OrderStoreError) {
        guard let bytes = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw .invalidArgument(name: source, reason: "is not base64; expected 32 random bytes in base64, e.g. from `openssl rand -base64 32`")
        }
        guard bytes.count == 32 else {
            throw .invalidArgument(name: source, reason: "holds \(bytes.count) bytes, not 32; generate one with `openssl rand -base64 32`")
        }
        key = SymmetricKey(data: bytes)
    }

    /// The key as base64 text, the format ``init(base64:source:)`` reads.
    public var base64: String {
        key.withUnsafeBytes { Data($0).base64EncodedString() }
    }
}

/// Seals and opens secret column values with a ``MasterKey``.
///
/// A sealed value is `sealed:v1:` followed by base64 of AES-GCM's nonce, ciphertext and tag. The authenticated data
/// names the table, the column and the row, so a sealed value copied into another row (another merchant's order
/// type, say) fails to open instead of lending that row its secret.
struct SecretSealer: Sendable {
    static let prefix = "sealed:v1:"

    let masterKey: MasterKey

    /// Where a secret lives: its table, column and row key; the authenticated data of its seal.
    struct Slot: Sendable {
        var table: String
        var column: String
        var row: String

        var authenticatedData: Data { Data("ordertrack/\(table)/\(column)/\(row)".utf8) }
    }

    func seal(_ plaintext: some DataProtocol, in slot: Slot) throws -> String {
        let box = try AES.GCM.seal(plaintext, using: masterKey.key, authenticating: slot.authenticatedData)
        guard let combined = box.combined else {
            throw OrderStoreError.database(operation: "seal a secret", reason: "AES-GCM gave no combined representation")
        }
        return Self.prefix + combined.base64EncodedString()
    }

    func seal(_ plaintext: String, in slot: Slot) throws -> String {
        try seal(Data(plaintext.utf8), in: slot)
    }

    /// Opens a sealed value; a value that is not sealed, or sealed with another key or for another slot, is an error.
    func open(_ stored: String, in slot: Slot) throws(OrderStoreError) -> Data {
        guard Self.isSealed(stored), let combined = Data(base64Encoded: String(stored.dropFirst(Self.prefix.count))) else {
            throw .corruptRecord(table: slot.table, reason: "\(slot.column) of \(slot.row) is not sealed with the master key")
        }
        do {
            return try AES.GCM.open(AES.GCM.SealedBox(combined: combined), using: masterKey.key, authenticating: slot.authenticatedData)
        } catch {
            throw .corruptRecord(
                table: slot.table, reason: "\(slot.column) of \(slot.row) does not open with the master key (another key, or moved from another row)")
        }
    }

    func openString(_ stored: String, in slot: Slot) throws(OrderStoreError) -> String {
        String(decoding: try open(stored, in: slot), as: UTF8.self)
    }

    static func isSealed(_ stored: String) -> Bool {
        stored.hasPrefix(prefix)
    }
}
