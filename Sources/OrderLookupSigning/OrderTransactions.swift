import Foundation
import OrderModel

/// Maps an order to the transactions a lookup answers with: one per line item, in the order's line item order.
///
/// - `transactionId` and `originalTransactionId`: ``TransactionIdentifier/derive(orderTypeIdentifier:orderIdentifier:lineItemIndex:)``.
/// - `productId`: the SKU, else the GTIN, else the title (Apple requires a product identifier).
/// - `purchaseDate` and `originalPurchaseDate`: the order's `createdAt`.
/// - `quantity`: the line item's quantity rounded to a whole number, at least 1.
/// - `price` and `currency`: the line item's price (the unit price) × 1000, rounded, and its currency.
/// - A line item whose quantity or price in thousandths does not fit in 64 bits has no transaction: signing another
///   number would be worse than none. The schema refuses such items (audit L20); orders stored before it may have them.
/// - `type` `Consumable` (the same product can be bought again in another order), `inAppOwnershipType` `PURCHASED`,
///   `transactionReason` `PURCHASE`, `environment` `Production`.
/// - `revocationDate` and `revocationReason` `0`: every item when the payment is refunded (the latest refund's date,
///   else the order's `updatedAt`); otherwise an item listed in a completed return (matched by SKU, else by title), at
///   the return's `returnedAt`, else the order's `updatedAt`.
public enum OrderTransactions {
    /// Where the transactions come from apart from the order: the key that asked and the time of signing.
    public struct Context: Sendable, Equatable {
        /// The bundle identifier written to every transaction (the lookup key's).
        public var bundleId: String
        /// ISO 3166-1 alpha-3 storefront code.
        public var storefront: String
        /// The `signedDate` of every transaction.
        public var signedAt: Date

        /// A context; see the properties.
        public init(bundleId: String, storefront: String, signedAt: Date) {
            self.bundleId = bundleId
            self.storefront = storefront
            self.signedAt = signedAt
        }
    }

    /// The payloads of `order`'s transactions, one per line item; empty for an order without line items.
    public static func payloads(for order: Order, context: Context) -> [JWSTransactionDecodedPayload] {
        let purchased = milliseconds(order.createdAt)
        return (order.lineItems ?? []).enumerated().compactMap { index, item in
            guard let quantity = wholeQuantity(item.quantity) else { return nil }
            var price: Int64?
            if let amount = item.price?.amount {
                guard let thousandths = milliUnits(amount) else { return nil }
                price = thousandths
            }
            let transactionId = TransactionIdentifier.derive(
                orderTypeIdentifier: order.orderTypeIdentifier, orderIdentifier: order.orderIdentifier, lineItemIndex: index)
            let revoked = revocationDate(of: item, in: order)
            return JWSTransactionDecodedPayload(
                transactionId: transactionId, originalTransactionId: transactionId, bundleId: context.bundleId,
                productId: item.sku ?? item.gtin ?? item.title, purchaseDate: purchased, originalPurchaseDate: purchased,
                quantity: quantity, type: "Consumable", inAppOwnershipType: "PURCHASED",
                signedDate: milliseconds(context.signedAt), environment: "Production", transactionReason: "PURCHASE",
                storefront: context.storefront, price: price, currency: item.price?.currency,
                revocationDate: revoked.map(milliseconds), revocationReason: revoked == nil ? nil : 0)
        }
    }

    private static func revocationDate(of item: LineItem, in order: Order) -> Date? {
        if let payment = order.payment, isRefunded(payment) {
            let refunds = (payment.transactions ?? []).filter { $0.transactionType == .refund }.map(\.createdAt)
            return refunds.max() ?? order.updatedAt
        }
        let completed = (order.returns ?? []).filter { $0.status == .completed }
        guard let match = completed.first(where: { ($0.lineItems ?? []).contains { same($0, item) } }) else { return nil }
        return match.returnedAt ?? order.updatedAt
    }

    /// Refunded as the deprecated `status` says, or as the transactions that replace it say: completed refunds in the
    /// total's currency that add up to the total (a schemaVersion 2 order may have no status at all). A partial refund
    /// revokes nothing.
    static func isRefunded(_ payment: Payment) -> Bool {
        if payment.status == .refunded { return true }
        let refunded = (payment.transactions ?? [])
            .filter { $0.transactionType == .refund && $0.status == .completed && $0.amount.currency == payment.total.currency }
            .reduce(Decimal(0)) { $0 + $1.amount.amount }
        return refunded > 0 && refunded >= payment.total.amount
    }

    private static func same(_ returned: LineItem, _ item: LineItem) -> Bool {
        if let sku = item.sku, let returnedSKU = returned.sku { return sku == returnedSKU }
        return returned.title == item.title
    }

    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// `amount` × 1000, rounded; `nil` beyond 64 bits.
    static func milliUnits(_ amount: Decimal) -> Int64? {
        int64(rounded(amount * 1000))
    }

    /// `quantity` rounded to a whole number, at least 1; `nil` beyond 64 bits.
    static func wholeQuantity(_ quantity: Decimal) -> Int? {
        int64(rounded(quantity)).map { max(1, Int($0)) }
    }

    /// A whole number as an `Int64`, or `nil` when it does not fit (`NSDecimalNumber.int64Value` would wrap it).
    private static func int64(_ whole: Decimal) -> Int64? {
        guard whole >= Decimal(Int64.min), whole <= Decimal(Int64.max) else { return nil }
        return NSDecimalNumber(decimal: whole).int64Value
    }

    private static func rounded(_ value: Decimal) -> Decimal {
        var input = value
        var result = Decimal()
        NSDecimalRound(&result, &input, 0, .plain)
        return result
    }
}
