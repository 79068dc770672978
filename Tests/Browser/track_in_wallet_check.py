"""Checks the Track in Wallet script on a merchant's page in headless Chromium, against a live `ordertrack serve`.

    python3 Tests/Browser/track_in_wallet_check.py BASE_URL API_KEY SCREENSHOT_DIR

A merchant confirmation page is served from another origin with a strict Content-Security-Policy (no inline styles,
scripts only from itself and OrderTrack); it loads /js/ordertrack.js and calls OrderTrack.addToWallet with a link made
through the API. On a computer the page must show the button and a QR code that zbar's `zbarimg` reads back as the
link; on an iPhone, the button alone. A second page mints a single-use link through the merchant's own backend right
before the button shows (`mint`); that link downloads once, then answers 410. Prints one line per step.
"""

import json
import subprocess
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from merchant_api import merchant_api
from playwright.sync_api import expect, sync_playwright

BASE, API_KEY, SHOTS = sys.argv[1], sys.argv[2], Path(sys.argv[3])
CHROMIUM = "/usr/bin/chromium"
IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1"
)


api = merchant_api(BASE, API_KEY)


def merchant_page(link: str, script: str = "/confirm.js") -> bytes:
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Thank you for your order</title>
<link rel="icon" href="data:,"><link rel="stylesheet" href="/shop.css"></head>
<body><h1>Thank you for your order</h1><p>We will let you know when it ships.</p>
<div id="track-in-wallet"></div>
<script src="{BASE}/js/ordertrack.js"></script>
<script src="{script}" data-link="{link}"></script>
</body></html>""".encode()


def serve_merchant(link: str, order: dict) -> ThreadingHTTPServer:
    minted: list[str] = []

    def mint() -> tuple[str, bytes]:
        # The merchant's backend: a single-use link for the signed-in customer's order, made when the page asks.
        made = api("POST", f"/api/v1/orders/{order['orderTypeIdentifier']}/{order['orderIdentifier']}/wallet-link",
                   {"singleUse": True, "expiresIn": 600})
        minted.append(made["url"])
        return "application/json", json.dumps({"url": made["url"]}).encode()

    files = {
        "/": ("text/html; charset=utf-8", merchant_page(link)),
        "/shop.css": ("text/css", b"body { font: 16px system-ui, sans-serif; margin: 40px; color: #222; }"),
        "/confirm.js": (
            "text/javascript",
            b"OrderTrack.addToWallet({ url: document.currentScript.dataset.link, container: '#track-in-wallet' });",
        ),
        "/single": ("text/html; charset=utf-8", merchant_page("", "/confirm-single.js")),
        "/confirm-single.js": (
            "text/javascript",
            b"OrderTrack.addToWallet({ mint: () => fetch('/mint', { method: 'POST' }).then((answer) => answer.json())"
            b".then((link) => link.url), container: '#track-in-wallet' });",
        ),
    }

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (the http.server API)
            content_type, body = mint() if self.path == "/mint" else ("text/plain", b"")
            self.send_response(200 if self.path == "/mint" else 404)
            self.send_header("Content-Type", content_type)
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:  # noqa: N802 (the http.server API)
            content_type, body = files.get(self.path, ("text/plain", b""))
            self.send_response(200 if self.path in files else 404)
            self.send_header("Content-Type", content_type)
            # The merchant's own strict policy: no inline script or style, images and scripts from OrderTrack allowed.
            self.send_header(
                "Content-Security-Policy", f"default-src 'self'; script-src 'self' {BASE}; img-src 'self' data: {BASE}; style-src 'self'")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *arguments) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.minted = minted  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main() -> int:
    SHOTS.mkdir(parents=True, exist_ok=True)
    number = f"T-{uuid.uuid4().hex[:6].upper()}"
    created = api("POST", "/api/v1/orders", {
        # The development order type: the dashboard check may have added others by the time this runs.
        "orderTypeIdentifier": "order.dev.ordertrack.demo", "orderIdentifier": number, "orderNumber": number,
        "merchant": {"displayName": "Demo Shop", "merchantIdentifier": "merchant.dev.ordertrack.demo", "url": "https://shop.example.com"},
        "orderManagementURL": "https://shop.example.com/orders/" + number,
        "payment": {"total": {"amount": "18.00", "currency": "USD"}, "status": "paid"},
        "lineItems": [{"title": "Tea sampler", "quantity": 1, "price": {"amount": "18.00", "currency": "USD"}}],
        "fulfillments": [{"fulfillmentType": "shipping", "fulfillmentIdentifier": "ship-1", "status": "processing"}],
    })
    details = created["orderDetails"]
    link = api("POST", f"/api/v1/orders/{details['orderTypeIdentifier']}/{details['orderIdentifier']}/wallet-link")["url"]
    shop = serve_merchant(link, details)
    shop_url = f"http://127.0.0.1:{shop.server_address[1]}/"
    errors: list[str] = []
    failed = False
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-dev-shm-usage"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(shop_url)
            button = page.get_by_role("link", name="Add to Apple Wallet")
            expect(button).to_be_visible()
            assert button.get_attribute("href") == link, button.get_attribute("href")
            code = page.get_by_role("img", name="QR code of the link that adds this order to Apple Wallet")
            expect(code).to_be_visible()
            page.wait_for_function("document.querySelector('.ordertrack-wallet img').naturalWidth > 0")
            page.screenshot(path=str(SHOTS / "track-in-wallet-desktop.png"), full_page=True)
            qr_image = SHOTS / "track-in-wallet-qr.png"
            code.screenshot(path=str(qr_image))
            decoded = subprocess.run(["zbarimg", "--raw", "-q", str(qr_image)], capture_output=True, text=True, check=True).stdout.strip()
            assert decoded == link, f"zbarimg read {decoded!r}, not {link!r}"
            print("browser: ok the button and a QR code that zbarimg reads as the link, under the merchant's strict CSP")

            phone = browser.new_context(user_agent=IPHONE, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True).new_page()
            phone.goto(shop_url)
            expect(phone.get_by_role("link", name="Add to Apple Wallet")).to_be_visible()
            expect(phone.get_by_role("img")).to_have_count(0)
            phone.screenshot(path=str(SHOTS / "track-in-wallet-phone.png"), full_page=True)
            print("browser: ok on an iPhone the button alone")

            package = page.request.get(link)
            assert package.status == 200 and package.headers["content-type"] == "application/vnd.apple.finance.order", package.status
            assert package.headers["content-disposition"].startswith("inline"), package.headers["content-disposition"]
            print("browser: ok the link serves the signed order inline")
            single = browser.new_page(viewport={"width": 1280, "height": 800})
            single.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
            single.on("pageerror", lambda error: errors.append(str(error)))
            single.goto(shop_url + "single")
            minted_button = single.get_by_role("link", name="Add to Apple Wallet")
            expect(minted_button).to_be_visible()
            minted = shop.minted  # type: ignore[attr-defined]
            assert len(minted) == 1 and minted_button.get_attribute("href") == minted[0], (minted, minted_button.get_attribute("href"))
            first = single.request.get(minted[0])
            assert first.status == 200 and first.headers["content-type"] == "application/vnd.apple.finance.order", first.status
            second = single.request.get(minted[0])
            assert second.status == 410 and "This link was used" in second.text(), second.status
            print("browser: ok a single-use link minted right before the button shows downloads once, then answers 410")

            assert not errors, f"console errors (a CSP violation shows here): {errors}"
            print("browser: ok no console errors")
        except Exception as error:
            print(f"browser: FAILED track in wallet: {error}")
            failed = True
        finally:
            browser.close()
            shop.shutdown()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
