import Crypto
import Foundation
import WireFormats

/// Random secrets and their comparison.
package enum Secrets {
    /// `count` bytes from the system CSPRNG as unpadded base64url.
    package static func randomToken(bytes count: Int) -> String {
        // swift-crypto draws the key eight bytes per system call (one per byte, as this drew them, was 4 % of a request).
        SymmetricKey(size: SymmetricKeySize(bitCount: count * 8)).withUnsafeBytes { Base64URL.encode($0) }
    }

    /// An order's authenticationToken: 192 random bits (32 characters), above the 128 bits we require.
    static func authenticationToken() -> String { randomToken(bytes: 24) }

    /// The device token a Track in Wallet link's packages carry instead of the order's: HMAC-SHA256 keyed by the
    /// link's token (192 bits from the CSPRNG), so it is as hard to guess, the same on every opening of the link
    /// without being stored, and tells nothing of the link.
    static func walletLinkDeviceToken(linkToken: String) -> String {
        let key = SymmetricKey(data: Array(linkToken.utf8))
        return Base64URL.encode(Array(HMAC<SHA256>.authenticationCode(for: Array("ordertrack wallet link device token".utf8), using: key)))
    }

    /// A merchant API key; only its SHA-256 is stored.
    static func apiKey() -> String { "sk_" + randomToken(bytes: 32) }

    /// A restricted API key (limited scopes); the prefix tells people it is not the secret key.
    static func restrictedAPIKey() -> String { "rk_" + randomToken(bytes: 32) }

    /// Lowercase hex SHA-256 of a secret, the form keys are stored and looked up by.
    package static func sha256Hex(_ text: some DataProtocol) -> String {
        // Hex.encode rather than a String(format:) per byte: every merchant API call hashes its key.
        Hex.encode(SHA256.hash(data: text))
    }

    /// Compares secrets in time that depends only on their lengths, never on where they differ.
    package static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
        var lhs = lhs
        var rhs = rhs
        // In place: every device call compares its token, and copies would be an allocation each.
        return lhs.withUTF8 { left in
            rhs.withUTF8 { right in
                // The length difference at full width: truncated to a byte, lengths 256 apart would compare equal.
                var difference = left.count ^ right.count
                for index in 0..<max(left.count, right.count) {
                    difference |= Int((index < left.count ? left[index] : 0) ^ (index < right.count ? right[index] : 0))
                }
                return difference == 0
            }
        }
    }
}
