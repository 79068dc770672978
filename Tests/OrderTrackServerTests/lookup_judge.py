"""Apple's App Store Server Library (PyPI app-store-server-library 3.1.2, unchanged) as the judge of order lookup.

Reads a JSON job on stdin: base URL, the lookup keys ({"keyId", "issuerId", "bundleId", "privateKey" PEM}), the root
certificate (PEM), an app Apple id, the order number of a known order, an unknown one, how many lookups the rate limit
allows; prints what the library observed as JSON, for the Swift test to check.

The library's base URL is private (`client._base_url`); expired and wrong-audience tokens come from a subclass that
replaces `_generate_token` with PyJWT, the library's own dependency. Both touch private members: hence the exact pin.
"""
import calendar
import datetime
import json
import sys

import jwt
from appstoreserverlibrary.api_client import APIException, AppStoreServerAPIClient
from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier
from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding

job = json.load(sys.stdin)


class TamperedClient(AppStoreServerAPIClient):
    """Sends tokens Apple's client never would: expired, for another audience, or signed under another key's kid."""

    def __init__(self, key, claims, kid=None):
        super().__init__(key["privateKey"].encode(), kid or key["keyId"], key["issuerId"], key["bundleId"], Environment.PRODUCTION)
        self._claims = claims or {}

    def _generate_token(self):
        now = datetime.datetime.now(datetime.timezone.utc)
        claims = {"bid": self._bundle_id, "iss": self._issuer_id, "aud": "appstoreconnect-v1",
                  "exp": calendar.timegm((now + datetime.timedelta(minutes=5)).timetuple())}
        claims.update({name: calendar.timegm((now + value).timetuple()) if isinstance(value, datetime.timedelta) else value
                       for name, value in self._claims.items()})
        return jwt.encode(claims, self._signing_key, algorithm="ES256", headers={"kid": self._key_id})


def client(key, claims=None, kid=None):
    made = TamperedClient(key, claims, kid) if claims is not None or kid else AppStoreServerAPIClient(
        key["privateKey"].encode(), key["keyId"], key["issuerId"], key["bundleId"], Environment.PRODUCTION)
    made._base_url = job["baseURL"]
    return made


def look_up(made, order_id):
    """The response as {status, count, signedTransactions} or the APIException as {httpStatus, apiError, rawApiError}."""
    try:
        response = made.look_up_order_id(order_id)
    except APIException as error:
        return {"httpStatus": error.http_status_code, "apiError": error.api_error.name if error.api_error else None,
                "rawApiError": error.raw_api_error, "errorMessage": error.error_message}
    return {"status": response.status.name if response.status is not None else None, "rawStatus": response.rawStatus,
            "signedTransactions": response.signedTransactions}


key, other = job["key"], job["otherKey"]
root = x509.load_pem_x509_certificate(job["rootCertificate"].encode()).public_bytes(Encoding.DER)
verifier = SignedDataVerifier([root], False, Environment.PRODUCTION, key["bundleId"], job["appAppleId"])
observed = {}

known = look_up(client(key), job["orderNumber"])
observed["known"] = {"status": known.get("status"), "count": len(known.get("signedTransactions") or [])}
observed["transactions"] = []
for signed in known.get("signedTransactions") or []:
    decoded = verifier.verify_and_decode_signed_transaction(signed)
    observed["transactions"].append({
        "transactionId": decoded.transactionId, "productId": decoded.productId, "quantity": decoded.quantity,
        "price": decoded.price, "currency": decoded.currency, "environment": decoded.environment.value,
        "type": decoded.type.value, "bundleId": decoded.bundleId, "revocationDate": decoded.revocationDate})
observed["again"] = look_up(client(key), job["orderNumber"]).get("signedTransactions") == known.get("signedTransactions")
observed["unknown"] = look_up(client(key), job["unknownOrderNumber"])
observed["otherMerchant"] = look_up(client(other), job["orderNumber"])
observed["foreignKid"] = look_up(client(other, kid=key["keyId"]), job["orderNumber"])
observed["expired"] = look_up(client(key, {"exp": datetime.timedelta(minutes=-1)}), job["orderNumber"])
observed["wrongAudience"] = look_up(client(key, {"aud": "appstoreconnect-v2"}), job["orderNumber"])
observed["tooLong"] = look_up(client(key, {"iat": datetime.timedelta(), "exp": datetime.timedelta(minutes=61)}), job["orderNumber"])
observed["malformed"] = look_up(client(key), "%0A")
statuses = [look_up(client(key), job["orderNumber"]) for _ in range(job["rateLimit"] + 1)]
observed["rateLimited"] = statuses[-1]
print(json.dumps(observed))
