#!/usr/bin/env python3
"""Writes fuzz/corpus/identity-token/ and fuzz/corpus/ocsp-response/ from the test PKI
(Tests/Fixtures/pki). fuzz/make-seeds.sh runs it; it can run alone. Needs python3 with the
`cryptography` package (make deps installs it).

identity-token: compact tokens signed RS256 with appleid-rsa.key under kid "test-key-1"
(valid-* verify at 2026-06-01 for com.example.web), an `alg: none` one, an HS256 one
"signed" with the public key PEM, string and boolean email_verified, a notification for each
event type; and claims documents (starting with `{`), which the harness signs itself.

ocsp-response: DER OCSP responses with fixed thisUpdate/nextUpdate around 2026-06-01:
good/revoked/unknown from the intermediate's delegated responder and from the intermediate
itself, the intermediate from the root's responder, and refused ones (wrong key, stale, not
yet valid, unsuccessful statuses). ECDSA signatures are random, so the bytes change per run.
"""
import base64
import datetime
import hashlib
import hmac
import json
import os
import shutil
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding
from cryptography.x509 import ocsp

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
PKI = os.path.join(ROOT, "Tests/Fixtures/pki")
CORPUS = os.path.join(ROOT, "fuzz/corpus")
NOW = 1_780_272_000  # 2026-06-01T00:00:00Z, the harness's fixed time
KID = "test-key-1"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def fresh(target: str) -> str:
    out = os.path.join(CORPUS, target)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    return out


def write(out: str, name: str, data) -> None:
    with open(os.path.join(out, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


# --- identity-token ---------------------------------------------------------------------
def identity_tokens() -> None:
    out = fresh("identity-token")
    with open(os.path.join(PKI, "appleid-rsa.key"), "rb") as f:
        key = serialization.load_pem_private_key(f.read(), password=None)
    with open(os.path.join(PKI, "appleid-rsa.pub.pem"), "rb") as f:
        public_pem = f.read()

    def dump(obj) -> bytes:
        return json.dumps(obj, separators=(",", ":"), sort_keys=True).encode()

    def rs256(claims, header=None) -> str:
        signing_input = b64url(dump(header or {"alg": "RS256", "kid": KID})) + "." + b64url(dump(claims))
        signature = key.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
        return signing_input + "." + b64url(signature)

    def claims(**overrides):
        base = {
            "iss": "https://appleid.apple.com", "aud": "com.example.web", "sub": "001234.abcdef.0001",
            "iat": NOW - 10, "exp": NOW + 600, "nonce": "n-123", "nonce_supported": True,
            "email": "jane@example.com", "email_verified": "true", "is_private_email": "false",
            "real_user_status": 2, "auth_time": NOW - 20,
        }
        base.update(overrides)
        return {k: v for k, v in base.items() if v is not None}

    write(out, "valid-token.jwt", rs256(claims()))
    write(out, "valid-token-bool-email-verified.jwt", rs256(claims(email_verified=True, is_private_email=False)))
    write(out, "valid-token-string-false.jwt", rs256(claims(email_verified="false", is_private_email="true")))
    write(out, "valid-token-aud-array-app.jwt", rs256(claims(aud=["other", "com.example.storekeeper"], transfer_sub="old.team.sub")))
    write(out, "valid-token-fractional-times.jwt", rs256(claims(iat=NOW - 10.5, exp=NOW + 600.25)))
    write(out, "valid-token-no-nonce.jwt", rs256(claims(nonce=None, email=None, email_verified=None, is_private_email=None)))
    write(out, "rejected-expired.jwt", rs256(claims(exp=NOW - 61)))
    write(out, "rejected-issued-in-future.jwt", rs256(claims(iat=NOW + 61)))
    write(out, "rejected-wrong-audience.jwt", rs256(claims(aud="com.example.other")))
    write(out, "rejected-wrong-issuer.jwt", rs256(claims(iss="https://appleid.apple.com/")))
    write(out, "rejected-wrong-nonce.jwt", rs256(claims(nonce="n-124")))
    write(out, "rejected-unknown-kid.jwt", rs256(claims(), header={"alg": "RS256", "kid": "other"}))
    write(out, "rejected-crit.jwt", rs256(claims(), header={"alg": "RS256", "kid": KID, "crit": ["exp"]}))
    tampered = rs256(claims()).split(".")
    tampered[1] = b64url(dump(claims(sub="001234.abcdef.0002")))
    write(out, "rejected-bad-signature.jwt", ".".join(tampered))
    write(out, "rejected-alg-none.jwt", b64url(dump({"alg": "none", "kid": KID})) + "." + b64url(dump(claims())) + ".")
    hs_input = b64url(dump({"alg": "HS256", "kid": KID})) + "." + b64url(dump(claims()))
    write(out, "rejected-hs256-public-key.jwt", hs_input + "." + b64url(hmac.new(public_pem, hs_input.encode(), hashlib.sha256).digest()))

    events = ["email-disabled", "email-enabled", "consent-revoked", "account-delete", "account-deleted"]
    for index, event_type in enumerate(events):
        event = {"type": event_type, "sub": "001234.abcdef.0001", "event_time": (NOW - 5) * 1000}
        if event_type.startswith("email"):
            event.update({"email": "relay@privaterelay.appleid.com", "is_private_email": "true"})
        notification = {
            "iss": "https://appleid.apple.com", "aud": "com.example.web", "iat": NOW - 5,
            "jti": f"jti-{index}", "events": json.dumps(event, separators=(",", ":")),
        }
        write(out, f"valid-notification-{event_type}.jwt", rs256(notification))
        # The same claims unsigned: the harness signs them, so mutations reach `events`.
        write(out, f"valid-notification-claims-{event_type}.json", dump(notification))
    write(out, "valid-notification-claims-events-object.json", dump({
        "iss": "https://appleid.apple.com", "aud": ["com.example.storekeeper"], "iat": NOW, "exp": NOW + 300,
        "jti": "jti-object", "events": {"type": "future-type", "sub": "s", "is_private_email": False, "event_time": 1.5e12}}))
    write(out, "valid-token-claims.json", dump(claims(email_verified=False)))
    print(f"{out}: {len(os.listdir(out))} seeds")


# --- ocsp-response ----------------------------------------------------------------------
def ocsp_responses() -> None:
    out = fresh("ocsp-response")

    def cert(name):
        with open(os.path.join(PKI, name + ".pem"), "rb") as f:
            return x509.load_pem_x509_certificate(f.read())

    def private(name):
        with open(os.path.join(PKI, name + ".key"), "rb") as f:
            return serialization.load_pem_private_key(f.read(), password=None)

    at = datetime.datetime.fromtimestamp(NOW, datetime.timezone.utc)
    hour, day = datetime.timedelta(hours=1), datetime.timedelta(days=1)

    def response(subject, issuer, signer, status=ocsp.OCSPCertStatus.GOOD, this_update=at - hour,
                 next_update=at + day, by_hash=True, include_signer=True, revoked=None, nonce=None,
                 algorithm=hashes.SHA256()):
        builder = ocsp.OCSPResponseBuilder().add_response(
            cert=cert(subject), issuer=cert(issuer), algorithm=hashes.SHA1(), cert_status=status,
            this_update=this_update, next_update=next_update,
            revocation_time=revoked[0] if revoked else None, revocation_reason=revoked[1] if revoked else None,
        ).responder_id(ocsp.OCSPResponderEncoding.HASH if by_hash else ocsp.OCSPResponderEncoding.NAME, cert(signer))
        if include_signer and signer != issuer:
            builder = builder.certificates([cert(signer)])
        if nonce is not None:
            builder = builder.add_extension(x509.OCSPNonce(nonce), critical=False)
        return builder.sign(private(signer), algorithm).public_bytes(serialization.Encoding.DER)

    revoked_at = (datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc), x509.ReasonFlags.key_compromise)
    write(out, "valid-good-leaf-delegated.der", response("leaf", "intermediate", "ocsp-responder"))
    write(out, "valid-good-leaf-by-name.der", response("leaf", "intermediate", "ocsp-responder", by_hash=False))
    write(out, "valid-good-leaf-by-issuer.der", response("leaf", "intermediate", "intermediate", algorithm=hashes.SHA384()))
    write(out, "valid-good-leaf-no-next-update.der", response("leaf", "intermediate", "ocsp-responder", next_update=None))
    write(out, "valid-good-leaf-with-nonce.der", response("leaf", "intermediate", "ocsp-responder", nonce=b"\x04\x10" + bytes(range(16))))
    write(out, "valid-revoked-leaf-revoked.der", response("leaf-revoked", "intermediate", "ocsp-responder",
                                                          status=ocsp.OCSPCertStatus.REVOKED, revoked=revoked_at))
    write(out, "valid-unknown-leaf.der", response("leaf", "intermediate", "ocsp-responder", status=ocsp.OCSPCertStatus.UNKNOWN))
    write(out, "valid-good-intermediate.der", response("intermediate", "root", "root-ocsp-responder"))
    write(out, "rejected-wrong-key.der", response("leaf", "intermediate", "ocsp-responder-other-root"))
    write(out, "rejected-signer-not-included.der", response("leaf", "intermediate", "ocsp-responder", include_signer=False))
    write(out, "rejected-stale.der", response("leaf", "intermediate", "ocsp-responder", this_update=at - 3 * day, next_update=at - day))
    write(out, "rejected-not-yet-valid.der", response("leaf", "intermediate", "ocsp-responder", this_update=at + hour, next_update=at + day))
    write(out, "rejected-too-old-no-next-update.der", response("leaf", "intermediate", "ocsp-responder", this_update=at - 2 * day, next_update=None))
    write(out, "rejected-other-certificate.der", response("leaf-no-oid", "intermediate", "ocsp-responder"))
    write(out, "rejected-foreign-chain.der", response("leaf-other-root", "other-intermediate", "other-intermediate"))
    for status in (ocsp.OCSPResponseStatus.MALFORMED_REQUEST, ocsp.OCSPResponseStatus.TRY_LATER, ocsp.OCSPResponseStatus.UNAUTHORIZED):
        write(out, f"rejected-{status.name.lower().replace('_', '-')}.der", ocsp.OCSPResponseBuilder.build_unsuccessful(status).public_bytes(serialization.Encoding.DER))
    print(f"{out}: {len(os.listdir(out))} seeds")


if __name__ == "__main__":
    identity_tokens()
    ocsp_responses()
