import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import OrderModel
import QRCode

/// "Track in Wallet" for customers: `/track/{token}` serves the order's current signed package, carrying the link's own
/// device token, to whoever holds the link, in the form Safari on iPhone and Mac offers to add to Wallet;
/// `/js/ordertrack.js` is the script merchants put on their confirmation page to show the button (and, on a computer,
/// the link as a QR code for the phone).
struct TrackRoutes: Sendable {
    let walletLinks: WalletLinkService
    let packages: PackageService
    /// `ordertrack.js` and the page a link that opens nothing shows (`Resources/Track`).
    let resources: WebResources

    func add(to router: Router<OrderTrackRequestContext>) {
        router.get("js/ordertrack.js") { request, _ in
            guard var response = resources.staticFile("ordertrack.js", request: request) else { throw APIError.notFound("no such file") }
            // Merchants load it from their own origin's pages.
            response.headers[.accessControlAllowOrigin] = "*"
            return response
        }
        let track = router.group("track").add(middleware: PageSecurityHeaders())
        track.get(":token") { _, context in
            switch try await walletLinks.resolve(token: try RequestParsing.identifier("token", context)) {
            case .success(let opened):
                let order = opened.order
                let package = try await packages.package(for: order, carrying: opened.device)
                // Used up only by a download that gets its package; of two racing, one does.
                guard try await walletLinks.use(opened.record) else { return page(.used(walletLinks.now())) }
                return Response(
                    status: .ok,
                    headers: [
                        .contentType: WalletRoutes.packageContentType,
                        .contentDisposition: ContentDisposition.value(
                            "inline", name: order.orderIdentifier, fileExtension: "order", fallback: "order"),
                        // A revoked link must stop working at once: nothing may keep the package.
                        .cacheControl: "no-store",
                    ],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: package)))
            case .failure(let refusal):
                return page(refusal)
            }
        }
        // The link as a QR code, for a customer at a computer to scan with the phone that has Wallet. Drawn only for a
        // link that works now, and never cached, like the link itself.
        track.get(":token/qr.svg") { request, context in
            let token = try RequestParsing.identifier("token", context)
            if case .failure(let refusal) = try await walletLinks.resolve(token: token) { return page(refusal) }
            let url = walletLinks.publicURL + WalletLinkService.pathPrefix + token
            let code = try QRCode(Array(url.utf8), errorCorrection: .medium)
            return Response(
                status: .ok, headers: [.contentType: "image/svg+xml", .cacheControl: "no-store"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: code.svg())))
        }
    }

    /// The short page a link that opens nothing shows: 410 for a link that worked once, 404 for one never issued.
    func page(_ refusal: WalletLinkService.Refusal) -> Response {
        switch refusal {
        case .unknown:
            resources.page(
                "wallet-link", ["heading": "Link not found", "message": "This order link does not exist. Check that it was copied whole."],
                status: .notFound)
        case .expired(let date):
            resources.page(
                "wallet-link",
                [
                    "heading": "This link has expired",
                    "message": "It stopped working on \(Self.dateText(date)). Ask the shop for a new link to add the order to Wallet.",
                ], status: .gone)
        case .revoked:
            resources.page(
                "wallet-link",
                ["heading": "This link was withdrawn", "message": "The shop withdrew this link. Ask the shop for a new one."],
                status: .gone)
        case .used:
            resources.page(
                "wallet-link",
                [
                    "heading": "This link was used",
                    "message": "It adds the order to one Wallet, once, and it already has. Open the order on the shop's site for a new link.",
                ], status: .gone)
        }
    }

    static func dateText(_ date: Date) -> String {
        String(DateTimeFormat.formatRFC3339(date).prefix(10))
    }
}
