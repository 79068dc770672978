"""Apple's SignedDataVerifier as the judge of signed transactions.

usage: verify_transactions.py ROOT_DER_PATH BUNDLE_ID APP_APPLE_ID < one JWS per line
Verifies every JWS in strict mode (OpenSSL X509_STRICT), environment Production, offline, and prints the decoded
payloads as one JSON array; exits 1 with the library's status on the first failure.
"""
import json
import sys

from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException

root, bundle_id, app_apple_id = sys.argv[1], sys.argv[2], int(sys.argv[3])
verifier = SignedDataVerifier([open(root, "rb").read()], False, Environment.PRODUCTION, bundle_id, app_apple_id)
decoded = []
for jws in sys.stdin.read().split():
    try:
        transaction = verifier.verify_and_decode_signed_transaction(jws)
    except VerificationException as error:
        print(f"VerificationException {error.status.name}", file=sys.stderr)
        sys.exit(1)
    decoded.append({
        "transactionId": transaction.transactionId,
        "originalTransactionId": transaction.originalTransactionId,
        "bundleId": transaction.bundleId,
        "productId": transaction.productId,
        "quantity": transaction.quantity,
        "price": transaction.price,
        "currency": transaction.currency,
        "type": transaction.type.value if transaction.type else None,
        "environment": transaction.environment.value if transaction.environment else None,
        "inAppOwnershipType": transaction.inAppOwnershipType.value if transaction.inAppOwnershipType else None,
        "transactionReason": transaction.transactionReason.value if transaction.transactionReason else None,
        "storefront": transaction.storefront,
        "purchaseDate": transaction.purchaseDate,
        "signedDate": transaction.signedDate,
        "revocationDate": transaction.revocationDate,
        "revocationReason": transaction.rawRevocationReason,
    })
print(json.dumps(decoded))
