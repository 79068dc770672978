import Foundation

/// Which of the merchant's localizations (`fr.lproj/order.strings`, …) the Wallet preview shows: the one the page
/// asks for (`?locale=fr`; any other value shows the order's own texts), else the first of the browser's languages that
/// has one, as Wallet picks from the device's languages, else none.
struct PreviewLocalization: Sendable {
    /// Localization codes with an `order.strings`, sorted.
    let available: [String]
    let chosen: String?

    init(available assetNames: Set<String>, requested: String?, acceptLanguage: String?) {
        let available = assetNames.compactMap { name in
            name.hasSuffix(".lproj/order.strings") ? String(name.dropLast(".lproj/order.strings".count)) : nil
        }.sorted()
        self.available = available
        let preferred = (acceptLanguage ?? "").split(separator: ",").compactMap {
            $0.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) }
        }
        if let requested {
            chosen = available.contains(requested) ? requested : nil
        } else {
            chosen = preferred.flatMap { [$0, String($0.prefix { $0 != "-" })] }.first { available.contains($0) }
        }
    }
}
