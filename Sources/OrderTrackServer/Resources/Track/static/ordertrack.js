// OrderTrack's "Track in Wallet" button for a merchant's confirmation page. A classic script (no module, no build
// step) so that any page can load it from the OrderTrack server:
//
//   <div id="track-in-wallet"></div>
//   <script src="https://orders.example.com/js/ordertrack.js"></script>
//   <script>OrderTrack.addToWallet({ url: walletLinkURL, container: "#track-in-wallet" })</script>
//
// `url` is a link from POST /api/v1/orders/{type}/{id}/wallet-link. On iPhone and iPad the button opens it and Safari
// offers to add the order to Wallet; elsewhere the link is also shown as a QR code to scan with the phone. Styles are
// set through the DOM, never as inline <style>, so the merchant's Content-Security-Policy needs no exception.
//
// Apple asks that nobody can download another person's order package even with its URL. The way to do that is a
// single-use link minted by the signed-in page right before the button shows: give `mint`, a function whose promise
// answers the URL the merchant's backend got from wallet-link with {"singleUse": true}, instead of `url`:
//
//   OrderTrack.addToWallet({ mint: () => fetch("/account/orders/1001/wallet-link", { method: "POST" })
//     .then((answer) => answer.json()).then((link) => link.url), container: "#track-in-wallet" })
//
// `addToWallet` then answers a promise of the button's box.
(function () {
  "use strict";

  function isPhoneOrTablet() {
    var agent = navigator.userAgent || "";
    // iPadOS presents itself as a Mac, but a Mac has no touch screen.
    return /iPhone|iPad|iPod/.test(agent) || (/Macintosh/.test(agent) && navigator.maxTouchPoints > 1);
  }

  function element(tag, styles, text) {
    var node = document.createElement(tag);
    Object.keys(styles || {}).forEach(function (name) { node.style[name] = styles[name]; });
    if (text) node.textContent = text;
    return node;
  }

  // Apple's guidelines: a black button with the Wallet mark and "Add to Apple Wallet", never restyled in colour.
  // Apple's artwork cannot be bundled here, so the mark is drawn with four stacked card stripes.
  function button(url) {
    var link = element("a", {
      display: "inline-flex", alignItems: "center", gap: "10px", padding: "8px 16px 8px 12px", minHeight: "44px",
      boxSizing: "border-box", background: "#000", color: "#fff", borderRadius: "10px", textDecoration: "none",
      font: "500 15px/1.1 -apple-system, BlinkMacSystemFont, 'Helvetica Neue', Arial, sans-serif",
      border: "1px solid #a6a6a6"
    });
    link.href = url;
    link.setAttribute("aria-label", "Add to Apple Wallet");
    var mark = element("span", { display: "inline-flex", flexDirection: "column", gap: "2px", width: "26px" });
    ["#34c759", "#ff9f0a", "#ff3b30", "#0a84ff"].forEach(function (colour) {
      mark.appendChild(element("span", { display: "block", height: "4px", borderRadius: "2px", background: colour }));
    });
    mark.setAttribute("aria-hidden", "true");
    var words = element("span", { display: "inline-flex", flexDirection: "column" });
    words.setAttribute("aria-hidden", "true");
    words.appendChild(element("span", { fontSize: "11px", fontWeight: "400" }, "Add to"));
    words.appendChild(element("span", { fontSize: "17px", fontWeight: "600" }, "Apple Wallet"));
    link.appendChild(mark);
    link.appendChild(words);
    return link;
  }

  function qrCode(url) {
    var figure = element("figure", { margin: "16px 0 0", display: "inline-flex", flexDirection: "column", alignItems: "center", gap: "6px" });
    var image = element("img", { width: "164px", height: "164px", imageRendering: "pixelated" });
    image.src = url.replace(/\/+$/, "") + "/qr.svg";
    image.alt = "QR code of the link that adds this order to Apple Wallet";
    var caption = element("figcaption", {
      font: "13px/1.3 -apple-system, BlinkMacSystemFont, 'Helvetica Neue', Arial, sans-serif", color: "#555", maxWidth: "220px",
      textAlign: "center"
    }, "Scan with your iPhone camera to add this order to Wallet.");
    figure.appendChild(image);
    figure.appendChild(caption);
    return figure;
  }

  function addToWallet(options) {
    if (options && typeof options.mint === "function") {
      return Promise.resolve(options.mint()).then(function (url) {
        return addToWallet({ url: url, container: options.container, qrCode: options.qrCode });
      });
    }
    var url = options && options.url;
    if (typeof url !== "string" || !/^https?:\/\//.test(url)) {
      throw new TypeError("OrderTrack.addToWallet needs { url } or { mint } from POST /api/v1/orders/{type}/{id}/wallet-link");
    }
    var container = options.container || document.body;
    if (typeof container === "string") container = document.querySelector(container);
    if (!container) throw new TypeError("OrderTrack.addToWallet: no element matches " + options.container);
    var box = element("div", { display: "inline-flex", flexDirection: "column", alignItems: "center" });
    box.className = "ordertrack-wallet";
    box.appendChild(button(url));
    if (options.qrCode !== false && !isPhoneOrTablet()) box.appendChild(qrCode(url));
    container.appendChild(box);
    return box;
  }

  window.OrderTrack = Object.freeze({ addToWallet: addToWallet });
})();
