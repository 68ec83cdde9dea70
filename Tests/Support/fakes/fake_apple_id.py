#!/usr/bin/env python3
"""A fake of Apple's ID server (Sign in with Apple REST API) for the tests, on 127.0.0.1.

    fake_apple_id.py --port-file FILE --team-id T --key-id K --client-ids A,B
                     --client-key-pub siwa-key.pub.pem --signing-key appleid-rsa.key

Binds a free port and writes it to FILE (atomically) once it is listening. Exits when its
parent process goes away, so a test process that dies never leaves it behind.

It CHECKS what it receives and refuses what Apple would refuse:
    GET  /auth/authorize   response_type=code, response_mode=form_post (required with a scope),
                           a known client_id, redirect_uri, state, nonce: answers the
                           auto-submitting form_post page (code, state, id_token, and the `user`
                           JSON on a user's first authorization of that client)
    POST /auth/token       client_secret: an ES256 JWT, kid = --key-id, signature by the
                           --client-key-pub key, iss = team id, sub = client_id,
                           aud = https://appleid.apple.com, iat/exp sane; grant_type
                           authorization_code (codes live five minutes and work once; the
                           redirect_uri must match the authorize request's) or refresh_token.
                           Errors as Apple: 400 {"error": "invalid_client" | "invalid_grant" |
                           "invalid_request" | "unsupported_grant_type"}
    POST /auth/revoke      client secret checked; 200 with an empty body (also for a token
                           already invalid); the refresh token stops working
    GET  /auth/keys        {"keys": [...]}: the current RS256 key and those rotated out
Control endpoints for the tests (JSON in, JSON out):
    POST /control/user         {"sub", "email", "email_verified", "is_private_email",
                                "firstName", "lastName", "real_user_status"}: who signs in next
                                (booleans may be given as strings, as older tokens carry them)
    POST /control/native       {"client_id", "nonce"}: what an iOS app gets from Apple: an
                                identity token (nonce claim as given) and an authorization code
    POST /control/token        {"claims": {...overrides}, "header": {...overrides},
                                "sign": "rs256" | "none" | "hs256-public-key"}: an identity token
    POST /control/rotate       {"keep_old": true}: a new signing key with a new kid
    POST /control/notification {"type", "sub", "email"?, "is_private_email"?, "aud"?, "jti"?,
                                "event_time"? (ms, default now; null leaves it out), "iat"? (s,
                                default now)}: a signed server-to-server notification
                                {"payload": JWT}; old times make what a replayed old one looks like
    POST /control/stop-using   {"sub"}: the user revokes the app in their Apple ID settings:
                               their refresh tokens are refused (invalid_grant) from now on
    POST /control/outage       {"on": true}: every /auth/* answers 503 until turned off
    GET  /control/received     what /auth/* received, in order (secrets reduced to their checks)
"""

import argparse
import base64
import hashlib
import hmac
import html
import http.server
import json
import os
import secrets
import sys
import threading
import time
from urllib.parse import parse_qs, urlsplit

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

ISSUER = "https://appleid.apple.com"
CODE_LIFETIME = 300


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def int_bytes(value):
    return value.to_bytes((value.bit_length() + 7) // 8, "big")


class Fake:
    def __init__(self, args):
        self.lock = threading.Lock()
        self.team_id = args.team_id
        self.key_id = args.key_id
        self.client_ids = [c for c in args.client_ids.split(",") if c]
        with open(args.client_key_pub, "rb") as f:
            self.client_key = serialization.load_pem_public_key(f.read())
        with open(args.signing_key, "rb") as f:
            first = serialization.load_pem_private_key(f.read(), password=None)
        self.keys = [("fake-key-1", first)]  # newest first
        self.codes = {}
        self.refresh_tokens = {}
        self.authorized = set()  # (sub, client_id) that already got the `user` JSON
        self.received = []
        self.outage = False
        self.user = {"sub": "001234.fakeuser0000000000000000000000.0001", "email": "jane.doe@example.com",
                     "email_verified": "true", "is_private_email": "false",
                     "firstName": "Jane", "lastName": "Doe", "real_user_status": 2}

    # MARK: tokens

    def sign(self, header, claims, mode="rs256"):
        kid, key = self.keys[0]
        header = {"alg": "RS256", "kid": kid, **header}
        if mode == "none":
            header["alg"] = "none"
        elif mode == "hs256-public-key":
            header["alg"] = "HS256"
        head = b64url(json.dumps(header, separators=(",", ":")).encode())
        body = b64url(json.dumps(claims, separators=(",", ":")).encode())
        signing_input = f"{head}.{body}".encode()
        if mode == "none":
            return f"{head}.{body}."
        if mode == "hs256-public-key":
            # The classic confusion attack: the RSA public key (as PEM) used as an HMAC secret.
            secret = key.public_key().public_bytes(serialization.Encoding.PEM,
                                                   serialization.PublicFormat.SubjectPublicKeyInfo)
            return f"{head}.{body}.{b64url(hmac.new(secret, signing_input, hashlib.sha256).digest())}"
        signature = key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
        return f"{head}.{body}.{b64url(signature)}"

    def id_token(self, client_id, nonce, user, extra=None):
        now = int(time.time())
        claims = {"iss": ISSUER, "aud": client_id, "exp": now + 600, "iat": now, "sub": user["sub"],
                  "email": user["email"], "email_verified": user["email_verified"],
                  "is_private_email": user["is_private_email"], "auth_time": now, "nonce_supported": True}
        if nonce is not None:
            claims["nonce"] = nonce
        if user.get("real_user_status") is not None:
            claims["real_user_status"] = user["real_user_status"]
        if user.get("transfer_sub"):
            claims["transfer_sub"] = user["transfer_sub"]
        claims.update(extra or {})
        return self.sign({}, claims)

    def jwks(self):
        keys = []
        for kid, key in self.keys:
            numbers = key.public_key().public_numbers()
            keys.append({"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
                         "n": b64url(int_bytes(numbers.n)), "e": b64url(int_bytes(numbers.e))})
        return {"keys": keys}

    def new_code(self, client_id, redirect_uri, nonce, user):
        code = "c" + secrets.token_hex(16) + ".0.fake"
        self.codes[code] = {"client_id": client_id, "redirect_uri": redirect_uri, "nonce": nonce,
                            "user": dict(user), "issued": time.time(), "used": False}
        return code

    def check_client_secret(self, secret, client_id):
        """None when the secret is good, else why not (the fake's log; Apple says only invalid_client)."""
        try:
            head, body, signature = secret.split(".")
            header = json.loads(b64url_decode(head))
            claims = json.loads(b64url_decode(body))
            raw = b64url_decode(signature)
        except Exception:
            return "not a compact JWS"
        if header.get("alg") != "ES256":
            return "alg is not ES256"
        if header.get("kid") != self.key_id:
            return "kid is not the key id"
        if len(raw) != 64:
            return "signature is not r||s"
        der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
        try:
            self.client_key.verify(der, f"{head}.{body}".encode(), ec.ECDSA(hashes.SHA256()))
        except InvalidSignature:
            return "signature does not verify"
        now = time.time()
        if claims.get("iss") != self.team_id:
            return "iss is not the team id"
        if claims.get("sub") != client_id:
            return "sub is not the client_id"
        if claims.get("aud") != ISSUER:
            return "aud is not https://appleid.apple.com"
        iat, exp = claims.get("iat"), claims.get("exp")
        if not isinstance(iat, int) or not isinstance(exp, int):
            return "iat or exp missing"
        if exp <= now or iat > now + 60 or exp - iat > 15777000:
            return "iat/exp out of range"
        return None


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    fake = None

    def log_message(self, *args):
        sys.stderr.write("fake_apple_id: " + (args[0] % args[1:]) + "\n")

    def answer(self, status, body=b"", content_type="application/json", headers=()):
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def oauth_error(self, error):
        self.answer(400, {"error": error})

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def form(self, body):
        parsed = parse_qs(body.decode(), keep_blank_values=True)
        if any(len(v) > 1 for v in parsed.values()):
            return None
        return {k: v[0] for k, v in parsed.items()}

    def do_GET(self):
        url = urlsplit(self.path)
        fake = self.fake
        if url.path == "/control/received":
            with fake.lock:
                return self.answer(200, fake.received)
        if url.path.startswith("/auth/") and fake.outage:
            return self.answer(503, {"error": "server_error"})
        if url.path == "/auth/keys":
            with fake.lock:
                fake.received.append({"path": "/auth/keys"})
                return self.answer(200, fake.jwks())
        if url.path == "/auth/authorize":
            return self.authorize(self.form(url.query.encode()) or {})
        self.answer(404, {"error": "not_found"})

    def do_POST(self):
        url = urlsplit(self.path)
        fake = self.fake
        body = self.read_body()
        if url.path.startswith("/control/"):
            try:
                request = json.loads(body or b"{}")
            except ValueError:
                return self.answer(400, {"error": "control requests are JSON"})
            return self.control(url.path, request)
        if fake.outage:
            return self.answer(503, {"error": "server_error"})
        if self.headers.get("Content-Type", "").split(";")[0].strip() != "application/x-www-form-urlencoded":
            return self.oauth_error("invalid_request")
        params = self.form(body)
        if params is None:
            return self.oauth_error("invalid_request")
        if url.path == "/auth/token":
            return self.token(params)
        if url.path == "/auth/revoke":
            return self.revoke(params)
        self.answer(404, {"error": "not_found"})

    # MARK: /auth/*

    def authorize(self, q):
        fake = self.fake
        with fake.lock:
            fake.received.append({"path": "/auth/authorize", "params": q})
            if q.get("response_type") != "code" or q.get("client_id") not in fake.client_ids:
                return self.answer(400, b"invalid_request", "text/plain")
            if q.get("scope") and q.get("response_mode") != "form_post":
                return self.answer(400, b"response_mode must be form_post when scope is requested", "text/plain")
            redirect = q.get("redirect_uri")
            if not redirect or not q.get("state"):
                return self.answer(400, b"invalid_request", "text/plain")
            user = fake.user
            code = fake.new_code(q["client_id"], redirect, q.get("nonce"), user)
            fields = {"code": code, "state": q["state"],
                      "id_token": fake.id_token(q["client_id"], q.get("nonce"), user)}
            first = (user["sub"], q["client_id"]) not in fake.authorized
            fake.authorized.add((user["sub"], q["client_id"]))
            if first and "name" in (q.get("scope") or ""):
                fields["user"] = json.dumps({"name": {"firstName": user["firstName"], "lastName": user["lastName"]},
                                             "email": user["email"]})
        inputs = "\n".join(f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}" />'
                           for k, v in fields.items())
        page = f"""<!DOCTYPE html><html><body onload="document.forms[0].submit()">
<form method="POST" action="{html.escape(redirect)}">
{inputs}
</form></body></html>"""
        self.answer(200, page.encode(), "text/html; charset=utf-8")

    def token(self, p):
        fake = self.fake
        with fake.lock:
            client_id = p.get("client_id")
            why = fake.check_client_secret(p.get("client_secret", ""), client_id) if client_id else "no client_id"
            record = {"path": "/auth/token", "grant_type": p.get("grant_type"), "client_id": client_id,
                      "client_secret_ok": why is None, "client_secret_problem": why,
                      "redirect_uri": p.get("redirect_uri")}
            fake.received.append(record)
            if not client_id or not p.get("client_secret") or not p.get("grant_type"):
                return self.oauth_error("invalid_request")
            if client_id not in fake.client_ids or why is not None:
                return self.oauth_error("invalid_client")
            grant = p["grant_type"]
            if grant == "authorization_code":
                code = fake.codes.get(p.get("code", ""))
                if not p.get("code"):
                    return self.oauth_error("invalid_request")
                if (code is None or code["used"] or time.time() - code["issued"] > CODE_LIFETIME
                        or code["client_id"] != client_id or code["redirect_uri"] != p.get("redirect_uri")):
                    record["refused"] = "code"
                    return self.oauth_error("invalid_grant")
                code["used"] = True
                refresh = "r" + secrets.token_hex(16) + ".0.fake"
                fake.refresh_tokens[refresh] = {"client_id": client_id, "user": code["user"], "revoked": False}
                return self.answer(200, {"access_token": "a" + secrets.token_hex(16), "token_type": "Bearer",
                                         "expires_in": 3600, "refresh_token": refresh,
                                         "id_token": fake.id_token(client_id, code["nonce"], code["user"])})
            if grant == "refresh_token":
                token = fake.refresh_tokens.get(p.get("refresh_token", ""))
                if token is None or token["revoked"] or token["client_id"] != client_id:
                    return self.oauth_error("invalid_grant")
                return self.answer(200, {"access_token": "a" + secrets.token_hex(16), "token_type": "Bearer",
                                         "expires_in": 3600, "id_token": fake.id_token(client_id, None, token["user"])})
            return self.oauth_error("unsupported_grant_type")

    def revoke(self, p):
        fake = self.fake
        with fake.lock:
            client_id = p.get("client_id")
            why = fake.check_client_secret(p.get("client_secret", ""), client_id) if client_id else "no client_id"
            token = fake.refresh_tokens.get(p.get("token", ""))
            fake.received.append({"path": "/auth/revoke", "client_id": client_id, "client_secret_ok": why is None,
                                  "client_secret_problem": why, "token_type_hint": p.get("token_type_hint"),
                                  "known_token": token is not None})
            if not client_id or not p.get("token"):
                return self.oauth_error("invalid_request")
            if client_id not in fake.client_ids or why is not None:
                return self.oauth_error("invalid_client")
            if token is not None and token["client_id"] == client_id:
                token["revoked"] = True
        self.answer(200, b"", "text/plain")

    # MARK: control

    def control(self, path, r):
        fake = self.fake
        with fake.lock:
            if path == "/control/user":
                fake.user = {**fake.user, **r}
                return self.answer(200, fake.user)
            if path == "/control/native":
                client_id = r["client_id"]
                code = fake.new_code(client_id, None, r.get("nonce"), fake.user)
                return self.answer(200, {"identityToken": fake.id_token(client_id, r.get("nonce"), fake.user),
                                         "authorizationCode": code})
            if path == "/control/token":
                now = int(time.time())
                claims = {"iss": ISSUER, "aud": fake.client_ids[0], "exp": now + 600, "iat": now,
                          "sub": fake.user["sub"], "email": fake.user["email"],
                          "email_verified": fake.user["email_verified"],
                          "is_private_email": fake.user["is_private_email"]}
                claims.update(r.get("claims", {}))
                return self.answer(200, {"token": fake.sign(r.get("header", {}), claims, r.get("sign", "rs256"))})
            if path == "/control/rotate":
                kid = f"fake-key-{len(fake.keys) + 1}"
                key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
                fake.keys = [(kid, key)] + (fake.keys if r.get("keep_old", True) else [])
                return self.answer(200, {"kid": kid})
            if path == "/control/notification":
                event = {"type": r["type"], "sub": r["sub"], "event_time": r.get("event_time", int(time.time() * 1000))}
                if event["event_time"] is None:
                    del event["event_time"]
                for field in ("email", "is_private_email"):
                    if field in r:
                        event[field] = r[field]
                claims = {"iss": ISSUER, "aud": r.get("aud", fake.client_ids[0]), "iat": r.get("iat", int(time.time())),
                          "jti": r.get("jti", secrets.token_hex(11)), "events": json.dumps(event)}
                return self.answer(200, {"payload": fake.sign({}, claims), "jti": claims["jti"]})
            if path == "/control/stop-using":
                # The user stops using Sign in with Apple for the app in their Apple ID
                # settings: every refresh token of theirs is refused from now on.
                revoked = 0
                for token in fake.refresh_tokens.values():
                    if token["user"]["sub"] == r["sub"] and not token["revoked"]:
                        token["revoked"] = True
                        revoked += 1
                return self.answer(200, {"revoked": revoked})
            if path == "/control/outage":
                fake.outage = bool(r.get("on"))
                return self.answer(200, {"outage": fake.outage})
        self.answer(404, {"error": "no such control"})


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--team-id", required=True)
    parser.add_argument("--key-id", required=True)
    parser.add_argument("--client-ids", required=True)
    parser.add_argument("--client-key-pub", required=True)
    parser.add_argument("--signing-key", required=True)
    args = parser.parse_args()
    Handler.fake = Fake(args)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    temporary = args.port_file + ".tmp"
    with open(temporary, "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(temporary, args.port_file)

    parent = os.getppid()

    def watch_parent():
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch_parent, daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
