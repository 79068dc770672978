import OrderModel

/// The decrypted `paymentData`: the card credentials the merchant forwards to its payment processor.
///
/// ``description`` and reflection redact the card data, so logging a payload does not leak it.
public struct ApplePayPayload: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// What the payload's credential is: 3-D Secure (a cryptogram) or EMV data.
    public enum DataType: Hashable, Sendable {
        case threeDSecure
        case emv
        /// A type this library does not know, as Apple wrote it.
        case other(String)
    }

    /// Device PAN (DPAN), or the merchant PAN for merchant tokens.
    public var applicationPrimaryAccountNumber: String
    /// Expiry as `YYMMDD`.
    public var applicationExpirationDate: String
    /// ISO 4217 numeric code as text, e.g. `"840"`.
    public var currencyCode: String
    /// The amount in the currency's minor units.
    public var transactionAmount: Int64
    /// The cardholder's name, when the payment request asked for it.
    public var cardholderName: String?
    /// Hex identifier of the device's manufacturer.
    public var deviceManufacturerIdentifier: String
    /// Which credential the payload's `paymentData` object carries.
    public var paymentDataType: DataType
    /// 3-D Secure: the cryptogram (Base64).
    public var onlinePaymentCryptogram: String?
    /// 3-D Secure: the ECI indicator; forward it whenever present.
    public var eciIndicator: String?
    /// EMV: the EMV data (Base64).
    public var emvData: String?
    /// EMV, RSA_v1 only: the encrypted PIN data (hex).
    public var encryptedPINData: String?
    /// Multi-merchant payments: one `{merchantIdentifier, authenticationData, transactionAmount}` per merchant.
    public var authenticationResponses: [JSONValue]?
    /// The merchant token's identifier, for merchant-token (recurring, automatic reload) payments.
    public var merchantTokenIdentifier: String?
    /// The merchant token's metadata as Apple sent it.
    public var merchantTokenMetadata: JSONValue?
    /// The decrypted JSON object exactly as Apple sent it, for forwarding to a processor.
    public var json: JSONValue

    /// Reads the decrypted plaintext. Errors never quote it.
    init(plaintext: [UInt8]) throws(ApplePayError) {
        guard let value = try? JSONValue.parse(plaintext), value.objectValue != nil else {
            throw ApplePayError(.malformedToken, "the decrypted payload is not a JSON object")
        }
        func string(_ key: String, in object: JSONValue = value) throws(ApplePayError) -> String {
            guard let text = object[key]?.stringValue else {
                throw ApplePayError(.malformedToken, "the decrypted payload lacks the string \(key)")
            }
            return text
        }
        func optional(_ key: String, in object: JSONValue = value) throws(ApplePayError) -> String? {
            guard let field = object[key] else { return nil }
            guard let text = field.stringValue else {
                throw ApplePayError(.malformedToken, "\(key) in the decrypted payload is not a string")
            }
            return text
        }
        applicationPrimaryAccountNumber = try string("applicationPrimaryAccountNumber")
        applicationExpirationDate = try string("applicationExpirationDate")
        guard applicationExpirationDate.utf8.count == 6, applicationExpirationDate.utf8.allSatisfy({ (0x30...0x39).contains($0) })
        else { throw ApplePayError(.malformedToken, "applicationExpirationDate in the decrypted payload is not YYMMDD") }
        currencyCode = try string("currencyCode")
        guard let literal = value["transactionAmount"]?.numberLiteral, let amount = Int64(literal) else {
            throw ApplePayError(.malformedToken, "transactionAmount in the decrypted payload is not an integer")
        }
        transactionAmount = amount
        cardholderName = try optional("cardholderName")
        deviceManufacturerIdentifier = try string("deviceManufacturerIdentifier")
        switch try string("paymentDataType") {
        case "3DSecure": paymentDataType = .threeDSecure
        case "EMV": paymentDataType = .emv
        case let other: paymentDataType = .other(other)
        }
        guard let credential = value["paymentData"], credential.objectValue != nil else {
            throw ApplePayError(.malformedToken, "the decrypted payload lacks the paymentData object")
        }
        onlinePaymentCryptogram = try optional("onlinePaymentCryptogram", in: credential)
        eciIndicator = try optional("eciIndicator", in: credential)
        emvData = try optional("emvData", in: credential)
        encryptedPINData = try optional("encryptedPINData", in: credential)
        switch paymentDataType {
        case .threeDSecure where onlinePaymentCryptogram == nil:
            throw ApplePayError(.malformedToken, "a 3DSecure payload lacks paymentData.onlinePaymentCryptogram")
        case .emv where emvData == nil:
            throw ApplePayError(.malformedToken, "an EMV payload lacks paymentData.emvData")
        default: break
        }
        if let responses = value["authenticationResponses"] {
            guard let list = responses.arrayValue else {
                throw ApplePayError(.malformedToken, "authenticationResponses in the decrypted payload is not an array")
            }
            authenticationResponses = list
        }
        merchantTokenIdentifier = try optional("merchantTokenIdentifier")
        merchantTokenMetadata = value["merchantTokenMetadata"]
        json = value
    }

    /// Throws ``ApplePayError/Code/currencyMismatch`` or ``ApplePayError/Code/amountMismatch`` unless the payment is
    /// for exactly `expected`.
    public func check(amount expected: ApplePayAmount) throws(ApplePayError) {
        guard let numeric = ISO4217.numericCode(of: expected.currency) else {
            throw ApplePayError(.currencyMismatch, "the expected currency \(expected.currency) is not an ISO 4217 code")
        }
        guard Int(currencyCode) == numeric else {
            throw ApplePayError(
                .currencyMismatch, "the payment is in currency \(currencyCode), the order in \(expected.currency) (\(numeric))")
        }
        guard transactionAmount == expected.minorUnits else {
            throw ApplePayError(
                .amountMismatch,
                "the payment is for \(transactionAmount) minor units, the order for \(expected.minorUnits) \(expected.currency)")
        }
    }

    /// Currency, amount and type only: card data is redacted.
    public var description: String {
        "ApplePayPayload(currency: \(currencyCode), amount: \(transactionAmount), type: \(paymentDataType), card data redacted)"
    }

    /// The redacted ``description``.
    public var debugDescription: String { description }

    /// No children, so `dump` and reflection do not reveal card data.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
