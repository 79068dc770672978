"""Drives the dashboard in headless Chromium as a person would, by roles and labels, against a live `ordertrack serve`.

    python3 Tests/Browser/dashboard_check.py BASE_URL API_KEY SCREENSHOT_DIR

scripts/browser-check starts the server and runs this. Chromium is Debian's (/usr/bin/chromium): Playwright cannot
download its own browser here. Prints one line per step and a closing `browser: N passed, N failed`.
"""

import hashlib
import hmac
import http.server
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import uuid
import zlib
from pathlib import Path

from merchant_api import merchant_api
from playwright.sync_api import Page, expect, sync_playwright

BASE, API_KEY, SHOTS = sys.argv[1], sys.argv[2], Path(sys.argv[3])
CHROMIUM = "/usr/bin/chromium"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


api = merchant_api(BASE, API_KEY)


def png(size: int, top: tuple[int, int, int], bottom: tuple[int, int, int]) -> bytes:
    """A square PNG with a vertical gradient: stand-ins for a merchant's logo and product photos."""
    rows = b""
    for y in range(size):
        mix = y / (size - 1)
        pixel = bytes(round(a + (b - a) * mix) for a, b in zip(top, bottom))
        rows += b"\x00" + pixel * size

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def upload(name: str, data: bytes) -> None:
    request = urllib.request.Request(
        f"{BASE}/api/v1/assets/{name}", method="PUT", data=data, headers={"Authorization": f"Bearer {API_KEY}"})
    with urllib.request.urlopen(request) as response:
        assert response.status == 200, response.status


def create_order(number: str, status: str, fulfillment: str, tracking_number: str = "1Z999AA10123456784") -> dict:
    return api("POST", "/api/v1/orders", {
        "merchant": {"displayName": "Demo Shop", "merchantIdentifier": "merchant.dev.ordertrack.demo", "url": "https://shop.example.com",
                     "logo": "logo.png"},
        "orderManagementURL": f"https://shop.example.com/orders/{number}",
        "orderNumber": number,
        "status": status,
        "payment": {
            "total": {"amount": "47.50", "currency": "USD"}, "status": "paid",
            "summaryItems": [{"label": "Subtotal", "value": {"amount": "42.00", "currency": "USD"}},
                             {"label": "Shipping", "value": {"amount": "5.50", "currency": "USD"}}],
            "paymentMethods": ["Apple Pay · Visa 1234"],
        },
        "lineItems": [
            {"title": "Coffee beans", "subtitle": "Ethiopia Yirgacheffe, 250 g", "quantity": 2, "price": {"amount": "18.00", "currency": "USD"},
             "image": "beans.png"},
            {"title": "Paper filters", "quantity": 1, "price": {"amount": "6.00", "currency": "USD"}},
        ],
        "fulfillments": [{
            "fulfillmentType": "shipping", "fulfillmentIdentifier": "ship-1", "status": fulfillment,
            "carrier": "UPS", "trackingNumber": tracking_number,
            "statusDescription": "Your parcel left our warehouse.",
        }],
    })


def order_and_version(order_type: str, order_id: str) -> tuple[dict, int]:
    """The order as the merchant API reads it, with the version its ETag names."""
    request = urllib.request.Request(f"{BASE}/api/v1/orders/{order_type}/{order_id}", headers={"Authorization": f"Bearer {API_KEY}"})
    with urllib.request.urlopen(request) as response:
        return json.load(response)["order"], int(response.headers["ETag"].strip('"'))


def register_device(order_type: str, order_id: str, token: str) -> None:
    """Registers a device for the order as Wallet does, so that an update queues a push."""
    request = urllib.request.Request(
        f"{BASE}/wallet/v1/devices/browser-check-device/registrations/{order_type}/{order_id}",
        method="POST",
        data=json.dumps({"pushToken": "00112233445566778899aabbccddeeff" * 2}).encode(),
        headers={"Authorization": f"AppleOrder {token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request) as response:
        assert response.status == 201, response.status


UPLOADED_TYPE = "order.com.example.browser"


def pkcs12(order_type: str) -> dict:
    """An Order Type ID certificate valid two days, issued by a stand-in WWDR under a test root, as a .p12 upload that
    carries the stand-in WWDR: the development-mode server accepts that chain (never a self-signed certificate)."""
    with tempfile.TemporaryDirectory() as work:
        def openssl(*arguments: str) -> None:
            subprocess.run(["openssl", *arguments], check=True, capture_output=True)

        def issue(name: str, subject: str, issuer: str, extensions: str) -> None:
            openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{work}/{name}.key", "-out", f"{work}/{name}.csr", "-subj", subject)
            Path(f"{work}/{name}.ext").write_text(extensions + "\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n")
            openssl("x509", "-req", "-in", f"{work}/{name}.csr", "-CA", f"{work}/{issuer}.pem", "-CAkey", f"{work}/{issuer}.key",
                    "-CAcreateserial", "-days", "2", "-extfile", f"{work}/{name}.ext", "-out", f"{work}/{name}.pem")

        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "3", "-keyout", f"{work}/root.key", "-out", f"{work}/root.pem",
                "-subj", "/CN=Browser Check Root", "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign,cRLSign")
        ca = "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign"
        issue("wwdr", "/CN=Browser Check Stand-in WWDR", "root", ca)
        issue("leaf", f"/UID={order_type}/CN=Order Type ID: {order_type}", "wwdr", "basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature")
        openssl("pkcs12", "-export", "-inkey", f"{work}/leaf.key", "-in", f"{work}/leaf.pem", "-certfile", f"{work}/wwdr.pem",
                "-passout", "pass:browser-check", "-out", f"{work}/identity.p12")
        return {"name": "identity.p12", "mimeType": "application/x-pkcs12", "buffer": Path(f"{work}/identity.p12").read_bytes()}


CARRIER_SECRET = "browser-check-generic-secret"


def post_generic_event(webhook_url: str, event: dict) -> None:
    """Delivers `event` to a generic connection's webhook URL signed as a carrier or 3PL signs it:
    `OrderTrack-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`."""
    body = json.dumps(event, separators=(",", ":")).encode()
    t = str(int(time.time()))
    signature = hmac.new(CARRIER_SECRET.encode(), t.encode() + b"." + body, hashlib.sha256).hexdigest()
    request = urllib.request.Request(webhook_url, method="POST", data=body,
                                     headers={"Content-Type": "application/json", "OrderTrack-Signature": f"t={t},v1={signature}"})
    with urllib.request.urlopen(request) as response:
        assert response.status == 202, response.status


def reload_until(page: Page, locator, timeout: float = 20) -> None:
    """Reloads the page until `locator` shows: the Carriers page lists events as the worker left them when it loaded."""
    deadline = time.monotonic() + timeout
    while locator.count() == 0 and time.monotonic() < deadline:
        time.sleep(0.25)
        page.reload()
    expect(locator.first).to_be_visible()


def carriers(page: Page, browser, console_errors: list[str], suffix: str) -> None:
    """Connects a generic provider on the Carriers page, sees its webhook URL, sees the events posted to it (one
    applied to an order, linked to it; one unmatched, flagged), then deletes the connection after a confirmation."""
    page.get_by_role("navigation", name="Sections").get_by_role("link", name="Carriers").click()
    expect(page.get_by_role("heading", name="Carriers", exact=True)).to_be_visible()
    form = page.get_by_role("region", name="Connect a provider")
    secret = form.get_by_label("Webhook secret")
    form.get_by_label("Provider").select_option("ShipEngine")
    expect(secret).to_be_hidden()
    expect(form.get_by_label("JWKS URL (ShipEngine, optional)")).to_be_visible()
    form.get_by_label("Provider").select_option("Generic")
    expect(form.get_by_label("JWKS URL (ShipEngine, optional)")).to_be_hidden()
    secret.fill(CARRIER_SECRET)
    status_map = form.get_by_label("Status map overrides (optional)")
    status_map.fill("arrived: delivered")
    form.get_by_role("button", name="Connect").click()
    expect(status_map).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#carrier-status-map-error")).to_contain_text("line 1 is not providerStatus = walletStatus")
    expect(page.get_by_text("No connection yet")).to_be_visible()
    shot(page, "desktop-carriers-refused")
    console_errors.clear()  # the refused form's 400 is the answer this step expects
    assert secret.input_value() == "", "the secret is never sent back to the page"
    secret.fill(CARRIER_SECRET)
    status_map.fill("arrived = delivered")
    form.get_by_role("button", name="Connect").click()
    connected = page.get_by_role("status", name="Connected")
    expect(connected).to_contain_text("Connected to Generic")
    webhook_url = page.locator("#connected-url").inner_text()
    assert webhook_url.startswith(f"{BASE}/carriers/generic/cc_"), webhook_url
    connection_id = webhook_url.rsplit("/", 1)[1]
    connected.get_by_role("button", name="Copy").click()
    expect(page.locator(".copy-status")).to_contain_text(re.compile("copied|copy it with"))
    row = page.get_by_role("row").filter(has_text=connection_id)
    expect(row).to_contain_text("Generic")
    expect(row).to_contain_text(webhook_url)
    shot(page, "desktop-carriers-connected")

    tracking = f"BC{suffix}0001"
    created = create_order(f"W-{suffix}-1008", "open", "processing", tracking_number=tracking)["orderDetails"]
    scanned = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 600))
    post_generic_event(webhook_url, {"id": f"evt-{suffix}-1", "trackingNumber": tracking, "carrier": "ups", "status": "onTheWay",
                                     "occurredAt": scanned, "statusDescription": "Left the sorting centre."})
    post_generic_event(webhook_url, {"id": f"evt-{suffix}-2", "trackingNumber": f"UNKNOWN{suffix}", "carrier": "ups", "status": "onTheWay",
                                     "occurredAt": scanned})
    events = page.get_by_role("region", name="Recent events")
    applied = events.get_by_role("row").filter(has_text=tracking).filter(has_text="Applied")
    reload_until(page, applied)
    expect(applied.get_by_role("link", name=created["orderIdentifier"])).to_be_visible()
    unmatched = events.get_by_role("row").filter(has_text=f"UNKNOWN{suffix}")
    reload_until(page, unmatched.filter(has_text="Unmatched"))
    expect(unmatched).to_contain_text("Applied once a fulfillment gets this tracking number")
    expect(events).to_contain_text("1 waiting for a tracking number")
    shot(page, "desktop-carriers-events")

    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, storage_state=page.context.storage_state())
    phone_page = context.new_page()
    watch_console(phone_page, console_errors)
    phone_page.goto(BASE + "/dashboard/carriers")
    expect(phone_page.get_by_role("heading", name="Carriers", exact=True)).to_be_visible()
    expect(phone_page.get_by_role("button", name=f"Delete {connection_id}")).to_be_visible()
    shot(phone_page, "phone-carriers")
    width = phone_page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the Carriers page is {width} px wide at {PHONE['width']} px"
    context.close()

    applied.get_by_role("link", name=created["orderIdentifier"]).click()
    expect(page.get_by_role("region", name="Wallet preview")).to_contain_text("Left the sorting centre.")
    page.go_back()

    delete = page.get_by_role("button", name=f"Delete {connection_id}")
    page.once("dialog", lambda dialog: dialog.dismiss())
    delete.click()
    expect(row).to_be_visible()
    page.once("dialog", lambda dialog: dialog.accept())
    delete.click()
    expect(page.get_by_role("status").filter(has_text=f"Connection {connection_id} deleted")).to_be_visible()
    expect(page.get_by_text("No connection yet")).to_be_visible()
    expect(page.get_by_text(tracking)).to_have_count(0)


def webhooks(page: Page, browser, console_errors: list[str], suffix: str) -> None:
    """Adds an endpoint on the Webhooks page (its secret shown once), sees an order's event reach a receiver on loopback
    signed with that secret and the delivery listed, fits a phone, rotates the secret and deletes the endpoint."""
    received: list[tuple[str, bytes]] = []

    class Receiver(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            received.append((self.headers["OrderTrack-Signature"], self.rfile.read(int(self.headers["Content-Length"]))))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *arguments) -> None:
            pass

    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    try:
        page.get_by_role("navigation", name="Sections").get_by_role("link", name="Webhooks").click()
        expect(page.get_by_role("heading", name="Webhooks", exact=True)).to_be_visible()
        url = f"http://127.0.0.1:{receiver.server_port}/hooks"
        form = page.get_by_role("region", name="Add an endpoint")
        form.get_by_label("Endpoint URL").fill(url)
        form.get_by_label("Events").fill("order.created")
        form.get_by_role("button", name="Add endpoint").click()
        expect(page.get_by_role("status", name="Webhook notice")).to_contain_text("shown only now")
        secret = page.locator("#webhook-secret").inner_text()
        assert secret.startswith("whsec_"), secret
        shot(page, "desktop-webhooks-added")
        # Reloading the form's answer reads the page instead of posting the form again: one endpoint, the secret gone.
        page.reload()
        expect(page.get_by_role("heading", name="Webhooks", exact=True)).to_be_visible()
        expect(page.get_by_role("article").filter(has_text=url)).to_have_count(1)
        expect(page.get_by_role("status", name="Webhook notice")).to_have_count(0)

        create_order(f"W-{suffix}-1010", "open", "processing")
        deadline = time.time() + 20
        while not received and time.time() < deadline:
            time.sleep(0.1)
        assert received, "the receiver got no delivery"
        header, body = received[0]
        items = [part.split("=", 1) for part in header.split(",")]
        signed = next(value for key, value in items if key == "t").encode() + b"." + body
        expected = hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
        assert any(hmac.compare_digest(expected, value) for key, value in items if key == "v1"), header
        endpoint = page.get_by_role("article").filter(has_text=url)
        delivered = endpoint.get_by_role("row").filter(has_text="succeeded")
        reload_until(page, delivered)
        expect(delivered.get_by_role("cell").nth(5)).to_have_text(re.compile(r"^\d+ ms$"))
        shot(page, "desktop-webhooks-delivered")

        context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, storage_state=page.context.storage_state())
        phone_page = context.new_page()
        watch_console(phone_page, console_errors)
        phone_page.goto(BASE + "/dashboard/webhooks")
        expect(phone_page.get_by_role("heading", name="Webhooks", exact=True)).to_be_visible()
        shot(phone_page, "phone-webhooks")
        width = phone_page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"the Webhooks page is {width} px wide at {PHONE['width']} px"
        context.close()

        rotate = endpoint.get_by_role("button", name=re.compile("^Rotate the secret of we_"))
        page.once("dialog", lambda dialog: dialog.accept())
        rotate.click()
        expect(page.get_by_role("status", name="Webhook notice")).to_contain_text("New secret for")
        assert page.locator("#webhook-secret").inner_text() not in ("", secret)
        page.reload()
        expect(page.get_by_role("status", name="Webhook notice")).to_have_count(0)
        delete = page.get_by_role("article").filter(has_text=url).get_by_role("button", name=re.compile("^Delete we_"))
        page.once("dialog", lambda dialog: dialog.accept())
        delete.click()
        expect(page.get_by_text("No endpoint yet")).to_be_visible()
        assert not console_errors, f"the Webhooks pages reported: {console_errors}"
    finally:
        receiver.shutdown()


def fulfillment_updates(page: Page, browser, console_errors: list[str], suffix: str) -> None:
    """From the orders list to the fulfillment updates page: a CSV file chosen with the file picker updates one order
    and names the row that failed; the order page then shows the new tracking; the page fits a phone."""
    page.goto(BASE + "/dashboard")
    page.get_by_role("link", name="Update fulfillments from a CSV file").click()
    expect(page.get_by_role("heading", name="Update fulfillments", exact=True)).to_be_visible()
    created = create_order(f"W-{suffix}-CSV", "open", "processing")["orderDetails"]
    csv = (f"Order number,Tracking number,Carrier,Status\r\nW-{suffix}-CSV,CSV{suffix}001,DHL,Out for delivery\r\n"
           f"W-{suffix}-NONE,X1,UPS,delivered\r\n")
    page.get_by_label("Choose a file").set_input_files(files=[{"name": "day.csv", "mimeType": "text/csv", "buffer": csv.encode()}])
    expect(page.get_by_label("Or paste the rows")).to_have_value(csv.replace("\r\n", "\n"))
    page.get_by_role("button", name="Apply updates").click()
    results = page.get_by_role("region", name="Results")
    expect(results).to_contain_text("1 applied, 0 unchanged, 1 failed, of 2 rows.")
    expect(results.get_by_role("row").filter(has_text="Applied")).to_contain_text(created["orderIdentifier"])
    expect(results.get_by_role("row").filter(has_text="Failed")).to_contain_text(f"no order numbered W-{suffix}-NONE")
    shot(page, "desktop-fulfillments")

    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, storage_state=page.context.storage_state())
    phone_page = context.new_page()
    watch_console(phone_page, console_errors)
    phone_page.goto(BASE + "/dashboard/fulfillments")
    phone_page.get_by_label("Or paste the rows").fill(f"orderNumber,status\nW-{suffix}-CSV,delivered\n")
    phone_page.get_by_role("button", name="Apply updates").click()
    expect(phone_page.get_by_role("region", name="Results")).to_contain_text("1 applied")
    shot(phone_page, "phone-fulfillments")
    width = phone_page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the fulfillment updates page is {width} px wide at {PHONE['width']} px"
    context.close()

    results.get_by_role("link", name=created["orderIdentifier"]).click()
    expect(page.get_by_role("region", name="Wallet preview")).to_contain_text(f"CSV{suffix}001")


def insights(page: Page, browser, console_errors: list[str]) -> None:
    """The Insights page from the navigation: the totals count the orders made so far, each chart is an image named by
    its title, the range form (a plain GET) switches to hourly buckets, the table holds the figures; it fits a phone."""
    page.get_by_role("navigation", name="Sections").get_by_role("link", name="Insights").click()
    expect(page.get_by_role("heading", name="Insights", exact=True)).to_be_visible()
    created = page.get_by_role("region", name="Totals").get_by_text("Orders created").locator("xpath=..")
    assert int(created.locator(".tile-value").inner_text()) > 0, "the orders made by the earlier steps are counted"
    expect(page.get_by_role("img", name="Orders created and added to Wallet")).to_be_visible()
    expect(page.get_by_role("img", name="Pushes delivered and failed")).to_be_visible()
    shot(page, "desktop-insights")
    page.get_by_label("Range").select_option("48h")
    page.get_by_role("button", name="Show").click()
    expect(page).to_have_url(re.compile(r"/dashboard/insights\?range=48h$"))
    page.get_by_text("The figures as a table").click()
    expect(page.get_by_role("columnheader", name="Hour (UTC)")).to_be_visible()
    expect(page.get_by_role("row")).to_have_count(49)

    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, storage_state=page.context.storage_state())
    phone_page = context.new_page()
    watch_console(phone_page, console_errors)
    phone_page.goto(BASE + "/dashboard/insights")
    chart = phone_page.get_by_role("img", name="Active registrations")
    expect(chart).to_be_visible()
    box = chart.bounding_box()
    assert box and box["width"] <= PHONE["width"], f"a chart is {box} at {PHONE['width']} px"
    shot(phone_page, "phone-insights")
    width = phone_page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the Insights page is {width} px wide at {PHONE['width']} px"
    context.close()


class Steps:
    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def run(self, name: str, action) -> None:
        try:
            action()
        except Exception as error:  # a failed expectation or a Playwright timeout: report it and stop
            self.failed += 1
            print(f"browser: FAILED {name}: {error}")
            raise
        self.passed += 1
        print(f"browser: ok {name}")


def shot(page: Page, name: str) -> None:
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)


def watch_console(page: Page, console_errors: list[str]) -> None:
    # A script or style the CSP blocked shows up here.
    page.on("console", lambda message: console_errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: console_errors.append(str(error)))


def set_order_status(editor, status: str) -> None:
    """Changes the order's own status (the top level, indented once) in the editor's text, as a person would."""
    text, count = re.subn(r'(?m)^(  "status"\s*:\s*)"[a-zA-Z]+"', rf'\1"{status}"', editor.input_value())
    assert count == 1, "the order's status is in the editor"
    editor.fill(text)


def sign_in(page: Page) -> None:
    page.goto(BASE + "/dashboard")
    page.get_by_label("API key").fill(API_KEY)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Orders")).to_be_visible()


# Checkout playground (/checkout). Chromium has no Apple Pay, so the page offers "Simulate payment": the same server
# call without a token.
ORDER_DETAILS_KEYS = ("orderTypeIdentifier", "orderIdentifier", "webServiceURL", "authenticationToken")


def wait_for_playground_script(page: Page) -> None:
    """The heading is visible as soon as the HTML is parsed, but the page's module script attaches the buttons' handlers
    later: a click before that does nothing. The script shows the total when it has run."""
    expect(page.locator("#pay-total")).to_have_text(re.compile(r"\$\d"), timeout=20_000)


def checkout_simulate(page: Page, made: dict) -> None:
    page.get_by_role("navigation", name="Sections").get_by_role("link", name="Checkout playground").click()
    expect(page.get_by_role("heading", name="Checkout playground")).to_be_visible()
    expect(page.get_by_role("button", name="Pay with Apple Pay")).to_be_hidden()
    wait_for_playground_script(page)
    made["number"] = json.loads(page.get_by_label("Order content").input_value())["orderNumber"]
    page.get_by_role("button", name="Simulate payment").click()
    details = page.get_by_role("region", name="orderDetails")
    expect(details.locator("pre")).to_be_visible()
    shown = json.loads(details.locator("pre").inner_text())
    assert tuple(shown) == ORDER_DETAILS_KEYS, shown
    made["id"] = shown["orderIdentifier"]
    expect(page.get_by_role("status").filter(has_text="Simulated payment")).to_contain_text(made["number"])
    payment = page.get_by_role("region", name="Transcript").get_by_role("listitem").filter(has_text="POST /dashboard/api/checkout/payments")
    expect(payment).to_contain_text("201")
    # After the payment, the Track in Wallet button of /js/ordertrack.js with a new link to the order, and its QR code.
    track = page.get_by_role("region", name="Track in Wallet")
    button = track.get_by_role("link", name="Add to Apple Wallet")
    expect(button).to_be_visible()
    assert button.get_attribute("href").startswith(BASE + "/track/"), button.get_attribute("href")
    expect(track.get_by_role("img", name="QR code of the link that adds this order to Apple Wallet")).to_be_visible()
    shot(page, "checkout-desktop")


def checkout_payment_request(page: Page) -> None:
    request_box = page.get_by_label("Payment request", exact=True)
    page.get_by_label("Payment Request API").check()
    method = json.loads(request_box.input_value())["methodData"][0]
    assert method["supportedMethods"] == "https://apple.com/apple-pay" and method["data"]["version"] == 13, method
    page.get_by_label("Apple Pay JS").check()
    assert json.loads(request_box.input_value())["total"]["type"] == "final"


def checkout_source(page: Page, made: dict) -> None:
    page.get_by_role("button", name="Show source").click()
    source = page.get_by_role("region", name="Source")
    expect(source).to_contain_text("/api/v1/apple_pay/payments")
    expect(source).to_contain_text("Bearer $ORDERTRACK_API_KEY")
    assert API_KEY not in source.inner_text(), "the page never shows the secret key"
    # The editor moved on to the next order, with a number of its own (order numbers are unique): the source shows it.
    next_number = json.loads(page.get_by_label("Order content").input_value())["orderNumber"]
    assert next_number != made["number"], "the playground never reuses an order number"
    expect(source).to_contain_text(next_number)
    # The copied curl runs as printed against this development server: its test token makes a simulated payment.
    curl = page.locator("#source-code").inner_text().split("\n# Merchant validation")[0]
    ran = subprocess.run(["bash", "-c", curl], capture_output=True, text=True, timeout=60, env={**os.environ, "ORDERTRACK_API_KEY": API_KEY})
    answer = json.loads(ran.stdout)
    assert answer.get("simulated") is True and answer["order"]["orderNumber"] == next_number, (ran.stdout, ran.stderr)
    source.get_by_role("tab", name="Server (Swift)").click()
    expect(source).to_contain_text('router.post("apple-pay/pay")')
    expect(source).to_contain_text(next_number)
    source.get_by_role("tab", name="Payment Request API").click()
    expect(source).to_contain_text('response.complete("success", { data: { orderDetails } })')
    source.get_by_role("tab", name="App (Swift)").click()
    expect(source).to_contain_text(f'orderIdentifier: "{made["id"]}"')
    source.get_by_role("tab", name="Apple Pay JS").click()
    expect(source).to_contain_text("session.completePayment({ status: ApplePaySession.STATUS_SUCCESS, orderDetails })")
    expect(source).to_contain_text(made["id"])
    source.get_by_role("button", name="Copy").click()
    expect(source.get_by_role("status")).to_contain_text(re.compile("Copied|copy it with"))
    shot(page, "checkout-source-desktop")
    page.get_by_role("button", name="Hide source").click()
    expect(source).to_be_hidden()


def checkout_open_made_order(page: Page, made: dict) -> None:
    page.get_by_role("navigation", name="Sections").get_by_role("link", name="Orders").click()
    expect(page.get_by_role("link", name=made["number"])).to_be_visible()
    page.go_back()
    page.get_by_role("region", name="Orders made here").get_by_role("link", name=made["number"]).click()
    expect(page.get_by_role("heading", name=f"Order {made['number']}")).to_be_visible()
    assert json.loads(page.get_by_label("Order JSON").input_value())["orderIdentifier"] == made["id"]
    page.go_back()
    expect(page.get_by_role("region", name="Orders made here").get_by_role("link", name=made["number"])).to_be_visible()


def checkout_bad_input(page: Page, console_errors: list[str]) -> None:
    page.goto(BASE + "/checkout")
    wait_for_playground_script(page)
    box = page.get_by_label("Order content")
    valid = box.input_value()
    box.fill(valid.rstrip()[:-1])
    page.get_by_role("button", name="Simulate payment").click()
    expect(page.get_by_role("alert").filter(has_text="Order content is not valid JSON")).to_be_visible()
    expect(page.get_by_role("status").filter(has_text="Nothing was sent")).to_be_visible()
    transcript = page.get_by_role("region", name="Transcript")
    expect(transcript.get_by_role("listitem")).to_have_count(0)
    before = len(console_errors)
    box.fill(re.sub(r'(?m)^(  "status"\s*:\s*)"open"', r'\1"shipped"', valid))
    page.get_by_role("button", name="Simulate payment").click()
    expect(page.get_by_role("list", name="Problems").get_by_role("listitem").first).to_contain_text("status")
    expect(transcript.get_by_role("listitem").first).to_contain_text("422")
    # The refused call's 422 is what this step expects: Chromium logs it as a failed resource.
    console_errors[before:] = [error for error in console_errors[before:] if "422" not in error]


def lost_update(page: Page, console_errors: list[str], number: str) -> None:
    """An operator edits an order while a carrier changes it through the API: Update is refused (412) rather than
    overwriting the carrier's change, and the operator's change re-applied on the new version keeps both."""
    details = create_order(number, "open", "processing")["orderDetails"]
    order_type, order_id = details["orderTypeIdentifier"], details["orderIdentifier"]
    # A registered device, so that a re-notify moves the page's revision (a push attempt) without changing the order.
    register_device(order_type, order_id, details["authenticationToken"])
    _, opened = order_and_version(order_type, order_id)
    page.goto(BASE + "/dashboard")
    page.get_by_role("link", name=number).click()
    expect(page.get_by_role("heading", name=f"Order {number}")).to_be_visible()
    editor = page.get_by_label("Order JSON")
    set_order_status(editor, "completed")  # not submitted yet
    # The operator also edits the fulfillment the carrier is about to change: only the operator's member of it may be
    # sent and re-applied, never the whole fulfillment (which would revert the carrier's status).
    editor.fill(editor.input_value().replace("Your parcel left our warehouse.", "Packed by the operator."))
    changed = page.get_by_role("status").filter(has_text="changed since the page was loaded")

    # The re-notify's event names the version the page shows: the page listens again (an events request without
    # `since`, answered once the server has its new starting point) and says nothing.
    with page.expect_response(lambda response: "/dashboard/events?" in response.url and "since=" not in response.url, timeout=20_000):
        assert api("POST", f"/api/v1/orders/{order_type}/{order_id}/notify")["registrations"] == 1
    expect(changed).to_have_count(0)

    # The carrier's change, through the merchant API, while the operator's edit waits: the page says the order changed.
    api("PATCH", f"/api/v1/orders/{order_type}/{order_id}", {"fulfillments": [{"fulfillmentIdentifier": "ship-1", "status": "shipped"}]})
    carried, carrier_version = order_and_version(order_type, order_id)
    assert carrier_version == opened + 1 and carried["fulfillments"][0]["status"] == "shipped", (opened, carrier_version, carried)
    expect(changed).to_contain_text(f"now version {carrier_version}", timeout=20_000)

    before = len(console_errors)
    page.get_by_role("button", name="Update order").click()
    expect(page.get_by_role("status").filter(has_text="Not updated:")).to_contain_text(re.compile(
        rf"this order changed after you opened it \(now version {carrier_version}, by “.+” on .+\)\. Your edit is still here\."))
    # The 412 is the answer this step expects: Chromium logs it as a failed resource.
    console_errors[before:] = [error for error in console_errors[before:] if "412" not in error]
    assert json.loads(editor.input_value())["status"] == "completed", "the operator's edit is still in the editor"
    current, version = order_and_version(order_type, order_id)
    assert version == carrier_version, (carrier_version, version)
    assert current["status"] == "open", "the refused edit changed nothing"
    assert current["fulfillments"][0]["status"] == "shipped", "the carrier's change is kept"
    shot(page, "desktop-order-conflict")
    page.set_viewport_size(PHONE)
    shot(page, "phone-order-conflict")
    page.set_viewport_size(DESKTOP)

    page.get_by_role("button", name=f"Apply my changes to version {carrier_version}").click()
    expect(page.get_by_role("status").filter(has_text=f"Your changes are applied to version {carrier_version}")).to_be_visible()
    expect(changed).to_have_count(0)
    merged = json.loads(editor.input_value())
    assert merged["status"] == "completed" and merged["fulfillments"][0]["status"] == "shipped", merged
    assert merged["fulfillments"][0]["statusDescription"] == "Packed by the operator.", merged
    shot(page, "desktop-order-reapplied")
    page.get_by_role("button", name="Update order").click()
    expect(page.get_by_role("status").filter(has_text="Order updated")).to_be_visible()
    current, version = order_and_version(order_type, order_id)
    assert version == carrier_version + 1, (carrier_version, version)
    assert current["status"] == "completed" and current["fulfillments"][0]["status"] == "shipped", current
    assert current["fulfillments"][0]["statusDescription"] == "Packed by the operator.", current


def payment_total(page: Page) -> dict:
    """The order content's payment.total, as the editor holds it."""
    return json.loads(page.get_by_label("Order content").input_value())["payment"]["total"]


def sheet_line(sheet, label: str):
    return sheet.locator("#sheet-lines > div").filter(has_text=label)


def checkout_sheet(page: Page, made: dict) -> None:
    """The simulated payment sheet sends its events to the shop's handlers (checkout-sheet.js), the functions Safari's
    events call: the answers show as the sheet shows them, and the order's payment follows."""
    page.goto(BASE + "/checkout")
    wait_for_playground_script(page)
    sheet = page.get_by_role("region", name="Payment sheet")
    total = page.locator("#pay-total")
    answer = sheet.locator("#sheet-answer")
    expect(sheet).to_contain_text("WELCOME10 takes 10% off the goods")
    expect(total).to_have_text("$42.00")
    assert payment_total(page) == {"amount": "42.00", "currency": "USD"}, payment_total(page)

    # The chosen method's price becomes a line and part of the total, on the page and in the order's payment.
    method = sheet.get_by_label("Shipping method")
    method.select_option("express")
    expect(total).to_have_text("$54.00")
    expect(sheet_line(sheet, "Express Shipping")).to_contain_text("$12.00")
    expect(sheet.locator(".sheet-total")).to_contain_text("$54.00")
    expect(answer).to_contain_text("onshippingmethodselected → session.completeShippingMethodSelection(update)")
    assert payment_total(page) == {"amount": "54.00", "currency": "USD"}, payment_total(page)

    # An address the shop does not ship to: a field error before payment, no shipping method, and no payment.
    country = sheet.get_by_label("Country or region")
    country.select_option("DE")
    expect(country).to_have_attribute("aria-invalid", "true")
    expect(country).to_have_accessible_description(re.compile("Germany is not one of our shipping countries"))
    expect(method).to_be_disabled()
    expect(total).to_have_text("$42.00")
    expect(answer).to_contain_text("onshippingcontactselected → session.completeShippingContactSelection(update)")
    expect(sheet.locator("#sheet-answer-code")).to_contain_text('"contactField": "country"')
    transcript = page.get_by_role("region", name="Transcript")
    page.get_by_role("button", name="Simulate payment").click()
    refused = page.get_by_role("status").filter(has_text="Nothing was sent: the payment sheet shows an error for the ship-to address")
    expect(refused).to_be_visible()
    expect(transcript.get_by_role("listitem")).to_have_count(0)
    shot(page, "checkout-sheet-error-desktop")

    # The same handlers answer the Payment Request API's events: address errors by field, with no shipping option.
    page.get_by_label("Payment Request API").check()
    expect(answer).to_contain_text("shippingaddresschange → event.updateWith(details)")
    code = sheet.locator("#sheet-answer-code")
    expect(code).to_contain_text('"shippingAddressErrors"')
    expect(code).to_contain_text('"shippingOptions": []')
    country.select_option("US")
    expect(refused).to_have_count(0)  # a new choice: the refusal no longer applies
    expect(country).not_to_have_attribute("aria-invalid", "true")
    expect(method).to_be_enabled()
    expect(total).to_have_text("$42.00")  # a new list of methods: the sheet selects the first, Standard

    # An address without a postal code is an error too.
    postal_code = sheet.get_by_label("Postal code")
    postal_code.fill("")
    postal_code.press("Enter")
    expect(postal_code).to_have_attribute("aria-invalid", "true")
    expect(postal_code).to_have_accessible_description("Add the postal code of this address.")
    postal_code.fill("10001")
    postal_code.press("Enter")
    expect(postal_code).not_to_have_attribute("aria-invalid", "true")

    method.select_option("express")
    expect(answer).to_contain_text("shippingoptionchange → event.updateWith(details)")
    expect(code).to_contain_text('"selected": true')
    expect(total).to_have_text("$54.00")

    # A coupon: an unknown code is an error on its field and changes nothing; WELCOME10 adds a discount line.
    coupon = sheet.get_by_label("Coupon code")
    coupon.fill("SAVE50")
    sheet.get_by_role("button", name="Apply").click()
    expect(coupon).to_have_accessible_description("SAVE50 is not a valid coupon code.")
    expect(code).to_contain_text('"paymentMethodErrors"')
    expect(total).to_have_text("$54.00")
    coupon.fill("welcome10")
    sheet.get_by_role("button", name="Apply").click()
    expect(coupon).not_to_have_attribute("aria-invalid", "true")
    expect(sheet_line(sheet, "Discount (WELCOME10)")).to_contain_text("-$4.20")
    expect(total).to_have_text("$49.80")
    expect(answer).to_contain_text("paymentmethodchange with methodDetails.couponCode → event.updateWith(details)")
    page.get_by_label("Apple Pay JS").check()
    expect(answer).to_contain_text("oncouponcodechanged → session.completeCouponCodeChange(update)")
    order = json.loads(page.get_by_label("Order content").input_value())
    assert order["payment"]["total"] == {"amount": "49.80", "currency": "USD"}, order["payment"]
    summary = [(item["label"], item["value"]["amount"]) for item in order["payment"]["summaryItems"]]
    assert summary == [("Subtotal", "42.00"), ("Express Shipping", "12.00"), ("Discount (WELCOME10)", "-4.20")], summary
    made["sheet total"] = total.inner_text()
    sheet.get_by_text("The handler's answer").click()
    expect(code).to_be_visible()
    shot(page, "checkout-sheet-desktop")


def checkout_sheet_payment(page: Page, made: dict) -> None:
    """The simulated payment charges what the sheet shows: the order it creates has that total."""
    page.get_by_role("button", name="Simulate payment").click()
    details = page.get_by_role("region", name="orderDetails")
    expect(details.locator("pre")).to_be_visible()
    shown = json.loads(details.locator("pre").inner_text())
    expect(page.get_by_role("status").filter(has_text="Simulated payment")).to_be_visible()
    created, _ = order_and_version(shown["orderTypeIdentifier"], shown["orderIdentifier"])
    amount = created["payment"]["total"]["amount"]
    assert made["sheet total"] == "$49.80" and float(amount) == 49.80, (made["sheet total"], created["payment"])
    labels = [item["label"] for item in created["payment"]["summaryItems"]]
    assert labels == ["Subtotal", "Express Shipping", "Discount (WELCOME10)"], labels
    # The sheet keeps its choices for the next order; its total stays.
    expect(page.locator("#pay-total")).to_have_text("$49.80")


def checkout_sheet_source(page: Page) -> None:
    """Show source gives both APIs' event handlers, and the shop's handlers are the very functions the page runs."""
    page.get_by_role("button", name="Show source").click()
    source = page.get_by_role("region", name="Source")
    served = page.request.get(BASE + "/dashboard/static/checkout-sheet.js").text()
    price_sheet = served[served.index("function priceSheet("):]
    price_sheet = price_sheet[:price_sheet.index("\n}\n") + 2]
    source.get_by_role("tab", name="Apple Pay JS").click()
    for text in ("session.onshippingmethodselected", "session.completeShippingMethodSelection(answer.update)",
                 "session.onshippingcontactselected", "session.oncouponcodechanged", "new ApplePayError(code, contactField, message)",
                 '"WELCOME10"', "{ token: event.payment.token, sheet }"):
        expect(source).to_contain_text(text)
    assert price_sheet in page.locator("#source-code").inner_text(), "the source prints the handler the page runs"
    source.get_by_role("tab", name="Payment Request API").click()
    for text in ("payment.onshippingoptionchange", "payment.onshippingaddresschange", "payment.onpaymentmethodchange",
                 "event.updateWith(paymentDetailsUpdate(request, order, sheet, answer.update))", "function paymentDetailsUpdate(",
                 "function contactFromAddress(", '"requestShipping": true'):
        expect(source).to_contain_text(text)
    assert price_sheet in page.locator("#source-code").inner_text()
    page.get_by_role("button", name="Hide source").click()


def checkout_phone(browser) -> None:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    phone_page = context.new_page()
    phone_page.goto(BASE + "/checkout")
    phone_page.get_by_label("API key").fill(API_KEY)
    phone_page.get_by_role("button", name="Sign in").click()
    expect(phone_page.get_by_role("heading", name="Checkout playground")).to_be_visible()
    wait_for_playground_script(phone_page)
    # The sheet works at phone width: a choice changes the total, and nothing scrolls sideways.
    sheet = phone_page.get_by_role("region", name="Payment sheet")
    sheet.get_by_label("Shipping method").select_option("express")
    expect(phone_page.locator("#pay-total")).to_have_text("$54.00")
    sheet.get_by_label("Country or region").select_option("CA")
    expect(phone_page.locator("#pay-total")).to_have_text("$42.00")  # Express ships only within the United States
    assert sheet.get_by_label("Shipping method").locator("option").all_inner_texts() == ["Standard Shipping · Free"]
    sheet.screenshot(path=str(SHOTS / "checkout-sheet-phone.png"))
    width = phone_page.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], f"the checkout playground is {width} px wide at {PHONE['width']} px"
    phone_page.get_by_role("button", name="Simulate payment").click()
    expect(phone_page.get_by_role("region", name="orderDetails").locator("pre")).to_be_visible()
    shot(phone_page, "checkout-phone")
    context.close()


def main() -> int:
    SHOTS.mkdir(parents=True, exist_ok=True)
    steps = Steps()
    suffix = uuid.uuid4().hex[:4].upper()
    number = f"W-{suffix}-1004"
    console_errors: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox", "--disable-dev-shm-usage"])
        page = browser.new_page(viewport=DESKTOP)
        watch_console(page, console_errors)
        try:
            def wrong_key():
                page.goto(BASE + "/dashboard")
                expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
                shot(page, "desktop-sign-in")
                page.get_by_label("API key").fill("sk_wrong")
                page.get_by_role("button", name="Sign in").click()
                expect(page.get_by_role("alert")).to_contain_text("not valid")
            steps.run("a wrong API key is refused on the page", wrong_key)
            console_errors.clear()  # the refused sign-in's 401 is the answer that step expects
            steps.run("sign in with the API key", lambda: sign_in(page))

            def list_order():
                upload("logo.png", png(120, (255, 149, 0), (200, 60, 20)))
                upload("beans.png", png(96, (150, 95, 60), (70, 40, 25)))
                upload("fr.lproj/order.strings", '"Coffee beans" = "Grains de café";\n'.encode())
                create_order(f"W-{suffix}-1001", "completed", "delivered")
                create_order(f"W-{suffix}-1002", "open", "onTheWay")
                create_order(f"W-{suffix}-1003", "cancelled", "cancelled")
                created = create_order(number, "open", "processing")
                details = created["orderDetails"]
                register_device(details["orderTypeIdentifier"], details["orderIdentifier"], details["authenticationToken"])
                page.reload()
                expect(page.get_by_role("link", name=number)).to_be_visible()
                shot(page, "desktop-orders")
            steps.run("an order created through the API is in the list", list_order)

            def list_refreshes_itself():
                create_order(f"W-{suffix}-1005", "open", "open")
                expect(page.get_by_role("link", name=f"W-{suffix}-1005")).to_be_visible(timeout=20_000)
                shot(page, "desktop-orders")
            steps.run("the list shows a new order by itself (server-sent events)", list_refreshes_itself)

            def open_order():
                page.get_by_role("link", name=number).click()
                expect(page.get_by_role("heading", name=f"Order {number}")).to_be_visible()
                preview = page.get_by_role("region", name="Wallet preview")
                expect(preview).to_contain_text("Demo Shop")
                expect(preview).to_contain_text("Coffee beans")
                expect(preview).to_contain_text("1Z999AA10123456784")
                expect(preview).to_contain_text("$47.50")
                expect(preview.locator("img")).to_have_count(2)
                for image in preview.locator("img").all():
                    assert image.evaluate("image => image.complete && image.naturalWidth > 0"), "the merchant's images load"
                expect(page.get_by_role("region", name="Transcript")).to_be_visible()
                shot(page, "desktop-order")
                page.get_by_role("navigation", name="Preview language").get_by_role("link", name="fr").click()
                expect(preview).to_contain_text("Grains de café")
                page.get_by_role("link", name="Order text").click()
                expect(preview).to_contain_text("Coffee beans")
            steps.run("the order page shows the Wallet preview, in each localization", open_order)

            editor = page.get_by_label("Order JSON")

            def invalid_status():
                set_order_status(editor, "shipped")
                page.get_by_role("button", name="Validate").click()
                problems = page.get_by_role("list", name="Problems")
                expect(problems.get_by_role("listitem").filter(has_text="shipped")).to_contain_text("status")
                expect(problems.locator("code").first).to_have_text("status")
                shot(page, "desktop-order-problem")
            steps.run("an invalid status shows the problem at its path", invalid_status)

            def fix_and_update():
                set_order_status(editor, "completed")
                page.get_by_role("button", name="Validate").click()
                expect(page.get_by_role("status").filter(has_text="The order is valid")).to_be_visible()
                page.get_by_role("button", name="Update order").click()
                expect(page.get_by_role("status").filter(has_text="Order updated")).to_be_visible()
                expect(page.get_by_role("heading", name=f"Order {number}")).to_be_visible()
                assert json.loads(page.get_by_label("Order JSON").input_value())["status"] == "completed"
                expect(page.locator(".page-head .badge")).to_have_text("Completed")
                # The push goes to `ordertrack mock-apns`: the page refreshes by itself when APNs has answered.
                transcript = page.get_by_role("region", name="Transcript")
                expect(transcript).to_contain_text("…ccddeeff, attempt 1 · APNs 200", timeout=20_000)
                expect(transcript.locator(".badge", has_text="Delivered").first).to_be_visible()
                record = Path(os.environ["BROWSER_CHECK_APNS_RECORD"]).read_text().splitlines()
                assert any(json.loads(line)["status"] == 200 for line in record), f"the mock APNs recorded {record}"
                shot(page, "desktop-order-updated")
            steps.run("the fixed order updates and the page shows it", fix_and_update)

            def package_and_notify():
                with page.expect_download() as download:
                    page.get_by_role("link", name="Download package").click()
                assert download.value.suggested_filename == f"{number}.order", download.value.suggested_filename
                page.get_by_role("button", name="Notify devices").click()
                expect(page.get_by_role("status").filter(has_text="Pushes queued for 1 registered device")).to_be_visible()
                # The page reloads by itself once APNs has answered the new push; wait for it before leaving the page.
                transcript = page.get_by_role("region", name="Transcript")
                expect(transcript.locator(".badge", has_text="Delivered")).to_have_count(2, timeout=20_000)
            steps.run("the signed package downloads and devices can be notified again", package_and_notify)

            def conflicting_edit():
                # In a window of its own (signed in with the same cookie), closed after: its order's pushes, still being
                # delivered, then reload nothing under the next steps.
                context = browser.new_context(viewport=DESKTOP, storage_state=page.context.storage_state())
                window = context.new_page()
                watch_console(window, console_errors)
                lost_update(window, console_errors, f"W-{suffix}-1006")
                context.close()
            steps.run("an edit made stale by a carrier's change is refused, then re-applied without losing either", conflicting_edit)

            def phone():
                context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
                phone_page = context.new_page()
                sign_in(phone_page)
                shot(phone_page, "phone-orders")
                phone_page.get_by_role("link", name=number).click()
                expect(phone_page.get_by_role("region", name="Wallet preview")).to_be_visible()
                shot(phone_page, "phone-order")
                context.close()
            steps.run("the pages work at phone width", phone)

            def order_types():
                page.get_by_role("navigation", name="Sections").get_by_role("link", name="Order types").click()
                expect(page.get_by_role("heading", name="Order types")).to_be_visible()
                expect(page.get_by_role("cell", name="order.dev.ordertrack.demo Default", exact=True)).to_be_visible()
                form = page.get_by_role("region", name="Upload a certificate")
                form.get_by_label("Order type identifier").fill(UPLOADED_TYPE)
                form.get_by_label("PKCS#12 file (.p12)").set_input_files(pkcs12(UPLOADED_TYPE))
                form.get_by_label("Password").fill("wrong")
                form.get_by_role("button", name="Upload certificate").click()
                expect(form.get_by_role("alert")).to_contain_text("Wrong password")
                console_errors.clear()  # the refused upload's 422 is the answer this step expects
                form.get_by_label("Password").fill("browser-check")
                form.get_by_role("button", name="Upload certificate").click()
                expect(page.get_by_role("status")).to_contain_text(f"The certificate for {UPLOADED_TYPE} is in place")
                row = page.get_by_role("row").filter(has=page.get_by_role("cell", name=UPLOADED_TYPE, exact=True))
                expect(row).to_contain_text(f"Order Type ID: {UPLOADED_TYPE}")
                expect(row.locator(".badge")).to_have_text("Expires in 1 day")
                shot(page, "desktop-order-types")
                # At phone width the page fits the screen: nothing scrolls sideways, the upload form stays usable.
                context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, storage_state=page.context.storage_state())
                phone_page = context.new_page()
                phone_page.goto(BASE + "/dashboard/order-types")
                expect(phone_page.get_by_role("heading", name="Order types")).to_be_visible()
                expect(phone_page.get_by_role("cell", name=UPLOADED_TYPE, exact=True)).to_be_visible()
                expect(phone_page.get_by_role("region", name="Upload a certificate").get_by_role("button", name="Upload certificate")).to_be_visible()
                shot(phone_page, "phone-order-types")
                width = phone_page.evaluate("document.documentElement.scrollWidth")
                assert width <= PHONE["width"], f"the order types page is {width} px wide at {PHONE['width']} px"
                context.close()
            steps.run("the order types page lists the certificates and uploads a new one", order_types)
            steps.run("the Carriers page connects a generic provider, shows its webhook URL and its events, and deletes it",
                      lambda: carriers(page, browser, console_errors, suffix))
            steps.run("the Webhooks page adds an endpoint, shows its delivery signed with its secret, rotates and deletes it",
                      lambda: webhooks(page, browser, console_errors, suffix))
            steps.run("a CSV of fulfillment updates applies its good row, names its bad one, and fits a phone",
                      lambda: fulfillment_updates(page, browser, console_errors, suffix))
            steps.run("the Insights page charts the orders made, switches to hourly buckets and fits a phone",
                      lambda: insights(page, browser, console_errors))

            checkout: dict = {}
            steps.run("the checkout playground simulates a payment and shows orderDetails", lambda: checkout_simulate(page, checkout))
            steps.run("the payment request converts to the Payment Request API", lambda: checkout_payment_request(page))
            steps.run("the source shows the calls with the order made", lambda: checkout_source(page, checkout))
            steps.run("an order made in the playground is in the list and opens its editor", lambda: checkout_open_made_order(page, checkout))
            steps.run("bad JSON and a refused order are explained", lambda: checkout_bad_input(page, console_errors))
            steps.run("the payment sheet's handlers: Express changes the total and payment.total, an unserved address is a field "
                      "error that stops the payment before any call, a coupon adds a discount line (both APIs)",
                      lambda: checkout_sheet(page, checkout))
            steps.run("a simulated payment after the sheet's changes creates the order with the total the sheet showed",
                      lambda: checkout_sheet_payment(page, checkout))
            steps.run("the source shows both APIs' sheet handlers, the functions the page runs", lambda: checkout_sheet_source(page))
            steps.run("the playground and its payment sheet work at phone width, back from sign-in", lambda: checkout_phone(browser))

            def sign_out():
                page.get_by_role("button", name="Sign out", exact=True).click()
                expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
                page.goto(BASE + "/dashboard")
                expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
                expect(page.get_by_role("link", name=number)).to_have_count(0)
            steps.run("after signing out the dashboard is refused", sign_out)

            def no_console_errors():
                assert not console_errors, f"the browser console reported: {console_errors}"
            steps.run("no script or style was blocked", no_console_errors)
        except Exception:
            pass
        finally:
            browser.close()
    print(f"browser: screenshots in {SHOTS}")
    print(f"browser: {steps.passed} passed, {steps.failed} failed")
    return 1 if steps.failed else 0


if __name__ == "__main__":
    sys.exit(main())
