// libFuzzer: -max_len=4096
import OrderModel

// Amount text comes straight from merchant JSON. Normalizing to a currency's minor units must give decimal text
// with exactly that many fraction digits.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard Amount.decimalText(text) == text else {
        precondition(Amount.fractionDigits(text) == nil && Amount.normalized(text, currency: "USD") == nil, "non-decimal text accepted")
        return 0
    }
    let fraction = Amount.fractionDigits(text)!
    precondition(fraction >= 0 && fraction < text.utf8.count, "fraction digits out of range")
    _ = Amount.decimal(text)
    for currency in ["JPY", "USD", "BHD", "CLF"] {
        guard let normalized = Amount.normalized(text, currency: currency) else { continue }
        precondition(Amount.decimalText(normalized) != nil, "normalized \(currency) amount is not decimal text")
        precondition(Amount.fractionDigits(normalized) == ISOCodes.minorUnits(of: currency), "wrong minor units for \(currency)")
        precondition(Amount.normalized(normalized, currency: currency) == normalized, "normalization is not idempotent")
    }
    return 0
}
