/// Where a change of an order came from, as the order's transcript names it.
enum OrderChangeAuthor: String, Sendable {
    /// The merchant's server, through `/api/v1`.
    case merchantAPI = "merchant API"
    /// A person on the dashboard's order page.
    case dashboard
    /// A payment completed through the Apple Pay endpoints.
    case applePay = "Apple Pay"
}
