#!/usr/bin/env python3
"""A backend that receives Storekeeper's webhooks, on loopback, and checks every delivery
with the `standardwebhooks` package (PyPI): an implementation nobody here wrote.

    webhook_receiver.py --port-file FILE --log FILE --control FILE --secret PATH=whsec_... [...]

Serves POST on 127.0.0.1 and a free port, which it writes to FILE once listening. Each path is
an endpoint with the secret given for it (`--secret /a=whsec_...`; only the secret a path
knows verifies). For each request it:

- verifies webhook-id, webhook-timestamp and webhook-signature with standardwebhooks'
  `Webhook(secret).verify`, against the clock the control file's "now" names (epoch seconds:
  the function's pinned STOREKEEPER_NOW), or the real clock without one; a request that does
  not verify is answered 401;
- answers as the control file says for the path: {"paths": {"/a": {"attempts": ["500",
  "hang", "200"], "otherwise": "200", "hangSeconds": 3, "ids": ["evt-1"]}}}: the n-th request
  carrying the same webhook-id gets attempts[n-1] ("hang" waits hangSeconds, then answers 200
  too late), later ones `otherwise` (default "200"); with "ids", the script is only theirs;
- appends one JSON line to --log: path, id, timestamp, verified, the answer, and the body's
  sequence, type, customerId and customer.version (or the chat text).

The control file is read again on every request, so a test changes behaviour by rewriting it
(atomically). It exits when its parent does.
"""

import argparse
import datetime
import http.server
import json
import os
import sys
import threading
import time

import standardwebhooks
from standardwebhooks import webhooks as webhooks_module


class PinnedClock(datetime.datetime):
    """datetime whose now() is the control file's time: the library checks the timestamp
    against it, so a function run under STOREKEEPER_NOW still verifies (or fails when off)."""

    pinned = None

    @classmethod
    def now(cls, tz=None):
        if cls.pinned is None:
            return datetime.datetime.now(tz)
        return datetime.datetime.fromtimestamp(cls.pinned, tz or datetime.timezone.utc)


webhooks_module.datetime = PinnedClock

LOCK = threading.Lock()
ATTEMPTS = {}


def read_control(path):
    try:
        with open(path) as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return {}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes: without this, Nagle and the client's delayed
    # ACK hold each answer back 40 ms.
    disable_nagle_algorithm = True

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        control = read_control(self.server.control)
        with LOCK:
            PinnedClock.pinned = control.get("now")
            verified, detail = self.verify(body)
        event_id = self.headers.get("webhook-id") or ""
        behaviour = control.get("paths", {}).get(self.path, {})
        with LOCK:
            count = ATTEMPTS.get((self.path, event_id), 0) + 1
            ATTEMPTS[(self.path, event_id)] = count
        attempts = behaviour.get("attempts", [])
        if "ids" in behaviour and event_id not in behaviour["ids"]:
            attempts = []
        answer = attempts[count - 1] if count <= len(attempts) else behaviour.get("otherwise", "200")
        if not verified:
            answer = "401"
        self.record(event_id, verified, detail, answer, body, count)
        if answer == "hang":
            time.sleep(float(behaviour.get("hangSeconds", 3)))
            answer = "200"
        self.answer(int(answer))

    def verify(self, body):
        secret = self.server.secrets.get(self.path)
        if secret is None:
            return False, "no secret for this path"
        headers = {name.lower(): value for name, value in self.headers.items()}
        try:
            standardwebhooks.Webhook(secret).verify(body.decode("utf-8"), headers)
            return True, ""
        except Exception as error:  # the library's own refusal, whatever its class
            return False, "%s: %s" % (type(error).__name__, error)

    def record(self, event_id, verified, detail, answer, body, attempt):
        entry = {"path": self.path, "id": event_id, "timestamp": self.headers.get("webhook-timestamp"),
                 "verified": verified, "detail": detail, "answer": answer, "attempt": attempt,
                 "contentType": self.headers.get("Content-Type"),
                 "signatures": len((self.headers.get("webhook-signature") or "").split())}
        try:
            event = json.loads(body)
            for key in ("sequence", "type", "customerId", "text"):
                if key in event:
                    entry[key] = event[key]
            if isinstance(event.get("customer"), dict):
                entry["version"] = event["customer"].get("version")
        except ValueError:
            entry["body"] = "not JSON"
        line = json.dumps(entry) + "\n"
        with LOCK:
            with open(self.server.log, "a") as handle:
                handle.write(line)
                handle.flush()

    def answer(self, status):
        payload = b"{}"
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        except OSError:
            pass  # the client gave up (its timeout): nothing to answer


def watch_parent():
    parent = os.getppid()
    while True:
        if os.getppid() != parent:
            os._exit(0)
        time.sleep(0.5)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--control", required=True)
    parser.add_argument("--secret", action="append", default=[])
    args = parser.parse_args()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.log = args.log
    server.control = args.control
    server.secrets = dict(item.split("=", 1) for item in args.secret)
    threading.Thread(target=watch_parent, daemon=True).start()
    temporary = args.port_file + ".tmp"
    with open(temporary, "w") as handle:
        handle.write(str(server.server_address[1]))
    os.rename(temporary, args.port_file)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
