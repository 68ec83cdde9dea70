#!/usr/bin/env python3
"""A fake App Store Server API on loopback, for tests and the demo.

    fake_app_store.py --scenario FILE --api-key-public PEM --pki DIR [--port N]

Prints the port it listens on (127.0.0.1) as its first stdout line and serves:

  production under /inApps/...; the sandbox under /sandbox/inApps/... (so one base URL,
  APPSTORE_API_BASE_URL, reaches both)

  GET  /inApps/v1/transactions/{transactionId}                  getTransactionInfo
  GET  /inApps/v2/history/{transactionId}?revision&filters      getTransactionHistory (v2)
  GET  /inApps/v1/subscriptions/{transactionId}?status=N        getAllSubscriptionStatuses
  POST /inApps/v1/notifications/history?paginationToken         getNotificationHistory
  POST /inApps/v1/notifications/test                            requestTestNotification
  GET  /inApps/v1/notifications/test/{token}                    getTestNotificationStatus
  GET  /inApps/v1/lookup/{orderId}                              lookUpOrderId
  GET  /inApps/v2/refund/lookup/{transactionId}?revision        getRefundHistory (v2)
  PUT  /inApps/v1/subscriptions/extend/{originalTransactionId}  extendSubscriptionRenewalDate
  POST /inApps/v1/subscriptions/extend/mass                     extendRenewalDateForAllActiveSubscribers
  GET  /inApps/v1/subscriptions/extend/mass/{productId}/{requestIdentifier}
  PUT  /inApps/v2/transactions/consumption/{transactionId}      sendConsumptionInformation
  PUT  /inApps/v1/transactions/{originalTransactionId}/appAccountToken   setAppAccountToken
  GET  /inApps/v1/transactions/appTransactions/{transactionId}  getAppTransactionInfo
  Retention Messaging (state per environment, kept while the fake runs; see retention.py):
  PUT    /inApps/v1/messaging/image/{imageIdentifier}?imageSize  uploadImage (image/png body)
  DELETE /inApps/v1/messaging/image/{imageIdentifier}            deleteImage
  GET    /inApps/v1/messaging/image/list                         getImageList
  PUT    /inApps/v1/messaging/message/{messageIdentifier}        uploadMessage
  DELETE /inApps/v1/messaging/message/{messageIdentifier}        deleteMessage
  GET    /inApps/v1/messaging/message/list                       getMessageList
  PUT|DELETE|GET /inApps/v1/messaging/default/{productId}/{locale}   configure/delete/getDefaultMessage
  PUT|DELETE|GET /inApps/v1/messaging/realtime/url               configure/delete/getRealtimeURL
  POST   /inApps/v1/messaging/performanceTest                    initiatePerformanceTest (sandbox only)
  GET    /inApps/v1/messaging/performanceTest/result/{requestId} getPerformanceTestResults

Every API request must carry a bearer JWT that Apple would accept: ES256 signed by the key
whose public half is --api-key-public, header kid (the scenario's keyId) and typ JWT, claims
iss (issuerId), aud "appstoreconnect-v1", bid (bundleId), iat not in the future, exp in the
future and at most 60 minutes after iat. Anything else answers 401 "Unauthenticated".
Parameters are checked as Apple checks them and refused with Apple's error codes.

Signed fields are JWS signed with the test PKI's leaf key (x5c: leaf, intermediate, root).

Control (no token):
  POST /control/faults    {"faults": [{"kind": "status", "status": 429, "retryAfter": 2,
                           "errorCode": 4290000} | {"kind": "hang", "seconds": 5} |
                           {"kind": "drop"} | {"kind": "pass"}, ...]}  the next API requests take
                           these in turn ("pass" answers normally: faults that start later);
                           a fault with "path": "/inApps/v1/subscriptions" is taken only by a
                           request whose path (sandbox prefix removed) starts with it
  POST /control/faults/clear  drops the faults not yet used
  GET  /control/log       {"requests": [{method, environment, path, query, body, status, auth}]}
  POST /control/log/clear
  POST /control/scenario  replaces the scenario
  POST /control/clock     {"offsetSeconds": 600}: every Date header this far from the real
                          time (a server whose clock is off; doctor's clock check)
  GET  /control/ready

Scenario (JSON): {"keyId", "issuerId", "bundleId", "appAppleId", "pageSize" (20),
  "environments": {"Production" | "Sandbox": {
     "customers": [{"transactions": [{transactionId, originalTransactionId, productId, type,
                    purchaseDate (ms), expiresDate, subscriptionGroupIdentifier,
                    revocationDate, ...any other JWSTransaction field}],
                    "renewals": [{originalTransactionId, autoRenewStatus, ...}],
                    "orders": ["ORDERID"], "appTransaction": {...}}],
     "notifications": [{"notificationType", "subtype", "transactionId", "signedDate",
                        "notificationUUID" (random when absent), "tamper" (a bad signature),
                        "sendAttempts": [{"attemptDate", "sendAttemptResult"}]}],
     "testNotification": {"sendAttemptResults": ["SUCCESS"], "pendingPolls": 1,
                          "noNotificationUrl": false}}}}
The process exits when its parent does.
"""

import argparse
import base64
import hashlib
import http.server
import json
import os
import socket
import sys
import threading
import time
import uuid
from urllib.parse import parse_qs, urlsplit, unquote

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from retention import RetentionMessaging  # noqa: E402  (beside this file)

ERRORS = {
    4000000: "Bad request.",
    4000005: "Invalid request revision.",
    4000006: "Invalid transaction id.",
    4000008: "Invalid original transaction id.",
    4000009: "Invalid extend by days value.",
    4000010: "Invalid extend reason code.",
    4000011: "Invalid request identifier.",
    4000013: "Start date after end date.",
    4000014: "Invalid pagination token.",
    4000015: "Invalid start date.",
    4000016: "Invalid end date.",
    4000018: "Invalid notification type.",
    4000019: "Multiple filters supplied.",
    4000020: "Invalid test notification token.",
    4000021: "Invalid sort.",
    4000022: "Invalid product type.",
    4000023: "Invalid product id.",
    4000024: "Invalid subscription group identifier.",
    4000026: "Invalid in-app ownership type.",
    4000027: "Invalid empty storefront country code list.",
    4000028: "Invalid storefront country code.",
    4000030: "Invalid revoked.",
    4000031: "Invalid status.",
    4000035: "Invalid customer consented.",
    4000036: "Invalid delivery status.",
    4000041: "Invalid sample content provided.",
    4000161: "Invalid image.",
    4000162: "Header too long.",
    4000163: "Body too long.",
    4000164: "Invalid locale.",
    4000175: "Alt text too long.",
    4000183: "Invalid app account token UUID.",
    4000187: "Transaction id is not an original transaction id.",
    4040005: "Original transaction id not found.",
    4040007: "Server notification url not found.",
    4040008: "Test notification not found.",
    4040009: "Status request not found.",
    4040010: "Transaction id not found.",
    4000211: "Invalid performance test request.",
    4000212: "Invalid request id.",
    4000215: "Bad request realtime url.",
    4000216: "Bad request image size.",
    4000218: "Too many bullet points.",
    4030017: "Message not approved.",
    4030018: "Image not approved.",
    4030019: "Image in use.",
    4030026: "No passing performance test.",
    4040014: "Image not found.",
    4040015: "Message not found.",
    4040018: "Performance test run not found.",
    4040019: "App transaction does not exist.",
    4040020: "Default message not found.",
    4040021: "Realtime url not found.",
    4090000: "Image already exists.",
    4090001: "Message already exists.",
    4290000: "Rate limit exceeded.",
    5000000: "An unknown error occurred.",
    5000001: "An unknown error occurred. Please try again.",
}

PRODUCT_TYPES = {
    "AUTO_RENEWABLE": "Auto-Renewable Subscription",
    "NON_RENEWABLE": "Non-Renewing Subscription",
    "CONSUMABLE": "Consumable",
    "NON_CONSUMABLE": "Non-Consumable",
}
NOTIFICATION_TYPES = {
    "CONSUMPTION_REQUEST", "DID_CHANGE_RENEWAL_PREF", "DID_CHANGE_RENEWAL_STATUS", "DID_FAIL_TO_RENEW",
    "DID_RENEW", "EXPIRED", "EXTERNAL_PURCHASE_TOKEN", "GRACE_PERIOD_EXPIRED", "OFFER_REDEEMED",
    "ONE_TIME_CHARGE", "PRICE_INCREASE", "REFUND", "REFUND_DECLINED", "REFUND_REVERSED",
    "RENEWAL_EXTENDED", "RENEWAL_EXTENSION", "REVOKE", "SUBSCRIBED", "TEST", "METADATA_UPDATE",
    "MIGRATION", "PRICE_CHANGE", "RESCIND_CONSENT",
}
DELIVERY_STATUSES = {"DELIVERED", "UNDELIVERED_QUALITY_ISSUE", "UNDELIVERED_WRONG_ITEM",
                     "UNDELIVERED_SERVER_OUTAGE", "UNDELIVERED_OTHER"}
REFUND_PREFERENCES = {"DECLINE", "GRANT_FULL", "GRANT_PRORATED"}


class ApiError(Exception):
    def __init__(self, status, code):
        super().__init__(code)
        self.status = status
        self.code = code


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def now_ms():
    return int(time.time() * 1000)


class Signer:
    """Signs payloads as the App Store does: ES256, x5c leaf + intermediate + root."""

    def __init__(self, pki):
        with open(os.path.join(pki, "leaf.key"), "rb") as f:
            self.key = serialization.load_pem_private_key(f.read(), password=None)
        self.x5c = []
        for stem in ("leaf", "intermediate", "root"):
            with open(os.path.join(pki, stem + ".pem"), "rb") as f:
                cert = x509.load_pem_x509_certificate(f.read())
            self.x5c.append(base64.b64encode(cert.public_bytes(serialization.Encoding.DER)).decode())

    def sign(self, payload):
        header = b64url(json.dumps({"alg": "ES256", "x5c": self.x5c}, separators=(",", ":")).encode())
        body = b64url(json.dumps(payload, separators=(",", ":"), sort_keys=True).encode())
        der = self.key.sign((header + "." + body).encode(), ec.ECDSA(hashes.SHA256()))
        r, s = decode_dss_signature(der)
        return header + "." + body + "." + b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


class Store:
    """The scenario and everything the fake remembers, behind one lock."""

    def __init__(self, scenario, signer, api_key):
        self.lock = threading.Lock()
        self.signer = signer
        self.api_key = api_key
        self.faults = []
        # Seconds added to the time every Date header tells (POST /control/clock).
        self.clock_offset = 0.0
        self.log = []
        self.tests = {}
        self.mass = {}
        self.retention = RetentionMessaging(ApiError)
        self.load(scenario)

    def load(self, scenario):
        self.scenario = scenario
        self.page_size = int(scenario.get("pageSize", 20))
        self.envs = {}
        for name in ("Production", "Sandbox"):
            env = scenario.get("environments", {}).get(name, {})
            self.envs[name] = {
                "customers": env.get("customers", []),
                "notifications": env.get("notifications", []),
                "testNotification": env.get("testNotification", {"sendAttemptResults": ["SUCCESS"], "pendingPolls": 0}),
            }

    # -- token -----------------------------------------------------------------------------
    def check_token(self, authorization):
        """None when Apple would accept the token, else why not."""
        if not authorization or not authorization.startswith("Bearer "):
            return "no bearer token"
        parts = authorization[len("Bearer "):].split(".")
        if len(parts) != 3:
            return "not a compact JWS"
        try:
            header = json.loads(b64url_decode(parts[0]))
            claims = json.loads(b64url_decode(parts[1]))
            signature = b64url_decode(parts[2])
        except Exception:
            return "undecodable token"
        if header.get("alg") != "ES256":
            return "alg is not ES256"
        if header.get("typ") != "JWT":
            return "typ is not JWT"
        if header.get("kid") != self.scenario.get("keyId"):
            return "unknown kid"
        if len(signature) != 64:
            return "bad signature length"
        der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
        try:
            self.api_key.verify(der, (parts[0] + "." + parts[1]).encode(), ec.ECDSA(hashes.SHA256()))
        except InvalidSignature:
            return "bad signature"
        if claims.get("iss") != self.scenario.get("issuerId"):
            return "wrong iss"
        if claims.get("aud") != "appstoreconnect-v1":
            return "wrong aud"
        if claims.get("bid") != self.scenario.get("bundleId"):
            return "wrong bid"
        iat, exp = claims.get("iat"), claims.get("exp")
        if not isinstance(iat, int) or not isinstance(exp, int):
            return "iat and exp must be integers"
        now = int(time.time())
        if iat > now + 60:
            return "iat in the future"
        if exp <= now:
            return "expired"
        if exp - iat > 3600:
            return "exp more than 60 minutes after iat"
        return None

    # -- signed data -------------------------------------------------------------------------
    def transaction_payload(self, env, t):
        payload = {
            "bundleId": self.scenario.get("bundleId"),
            "environment": env,
            "inAppOwnershipType": "PURCHASED",
            "quantity": 1,
            "signedDate": now_ms(),
            "storefront": "USA",
            "storefrontId": "143441",
            "transactionReason": "PURCHASE",
            "currency": "USD",
            "price": 4990,
        }
        payload.update(t)
        payload.setdefault("originalTransactionId", t.get("transactionId"))
        payload.setdefault("originalPurchaseDate", t.get("purchaseDate"))
        return payload

    def signed_transaction(self, env, t):
        return self.signer.sign(self.transaction_payload(env, t))

    def signed_renewal(self, env, r):
        payload = {"environment": env, "signedDate": now_ms()}
        payload.update(r)
        return self.signer.sign(payload)

    def notification_payload(self, env, n):
        data = {"bundleId": self.scenario.get("bundleId"), "bundleVersion": "1", "environment": env}
        if env == "Production":
            data["appAppleId"] = self.scenario.get("appAppleId")
        tx = self.find_transaction(env, n.get("transactionId")) if n.get("transactionId") else None
        if tx is not None:
            data["signedTransactionInfo"] = self.signed_transaction(env, tx[1])
        payload = {"notificationType": n.get("notificationType"), "notificationUUID": n.get("notificationUUID", str(uuid.uuid4())),
                   "version": "2.0", "signedDate": n.get("signedDate", now_ms()), "data": data}
        if n.get("subtype"):
            payload["subtype"] = n["subtype"]
        return payload

    def signed_notification(self, env, n):
        signed = self.signer.sign(self.notification_payload(env, n))
        if n.get("tamper"):
            # A payload whose signature does not match: verification must refuse it.
            head, body, signature = signed.split(".")
            raw = bytearray(b64url_decode(signature))
            raw[0] ^= 0x01
            signed = head + "." + body + "." + b64url(bytes(raw))
        return signed

    # -- lookups -------------------------------------------------------------------------------
    def find_customer(self, env, transaction_id):
        for customer in self.envs[env]["customers"]:
            for t in customer.get("transactions", []):
                if transaction_id in (t.get("transactionId"), t.get("originalTransactionId")):
                    return customer
            app = customer.get("appTransaction") or {}
            if transaction_id and transaction_id == app.get("appTransactionId"):
                return customer
        return None

    def find_transaction(self, env, transaction_id):
        for customer in self.envs[env]["customers"]:
            for t in customer.get("transactions", []):
                if t.get("transactionId") == transaction_id:
                    return customer, t
        return None


def require_transaction_id(value):
    if not value.isdigit():
        raise ApiError(400, 4000006)


def page(items, offset, size):
    chunk = items[offset:offset + size]
    return chunk, offset + len(chunk) < len(items)


def make_token(offset, filters):
    raw = json.dumps({"o": offset, "f": filters}, sort_keys=True).encode()
    return b64url(raw)


def read_token(token, filters, error_code):
    try:
        data = json.loads(b64url_decode(token))
    except Exception:
        raise ApiError(400, error_code)
    if not isinstance(data, dict) or data.get("f") != filters or not isinstance(data.get("o"), int):
        raise ApiError(400, error_code)
    return data["o"]


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FakeAppStore/1"
    store = None

    def log_message(self, fmt, *args):
        pass

    def do_GET(self):
        self.dispatch("GET")

    def do_POST(self):
        self.dispatch("POST")

    def do_PUT(self):
        self.dispatch("PUT")

    def do_DELETE(self):
        self.dispatch("DELETE")

    def do_HEAD(self):
        # Apple's host answers a HEAD without a token with its Date, as any HTTP server does;
        # no body, no token check, no log entry (it is no API call).
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def date_time_string(self, timestamp=None):
        if timestamp is None:
            timestamp = time.time() + self.store.clock_offset
        return super().date_time_string(timestamp)

    # -- plumbing ------------------------------------------------------------------------------
    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def answer(self, status, body=None, headers=()):
        data = b"" if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        self.send_response(status)
        if body is not None and not isinstance(body, bytes):
            self.send_header("Content-Type", "application/json")
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def dispatch(self, method):
        url = urlsplit(self.path)
        path = url.path
        query = parse_qs(url.query, keep_blank_values=True)
        raw_body = self.read_body()
        if path.startswith("/control/"):
            return self.control(method, path, raw_body)

        env = "Production"
        if path.startswith("/sandbox/"):
            env = "Sandbox"
            path = path[len("/sandbox"):]
        content_type = self.headers.get("Content-Type")
        try:
            body = json.loads(raw_body) if raw_body else None
        except ValueError:
            body = "<not JSON>"
        entry = {"method": method, "environment": env, "path": path, "query": query, "body": body,
                 "status": None, "auth": "ok", "time": time.time(), "contentType": content_type}
        if raw_body and body == "<not JSON>":
            entry["bodyBytes"] = len(raw_body)
            entry["bodySha256"] = hashlib.sha256(raw_body).hexdigest()
        self.raw_body, self.content_type = raw_body, content_type
        store = self.store
        with store.lock:
            store.log.append(entry)
            fault = None
            for index, candidate in enumerate(store.faults):
                if path.startswith(candidate.get("path", "")):
                    fault = store.faults.pop(index)
                    break
        reason = store.check_token(self.headers.get("Authorization"))
        if reason is not None:
            entry["auth"] = reason
            entry["status"] = 401
            return self.answer(401, b"Unauthenticated\n", [("Content-Type", "text/plain")])
        if fault is not None and fault.get("kind") != "pass":
            return self.apply_fault(fault, entry)
        try:
            with store.lock:
                status, answer = self.route(method, path, query, body, env)
        except ApiError as error:
            entry["status"] = error.status
            entry["errorCode"] = error.code
            return self.answer(error.status, {"errorCode": error.code, "errorMessage": ERRORS.get(error.code, "Error.")})
        entry["status"] = status
        self.answer(status, answer)

    def apply_fault(self, fault, entry):
        kind = fault.get("kind")
        entry["fault"] = kind
        if kind == "status":
            status = int(fault.get("status", 500))
            entry["status"] = status
            headers = []
            if "retryAfter" in fault:
                headers.append(("Retry-After", str(fault["retryAfter"])))
            code = fault.get("errorCode", {429: 4290000, 500: 5000000, 503: 5000001}.get(status))
            body = {"errorCode": code, "errorMessage": ERRORS.get(code, "Error.")} if code else None
            return self.answer(status, body if body else b"", headers)
        if kind == "hang":
            time.sleep(float(fault.get("seconds", 30)))
        # hang (after its time) and drop: close without an answer.
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def control(self, method, path, raw_body):
        store = self.store
        if path == "/control/ready":
            return self.answer(200, {"ready": True})
        if path == "/control/log" and method == "GET":
            with store.lock:
                return self.answer(200, {"requests": list(store.log)})
        if path == "/control/log/clear" and method == "POST":
            with store.lock:
                store.log.clear()
            return self.answer(200, {"cleared": True})
        if path == "/control/faults" and method == "POST":
            faults = json.loads(raw_body or b"{}").get("faults", [])
            with store.lock:
                store.faults.extend(faults)
            return self.answer(200, {"queued": len(faults)})
        if path == "/control/faults/clear" and method == "POST":
            with store.lock:
                store.faults.clear()
            return self.answer(200, {"cleared": True})
        if path == "/control/clock" and method == "POST":
            with store.lock:
                store.clock_offset = float(json.loads(raw_body or b"{}").get("offsetSeconds", 0))
            return self.answer(200, {"offsetSeconds": store.clock_offset})
        if path == "/control/scenario" and method == "POST":
            with store.lock:
                store.load(json.loads(raw_body))
            return self.answer(200, {"loaded": True})
        return self.answer(404, {"error": "no such control endpoint"})

    # -- the API --------------------------------------------------------------------------------
    def route(self, method, path, query, body, env):
        s = self.store
        parts = [unquote(p) for p in path.strip("/").split("/")]
        if len(parts) < 3 or parts[0] != "inApps":
            raise ApiError(404, 4000000)
        version, rest = parts[1], parts[2:]
        if version == "v1" and rest[0] == "messaging":
            return s.retention.route(method, rest[1:], query, body, self.raw_body, self.content_type, env)

        if method == "GET" and version == "v1" and rest[:2] == ["transactions", "appTransactions"] and len(rest) == 3:
            return self.app_transaction(env, rest[2])
        if method == "PUT" and version == "v1" and rest[0] == "transactions" and len(rest) == 3 and rest[2] == "appAccountToken":
            return self.set_app_account_token(env, rest[1], body)
        if method == "GET" and version == "v1" and rest[0] == "transactions" and len(rest) == 2:
            require_transaction_id(rest[1])
            found = s.find_transaction(env, rest[1])
            if found is None:
                raise ApiError(404, 4040010)
            return 200, {"signedTransactionInfo": s.signed_transaction(env, found[1])}
        if method == "GET" and version == "v2" and rest[0] == "history" and len(rest) == 2:
            return self.history(env, rest[1], query)
        if method == "GET" and version == "v2" and rest[:2] == ["refund", "lookup"] and len(rest) == 3:
            return self.refunds(env, rest[2], query)
        if method == "GET" and version == "v1" and rest[0] == "subscriptions" and len(rest) == 2:
            return self.statuses(env, rest[1], query)
        if method == "PUT" and version == "v1" and rest[:2] == ["subscriptions", "extend"] and len(rest) == 3:
            return self.extend(env, rest[2], body)
        if method == "POST" and version == "v1" and rest == ["subscriptions", "extend", "mass"]:
            return self.mass_extend(env, body)
        if method == "GET" and version == "v1" and rest[:3] == ["subscriptions", "extend", "mass"] and len(rest) == 5:
            key = (env, rest[3], rest[4])
            if key not in s.mass:
                raise ApiError(404, 4040009)
            return 200, s.mass[key]
        if method == "POST" and version == "v1" and rest == ["notifications", "history"]:
            return self.notification_history(env, query, body)
        if method == "POST" and version == "v1" and rest == ["notifications", "test"]:
            config = s.envs[env]["testNotification"]
            if config.get("noNotificationUrl"):
                raise ApiError(404, 4040007)
            token = str(uuid.uuid4()) + "_" + str(now_ms())
            s.tests[token] = {"env": env, "polls": 0, "config": config,
                              "payload": {"notificationType": "TEST", "notificationUUID": str(uuid.uuid4()),
                                          "version": "2.0", "signedDate": now_ms(),
                                          "data": {"bundleId": s.scenario.get("bundleId"), "environment": env,
                                                   **({"appAppleId": s.scenario.get("appAppleId")} if env == "Production" else {})}}}
            return 200, {"testNotificationToken": token}
        if method == "GET" and version == "v1" and rest[:2] == ["notifications", "test"] and len(rest) == 3:
            test = s.tests.get(rest[2])
            if test is None or test["env"] != env:
                raise ApiError(404, 4040008)
            test["polls"] += 1
            attempts = []
            if test["polls"] > int(test["config"].get("pendingPolls", 0)):
                attempts = [{"attemptDate": now_ms(), "sendAttemptResult": r}
                            for r in test["config"].get("sendAttemptResults", ["SUCCESS"])]
            return 200, {"signedPayload": s.signer.sign(test["payload"]), "sendAttempts": attempts}
        if method == "GET" and version == "v1" and rest[0] == "lookup" and len(rest) == 2:
            for customer in s.envs[env]["customers"]:
                if rest[1] in customer.get("orders", []):
                    return 200, {"status": 0, "signedTransactions": [s.signed_transaction(env, t) for t in customer.get("transactions", [])]}
            return 200, {"status": 1}
        if method == "PUT" and version == "v2" and rest[0] == "transactions" and len(rest) == 3 and rest[1] == "consumption":
            return self.consumption(env, rest[2], body)
        raise ApiError(404, 4000000)

    def filters_of(self, query, allowed):
        for name in query:
            if name not in allowed:
                raise ApiError(400, 4000000)
        return {k: sorted(v) for k, v in query.items() if k != "revision" and k != "paginationToken"}

    def history(self, env, transaction_id, query):
        s = self.store
        require_transaction_id(transaction_id)
        allowed = {"revision", "startDate", "endDate", "productId", "productType", "sort",
                   "subscriptionGroupIdentifier", "inAppOwnershipType", "revoked"}
        filters = self.filters_of(query, allowed)
        customer = s.find_customer(env, transaction_id)
        if customer is None:
            raise ApiError(404, 4040010)
        items = list(customer.get("transactions", []))
        def one(name, code):
            values = query.get(name, [])
            if len(values) > 1:
                raise ApiError(400, code)
            return values[0] if values else None
        start, end = one("startDate", 4000015), one("endDate", 4000016)
        if start is not None and not start.isdigit():
            raise ApiError(400, 4000015)
        if end is not None and not end.isdigit():
            raise ApiError(400, 4000016)
        if start and end and int(start) >= int(end):
            raise ApiError(400, 4000013)
        if start:
            items = [t for t in items if t.get("purchaseDate", 0) >= int(start)]
        if end:
            items = [t for t in items if t.get("purchaseDate", 0) < int(end)]
        if query.get("productId"):
            items = [t for t in items if t.get("productId") in query["productId"]]
        if query.get("productType"):
            types = []
            for value in query["productType"]:
                if value not in PRODUCT_TYPES:
                    raise ApiError(400, 4000022)
                types.append(PRODUCT_TYPES[value])
            items = [t for t in items if t.get("type") in types]
        if query.get("subscriptionGroupIdentifier"):
            items = [t for t in items if t.get("subscriptionGroupIdentifier") in query["subscriptionGroupIdentifier"]]
        ownership = one("inAppOwnershipType", 4000026)
        if ownership is not None:
            if ownership not in ("FAMILY_SHARED", "PURCHASED"):
                raise ApiError(400, 4000026)
            items = [t for t in items if t.get("inAppOwnershipType", "PURCHASED") == ownership]
        revoked = one("revoked", 4000030)
        if revoked is not None:
            if revoked not in ("true", "false"):
                raise ApiError(400, 4000030)
            items = [t for t in items if ("revocationDate" in t) == (revoked == "true")]
        sort = one("sort", 4000021) or "ASCENDING"
        if sort not in ("ASCENDING", "DESCENDING"):
            raise ApiError(400, 4000021)
        items.sort(key=lambda t: t.get("purchaseDate", 0), reverse=(sort == "DESCENDING"))
        offset = read_token(query["revision"][0], filters, 4000005) if query.get("revision") else 0
        chunk, more = page(items, offset, s.page_size)
        answer = {"revision": make_token(offset + len(chunk), filters), "hasMore": more,
                  "bundleId": s.scenario.get("bundleId"), "environment": env,
                  "signedTransactions": [s.signed_transaction(env, t) for t in chunk]}
        if env == "Production":
            answer["appAppleId"] = s.scenario.get("appAppleId")
        return 200, answer

    def refunds(self, env, transaction_id, query):
        s = self.store
        require_transaction_id(transaction_id)
        filters = self.filters_of(query, {"revision"})
        customer = s.find_customer(env, transaction_id)
        if customer is None:
            raise ApiError(404, 4040010)
        items = [t for t in customer.get("transactions", []) if "revocationDate" in t]
        items.sort(key=lambda t: t.get("revocationDate", 0))
        offset = read_token(query["revision"][0], filters, 4000005) if query.get("revision") else 0
        chunk, more = page(items, offset, s.page_size)
        return 200, {"revision": make_token(offset + len(chunk), filters), "hasMore": more,
                     "signedTransactions": [s.signed_transaction(env, t) for t in chunk]}

    def statuses(self, env, transaction_id, query):
        s = self.store
        require_transaction_id(transaction_id)
        self.filters_of(query, {"status"})
        wanted = set()
        for value in query.get("status", []):
            if value not in ("1", "2", "3", "4", "5"):
                raise ApiError(400, 4000031)
            wanted.add(int(value))
        customer = s.find_customer(env, transaction_id)
        if customer is None:
            raise ApiError(404, 4040010)
        groups = {}
        latest = {}
        for t in customer.get("transactions", []):
            if t.get("type") != "Auto-Renewable Subscription":
                continue
            original = t.get("originalTransactionId", t.get("transactionId"))
            if original not in latest or t.get("purchaseDate", 0) > latest[original].get("purchaseDate", 0):
                latest[original] = t
        renewals = {r.get("originalTransactionId"): r for r in customer.get("renewals", [])}
        for original, t in latest.items():
            renewal = renewals.get(original, {"originalTransactionId": original, "productId": t.get("productId"),
                                              "autoRenewProductId": t.get("productId"), "autoRenewStatus": 1})
            status = renewal.get("status")
            if status is None:
                status = 5 if "revocationDate" in t else (1 if t.get("expiresDate", 0) > now_ms() else 2)
            if wanted and status not in wanted:
                continue
            renewal_payload = {k: v for k, v in renewal.items() if k != "status"}
            groups.setdefault(t.get("subscriptionGroupIdentifier"), []).append({
                "status": status, "originalTransactionId": original,
                "signedTransactionInfo": s.signed_transaction(env, t),
                "signedRenewalInfo": s.signed_renewal(env, renewal_payload)})
        answer = {"environment": env, "bundleId": s.scenario.get("bundleId"),
                  "data": [{"subscriptionGroupIdentifier": g, "lastTransactions": items} for g, items in groups.items()]}
        if env == "Production":
            answer["appAppleId"] = s.scenario.get("appAppleId")
        return 200, answer

    def notification_history(self, env, query, body):
        s = self.store
        filters_query = self.filters_of(query, {"paginationToken"})
        if not isinstance(body, dict):
            raise ApiError(400, 4000000)
        start, end = body.get("startDate"), body.get("endDate")
        if not isinstance(start, int):
            raise ApiError(400, 4000015)
        if not isinstance(end, int):
            raise ApiError(400, 4000016)
        if start >= end:
            raise ApiError(400, 4000013)
        kind, subtype, tid = body.get("notificationType"), body.get("notificationSubtype"), body.get("transactionId")
        if kind is not None and kind not in NOTIFICATION_TYPES:
            raise ApiError(400, 4000018)
        if kind is not None and tid is not None:
            raise ApiError(400, 4000019)
        if tid is not None:
            require_transaction_id(tid)
        items = []
        for n in s.envs[env]["notifications"]:
            date = n.get("signedDate", 0)
            if not (start <= date < end):
                continue
            if kind is not None and n.get("notificationType") != kind:
                continue
            if subtype is not None and n.get("subtype") != subtype:
                continue
            if tid is not None:
                found = s.find_transaction(env, n.get("transactionId"))
                ids = {n.get("transactionId")} | ({found[1].get("originalTransactionId")} if found else set())
                if tid not in ids:
                    continue
            attempts = n.get("sendAttempts", [])
            if body.get("onlyFailures") and all(a.get("sendAttemptResult") == "SUCCESS" for a in attempts):
                continue
            items.append(n)
        items.sort(key=lambda n: n.get("signedDate", 0))
        filters = {"body": {k: body[k] for k in sorted(body)}, "query": filters_query}
        offset = read_token(query["paginationToken"][0], filters, 4000014) if query.get("paginationToken") else 0
        chunk, more = page(items, offset, s.page_size)
        answer = {"hasMore": more, "notificationHistory": [
            {"signedPayload": s.signed_notification(env, n), "sendAttempts": n.get("sendAttempts", [])}
            for n in chunk]}
        if more:
            answer["paginationToken"] = make_token(offset + len(chunk), filters)
        return 200, answer

    def extend(self, env, original_id, body):
        s = self.store
        if not original_id.isdigit():
            raise ApiError(400, 4000008)
        if not isinstance(body, dict):
            raise ApiError(400, 4000000)
        days, reason, request_id = body.get("extendByDays"), body.get("extendReasonCode"), body.get("requestIdentifier")
        if not isinstance(days, int) or not 1 <= days <= 90:
            raise ApiError(400, 4000009)
        if reason not in (0, 1, 2, 3):
            raise ApiError(400, 4000010)
        if not isinstance(request_id, str) or not request_id or len(request_id) > 128:
            raise ApiError(400, 4000011)
        latest = None
        for customer in s.envs[env]["customers"]:
            for t in customer.get("transactions", []):
                if t.get("originalTransactionId", t.get("transactionId")) == original_id and t.get("type") == "Auto-Renewable Subscription":
                    if latest is None or t.get("purchaseDate", 0) > latest.get("purchaseDate", 0):
                        latest = t
        if latest is None:
            raise ApiError(404, 4040005)
        latest["expiresDate"] = latest.get("expiresDate", now_ms()) + days * 86_400_000
        return 200, {"originalTransactionId": original_id, "webOrderLineItemId": latest.get("webOrderLineItemId", "1"),
                     "success": True, "effectiveDate": latest["expiresDate"]}

    def mass_extend(self, env, body):
        s = self.store
        if not isinstance(body, dict):
            raise ApiError(400, 4000000)
        days, reason, request_id = body.get("extendByDays"), body.get("extendReasonCode"), body.get("requestIdentifier")
        if not isinstance(days, int) or not 1 <= days <= 90:
            raise ApiError(400, 4000009)
        if reason not in (0, 1, 2, 3):
            raise ApiError(400, 4000010)
        try:
            uuid.UUID(str(request_id))
        except ValueError:
            raise ApiError(400, 4000011)
        product = body.get("productId")
        if not isinstance(product, str) or not product:
            raise ApiError(400, 4000023)
        codes = body.get("storefrontCountryCodes")
        if codes is not None:
            if not isinstance(codes, list) or not codes:
                raise ApiError(400, 4000027)
            if any(not isinstance(c, str) or len(c) != 3 or not c.isalpha() for c in codes):
                raise ApiError(400, 4000028)
        count = sum(1 for c in s.envs[env]["customers"] for t in c.get("transactions", []) if t.get("productId") == product)
        s.mass[(env, product, request_id)] = {"requestIdentifier": request_id, "complete": True, "completeDate": now_ms(),
                                             "succeededCount": count, "failedCount": 0}
        return 200, {"requestIdentifier": request_id}

    def consumption(self, env, transaction_id, body):
        s = self.store
        require_transaction_id(transaction_id)
        if not isinstance(body, dict):
            raise ApiError(400, 4000000)
        if not isinstance(body.get("customerConsented"), bool) or not body["customerConsented"]:
            raise ApiError(400, 4000035)
        if body.get("deliveryStatus") not in DELIVERY_STATUSES:
            raise ApiError(400, 4000036)
        if not isinstance(body.get("sampleContentProvided"), bool):
            raise ApiError(400, 4000041)
        unknown = set(body) - {"customerConsented", "deliveryStatus", "sampleContentProvided", "consumptionPercentage",
                               "refundPreference"}
        if unknown:
            raise ApiError(400, 4000000)
        percentage = body.get("consumptionPercentage")
        if "consumptionPercentage" in body and (isinstance(percentage, bool) or not isinstance(percentage, int)
                                                or not 0 <= percentage <= 100000):
            raise ApiError(400, 4000000)
        if body.get("refundPreference") is not None and body["refundPreference"] not in REFUND_PREFERENCES:
            raise ApiError(400, 4000000)
        found = s.find_transaction(env, transaction_id)
        if found is None:
            raise ApiError(404, 4040010)
        _, transaction = found
        # Apple's documented refusals (ConsumptionPercentageAutoRenewableSubscriptionError,
        # UndeliveredConsumptionPercentageNonZeroError, GRANT_PRORATED without a consumption above
        # 0); their numbers are in none of Apple's libraries, so the fake answers 4000000.
        auto_renewable = transaction.get("type") == "Auto-Renewable Subscription"
        if auto_renewable and "consumptionPercentage" in body:
            raise ApiError(400, 4000000)
        if body["deliveryStatus"] != "DELIVERED" and percentage not in (None, 0):
            raise ApiError(400, 4000000)
        if body.get("refundPreference") == "GRANT_PRORATED" and not auto_renewable and not percentage:
            raise ApiError(400, 4000000)
        return 202, None

    def set_app_account_token(self, env, original_id, body):
        s = self.store
        if not original_id.isdigit():
            raise ApiError(400, 4000008)
        token = body.get("appAccountToken") if isinstance(body, dict) else None
        try:
            uuid.UUID(str(token))
        except ValueError:
            raise ApiError(400, 4000183)
        found = s.find_transaction(env, original_id)
        if found is None:
            raise ApiError(404, 4040005)
        if found[1].get("originalTransactionId", original_id) != original_id:
            raise ApiError(400, 4000187)
        for t in found[0].get("transactions", []):
            if t.get("originalTransactionId", t.get("transactionId")) == original_id:
                t["appAccountToken"] = token
        return 200, None

    def app_transaction(self, env, transaction_id):
        s = self.store
        require_transaction_id(transaction_id)
        customer = s.find_customer(env, transaction_id)
        if customer is None:
            raise ApiError(404, 4040010)
        app = customer.get("appTransaction")
        if app is None:
            raise ApiError(404, 4040019)
        payload = {"receiptType": env, "bundleId": s.scenario.get("bundleId"), "applicationVersion": "1",
                   "originalApplicationVersion": "1", "receiptCreationDate": now_ms(), "signedDate": now_ms(),
                   "originalPlatform": "iOS"}
        if env == "Production":
            payload["appAppleId"] = s.scenario.get("appAppleId")
        payload.update(app)
        return 200, {"signedAppTransactionInfo": s.signer.sign(payload)}


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def watch_parent(parent):
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenario", required=True)
    parser.add_argument("--api-key-public", required=True)
    parser.add_argument("--pki", required=True)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    with open(args.scenario) as f:
        scenario = json.load(f)
    with open(args.api_key_public, "rb") as f:
        api_key = serialization.load_pem_public_key(f.read())
    Handler.store = Store(scenario, Signer(args.pki), api_key)
    server = Server(("127.0.0.1", args.port), Handler)
    threading.Thread(target=watch_parent, args=(os.getppid(),), daemon=True).start()
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
