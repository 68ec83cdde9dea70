#!/usr/bin/env python3
"""The comparison for `make bench`: Apple's own Python library (app-store-server-library on
PyPI) verifying one notification, one process per request, as verify-signed-data does.

stdin: {"signedData": "<signedPayload JWS>"} (what simulate-store writes); the envelope
and the transaction and renewal info in it are verified, the three JWS verify-signed-data checks. The roots are
read from APPSTORE_ROOT_CERTS (PEM, as for the functions) and the bundle id from
APPSTORE_BUNDLE_ID, at every start, as a fresh process must. Online checks are off: the
library's OCSP client has no store to keep answers in, so a per-process figure with them on
would time the responder. Exit 0 and {"valid": true, ...} when the notification verifies.
"""
import base64
import json
import os
import sys

from appstoreserverlibrary.models.Environment import Environment
from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException


def pem_certificates(path):
    """The DER of every certificate in a PEM file: the library takes DER bytes."""
    text = open(path, encoding="ascii").read()
    certificates, body = [], None
    for line in text.splitlines():
        if line.startswith("-----BEGIN CERTIFICATE-----"):
            body = []
        elif line.startswith("-----END CERTIFICATE-----"):
            certificates.append(base64.b64decode("".join(body)))
            body = None
        elif body is not None:
            body.append(line.strip())
    return certificates


def main():
    request = json.load(sys.stdin)
    verifier = SignedDataVerifier(
        pem_certificates(os.environ["APPSTORE_ROOT_CERTS"]),
        False,
        Environment.SANDBOX,
        os.environ["APPSTORE_BUNDLE_ID"],
    )
    try:
        notification = verifier.verify_and_decode_notification(request["signedData"])
        # The library verifies the envelope only; verify-signed-data verifies the JWS nested
        # in it too, so the same three verifications are timed here.
        data = notification.data
        if data and data.signedTransactionInfo:
            verifier.verify_and_decode_signed_transaction(data.signedTransactionInfo)
        if data and data.signedRenewalInfo:
            verifier.verify_and_decode_renewal_info(data.signedRenewalInfo)
    except VerificationException as error:
        print(json.dumps({"valid": False, "status": getattr(error.status, "name", str(error.status))}))
        return 65
    print(json.dumps({"valid": True, "notificationType": str(notification.rawNotificationType),
                      "environment": str(data.rawEnvironment if data else None)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
