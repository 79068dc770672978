import Foundation

/// What the customer pays for an order, and how.
public struct Payment: Codable, Sendable, Hashable {
    /// Where the payment stands.
    public enum Status: String, Codable, Sendable, CaseIterable {
        /// Not yet authorized.
        case pending
        /// Authorized but not yet charged.
        case authorized
        /// Charged.
        case paid
        /// Paid back.
        case refunded
        /// The payment method was declined.
        case declined
        /// Cancelled before it was charged.
        case voided
    }

    /// The total amount.
    public var total: CurrencyAmount
    /// Where the payment stands; deprecated by Apple, and left out by some schemaVersion 2 orders, whose state is in
    /// ``transactions``.
    public var status: Status?
    /// The lines that make up the total (subtotal, tax, shipping, discounts).
    public var summaryItems: [SummaryItem]?
    /// The charges and refunds made so far.
    public var transactions: [PaymentTransaction]?
    /// Payment methods as Wallet shows them (e.g. a masked card number); localizable.
    public var paymentMethods: [String]?
    /// Identifiers of the Apple Pay transactions that paid the order.
    public var applePayTransactionIdentifiers: [String]?

    /// A payment with its total and status.
    public init(total: CurrencyAmount, status: Status?, summaryItems: [SummaryItem]? = nil, paymentMethods: [String]? = nil) {
        self.total = total
        self.status = status
        self.summaryItems = summaryItems
        self.paymentMethods = paymentMethods
    }
}

/// One labelled line of a payment summary, such as tax or shipping.
public struct SummaryItem: Codable, Sendable, Hashable {
    /// What the amount is for; localizable.
    public var label: String
    /// The amount.
    public var value: CurrencyAmount

    /// A summary line.
    public init(label: String, value: CurrencyAmount) {
        self.label = label
        self.value = value
    }
}

/// How a transaction was paid, as Wallet shows it.
public struct PaymentMethod: Codable, Sendable, Hashable {
    /// The method's name, e.g. a card name with its last digits; localizable.
    public var displayName: String

    /// A payment method with its display name.
    public init(displayName: String) {
        self.displayName = displayName
    }
}

/// One charge or refund of a payment.
public struct PaymentTransaction: Codable, Sendable, Hashable {
    /// Where the transaction stands.
    public enum Status: String, Codable, Sendable, CaseIterable {
        /// Submitted, not yet approved.
        case pending
        /// Approved, not yet settled.
        case approved
        /// Settled.
        case completed
        /// Cancelled before it settled.
        case cancelled
        /// Refused or failed.
        case failed
    }

    /// Whether money goes to the merchant or back to the customer.
    public enum TransactionType: String, Codable, Sendable, CaseIterable {
        /// A charge.
        case purchase
        /// A refund.
        case refund
    }

    /// The amount moved.
    public var amount: CurrencyAmount
    /// When the transaction was made.
    public var createdAt: Date
    /// How it was paid.
    public var paymentMethod: PaymentMethod
    /// Where the transaction stands.
    public var status: Status
    /// Charge or refund.
    public var transactionType: TransactionType
    /// The Apple Pay transaction, when Apple Pay paid it.
    public var applePayTransactionIdentifier: String?
    /// Name of a receipt file in the package.
    public var receipt: String?

    /// A transaction with its required fields.
    public init(amount: CurrencyAmount, createdAt: Date, paymentMethod: PaymentMethod, status: Status, transactionType: TransactionType) {
        self.amount = amount
        self.createdAt = createdAt
        self.paymentMethod = paymentMethod
        self.status = status
        self.transactionType = transactionType
    }
}
