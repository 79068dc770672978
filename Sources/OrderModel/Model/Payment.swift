import Foundation

public struct Payment: Codable, Sendable, Hashable {
    public enum Status: String, Codable, Sendable, CaseIterable { case pending, authorized, paid, refunded, declined, voided }

    public var total: CurrencyAmount
    public var status: Status
    public var summaryItems: [SummaryItem]?
    public var transactions: [PaymentTransaction]?
    public var paymentMethods: [String]?
    public var applePayTransactionIdentifiers: [String]?

    public init(total: CurrencyAmount, status: Status, summaryItems: [SummaryItem]? = nil, paymentMethods: [String]? = nil) {
        self.total = total
        self.status = status
        self.summaryItems = summaryItems
        self.paymentMethods = paymentMethods
    }
}

public struct SummaryItem: Codable, Sendable, Hashable {
    public var label: String
    public var value: CurrencyAmount

    public init(label: String, value: CurrencyAmount) {
        self.label = label
        self.value = value
    }
}

public struct PaymentMethod: Codable, Sendable, Hashable {
    public var displayName: String

    public init(displayName: String) {
        self.displayName = displayName
    }
}

public struct PaymentTransaction: Codable, Sendable, Hashable {
    public enum Status: String, Codable, Sendable, CaseIterable { case pending, approved, completed, cancelled, failed }
    public enum TransactionType: String, Codable, Sendable, CaseIterable { case purchase, refund }

    public var amount: CurrencyAmount
    public var createdAt: Date
    public var paymentMethod: PaymentMethod
    public var status: Status
    public var transactionType: TransactionType
    public var applePayTransactionIdentifier: String?
    /// Name of a receipt file in the package.
    public var receipt: String?

    public init(amount: CurrencyAmount, createdAt: Date, paymentMethod: PaymentMethod, status: Status, transactionType: TransactionType) {
        self.amount = amount
        self.createdAt = createdAt
        self.paymentMethod = paymentMethod
        self.status = status
        self.transactionType = transactionType
    }
}
