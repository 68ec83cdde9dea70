#!/usr/bin/env python3
"""A fake of Apple's legacy verifyReceipt endpoint, on loopback. Standard library and the
openssl CLI only.

    fake_verify_receipt.py --secret SECRET --roots PEM --port-file FILE [--renewals JSON]
                           [--log FILE]

Serves POST /buy/verifyReceipt (production) and POST /sandbox/verifyReceipt (sandbox) on
127.0.0.1 and a free port, which it writes to FILE once listening. Like Apple, it CHECKS what
it receives and answers with a `status`:

- a body that is not a JSON object with "receipt-data" (a string) -> 21000; a field other
  than receipt-data, password, exclude-old-transactions -> 21000;
- receipt-data that is not base64, or not a PKCS#7 receipt whose signature and chain verify
  against --roots at the receipt's creation date (openssl smime -verify -attime) -> 21002 or
  21003;
- a password other than SECRET -> 21004;
- a ProductionSandbox receipt sent to production -> 21007; a Production receipt sent to the
  sandbox -> 21008;
- otherwise 0 with the receipt decoded from its real ASN.1 payload: `receipt.in_app`,
  `latest_receipt_info` (only each subscription's latest transaction when
  exclude-old-transactions is true) and `pending_renewal_info` per original transaction id,
  whose fields can be set per id by the --renewals JSON file
  ({"<original_transaction_id>": {"expiration_intent": "2", ...}}).

Every request is appended to --log as one JSON line (path, status, exclude-old-transactions;
never the password), so a test can check what was asked. It exits when its parent does.
"""

import argparse
import base64
import binascii
import datetime
import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

ALLOWED_FIELDS = {"receipt-data", "password", "exclude-old-transactions"}


def der_elements(data):
    """The (tag, value) elements that make up `data` (DER, definite lengths)."""
    index = 0
    while index < len(data):
        tag = data[index]
        length = data[index + 1]
        index += 2
        if length & 0x80:
            count = length & 0x7F
            length = int.from_bytes(data[index:index + count], "big")
            index += count
        if index + length > len(data):
            raise ValueError("truncated DER")
        yield tag, data[index:index + length]
        index += length


def attributes(data):
    """A receipt SET OF SEQUENCE {type, version, value} as (type, inner DER value) pairs."""
    ((tag, body),) = list(der_elements(data))
    if tag != 0x31:
        raise ValueError("not a SET")
    for tag, sequence in der_elements(body):
        (_, type_), (_, _version), (_, value) = list(der_elements(sequence))
        yield int.from_bytes(type_, "big", signed=True), value


def inner(value):
    """The string or integer inside an attribute's OCTET STRING."""
    ((tag, body),) = list(der_elements(value))
    if tag == 0x02:
        return int.from_bytes(body, "big", signed=True)
    return body.decode("utf-8")


def milliseconds(text):
    if not text:
        return None
    moment = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
    return int(moment.timestamp() * 1000)


def read_receipt(payload):
    receipt = {"in_app": []}
    for type_, value in attributes(payload):
        if type_ == 0:
            receipt["receipt_type"] = inner(value)
        elif type_ == 2:
            receipt["bundle_id"] = inner(value)
        elif type_ == 3:
            receipt["application_version"] = inner(value)
        elif type_ == 12:
            receipt["receipt_creation_date_ms"] = str(milliseconds(inner(value)))
        elif type_ == 19:
            receipt["original_application_version"] = inner(value)
        elif type_ == 17:
            record = {}
            for field, item in attributes(value):
                names = {1701: "quantity", 1702: "product_id", 1703: "transaction_id",
                         1705: "original_transaction_id", 1704: "purchase_date_ms",
                         1706: "original_purchase_date_ms", 1708: "expires_date_ms",
                         1712: "cancellation_date_ms", 1711: "web_order_line_item_id",
                         1719: "is_in_intro_offer_period", 1713: "is_trial_period"}
                if field not in names:
                    continue
                name, decoded = names[field], inner(item)
                if name.endswith("_ms"):
                    decoded = milliseconds(decoded)
                    if decoded is None:
                        continue
                if name in ("is_in_intro_offer_period", "is_trial_period"):
                    decoded = "true" if decoded else "false"
                record[name] = str(decoded)
            receipt["in_app"].append(record)
    return receipt


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, body, http_status=200):
        data = json.dumps(body).encode()
        self.send_response(http_status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def record(self, entry):
        if self.server.log_path:
            with self.server.lock, open(self.server.log_path, "a") as log:
                log.write(json.dumps(entry) + "\n")

    def do_GET(self):
        self.answer({"error": "verifyReceipt takes POST"}, 405)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if self.path == "/buy/verifyReceipt":
            environment = "Production"
        elif self.path == "/sandbox/verifyReceipt":
            environment = "Sandbox"
        else:
            self.answer({"error": "not found"}, 404)
            return
        status, body = self.verify(raw, environment)
        body = dict(body, status=status)
        if status != 21000:
            body.setdefault("environment", environment)
        self.record({"path": self.path, "status": status,
                     "excludeOldTransactions": self.request_json.get("exclude-old-transactions")
                     if isinstance(self.request_json, dict) else None})
        self.answer(body)

    def verify(self, raw, environment):
        self.request_json = None
        try:
            request = json.loads(raw)
        except ValueError:
            return 21000, {}
        self.request_json = request
        if not isinstance(request, dict) or not isinstance(request.get("receipt-data"), str) \
                or set(request) - ALLOWED_FIELDS \
                or not isinstance(request.get("exclude-old-transactions", False), bool):
            return 21000, {}
        try:
            der = base64.b64decode(request["receipt-data"], validate=True)
        except (binascii.Error, ValueError):
            return 21002, {}
        if request.get("password") != self.server.secret:
            return 21004, {}
        payload = self.verified_payload(der)
        if payload is None:
            return 21003, {}
        try:
            receipt = read_receipt(payload)
        except (ValueError, UnicodeDecodeError):
            return 21002, {}
        sandbox_receipt = receipt.get("receipt_type", "").endswith("Sandbox")
        if environment == "Production" and sandbox_receipt:
            return 21007, {}
        if environment == "Sandbox" and not sandbox_receipt:
            return 21008, {}
        return 0, self.decoded(receipt, request, environment)

    def verified_payload(self, der):
        """The payload, if the container verifies against the roots at its creation date."""
        with tempfile.TemporaryDirectory() as work:
            container = os.path.join(work, "receipt.p7")
            content = os.path.join(work, "content.der")
            with open(container, "wb") as handle:
                handle.write(der)
            # First without trust, to read the creation date; then for real at that date.
            unverified = subprocess.run(
                ["openssl", "smime", "-verify", "-noverify", "-inform", "DER", "-binary",
                 "-in", container, "-out", content], capture_output=True)
            if unverified.returncode != 0:
                return None
            with open(content, "rb") as handle:
                payload = handle.read()
            try:
                created = next(milliseconds(inner(value)) for type_, value in attributes(payload) if type_ == 12)
            except (StopIteration, ValueError, UnicodeDecodeError):
                return None
            checked = subprocess.run(
                ["openssl", "smime", "-verify", "-inform", "DER", "-binary", "-in", container,
                 "-CAfile", self.server.roots, "-attime", str(created // 1000), "-out", os.devnull],
                capture_output=True)
            return payload if checked.returncode == 0 else None

    def decoded(self, receipt, request, environment):
        subscriptions = [item for item in receipt["in_app"] if "expires_date_ms" in item]
        latest = subscriptions
        if request.get("exclude-old-transactions"):
            newest = {}
            for item in subscriptions:
                key = item["original_transaction_id"]
                if key not in newest or int(item["expires_date_ms"]) > int(newest[key]["expires_date_ms"]):
                    newest[key] = item
            latest = list(newest.values())
        renewals = []
        for original in sorted({item["original_transaction_id"] for item in subscriptions}):
            product = max((item for item in subscriptions if item["original_transaction_id"] == original),
                          key=lambda item: int(item["expires_date_ms"]))["product_id"]
            renewal = {"original_transaction_id": original, "product_id": product,
                       "auto_renew_product_id": product, "auto_renew_status": "1"}
            renewal.update(self.server.renewals.get(original, {}))
            renewals.append(renewal)
        return {
            "environment": environment,
            "receipt": receipt,
            "latest_receipt_info": sorted(latest, key=lambda item: -int(item["purchase_date_ms"])),
            "latest_receipt": request["receipt-data"],
            "pending_renewal_info": renewals,
        }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--secret", required=True)
    parser.add_argument("--roots", required=True)
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--renewals")
    parser.add_argument("--log")
    options = parser.parse_args()

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.secret = options.secret
    server.roots = options.roots
    server.log_path = options.log
    server.lock = threading.Lock()
    server.renewals = {}
    if options.renewals:
        with open(options.renewals) as handle:
            server.renewals = json.load(handle)
    # Written whole, then renamed: a reader never sees half a port number.
    with open(options.port_file + ".tmp", "w") as handle:
        handle.write(str(server.server_address[1]))
    os.replace(options.port_file + ".tmp", options.port_file)

    # Tests stop it with SIGKILL; should the test process die first, it goes too.
    parent = os.getppid()

    def stop_with_parent():
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)
    threading.Thread(target=stop_with_parent, daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
