"""The Retention Messaging API of the fake App Store (fake_app_store.py): messages and images
with their review state, default messages per product and locale, the realtime URL and the
sandbox performance test, per environment, checked as Apple documents them.

Uploaded messages and images are APPROVED at once (Apple reviews them; a test has no time to
wait), except those whose identifier ends in "0000000000ff", which stay PENDING, and a header
that says "REJECT", which is REJECTED. A performance test is PASS on its first result read.
"""

import re
import uuid

UUID_LOWER = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
PNG = b"\x89PNG\r\n\x1a\n"
IMAGE_SIZES = {"FULL_SIZE", "BULLET_POINT"}
HEADER_POSITIONS = {"ABOVE_BODY", "ABOVE_IMAGE"}
LOCALE = re.compile(r"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$")


class RetentionMessaging:
    def __init__(self, api_error):
        self.error = api_error
        self.envs = {name: {"images": {}, "messages": {}, "defaults": {}, "url": None, "tests": {}, "passed": False}
                     for name in ("Production", "Sandbox")}

    def fail(self, status, code):
        raise self.error(status, code)

    def identifier(self, value, code):
        """Apple's identifiers are UUIDs, lowercase (Node's library says so)."""
        if not UUID_LOWER.match(value):
            self.fail(400, code)
        return value

    def json_body(self, body, content_type):
        if (content_type or "").split(";")[0].strip() != "application/json" or not isinstance(body, dict):
            self.fail(400, 4000000)
        return body

    def route(self, method, rest, query, body, raw_body, content_type, env):
        state = self.envs[env]
        if rest[:1] == ["image"] and rest[1:] == ["list"] and method == "GET":
            return 200, {"imageIdentifiers": [{"imageIdentifier": k, "imageState": v["imageState"], "imageSize": v["imageSize"]}
                                              for k, v in sorted(state["images"].items())]}
        if rest[:1] == ["image"] and len(rest) == 2:
            return self.image(method, self.identifier(rest[1], 4000161), query, raw_body, content_type, state)
        if rest[:1] == ["message"] and rest[1:] == ["list"] and method == "GET":
            return 200, {"messageIdentifiers": [{"messageIdentifier": k, "messageState": v["messageState"]}
                                                for k, v in sorted(state["messages"].items())]}
        if rest[:1] == ["message"] and len(rest) == 2:
            return self.message(method, self.identifier(rest[1], 4000000), body, content_type, state)
        if rest[:1] == ["default"] and len(rest) == 3:
            return self.default(method, rest[1], rest[2], body, content_type, state)
        if rest == ["realtime", "url"]:
            return self.realtime_url(method, body, content_type, env, state)
        if rest == ["performanceTest"] and method == "POST":
            return self.initiate_test(body, content_type, env, state)
        if rest[:2] == ["performanceTest", "result"] and len(rest) == 3 and method == "GET":
            test = state["tests"].get(rest[2])
            if test is None:
                self.fail(404, 4040018)
            test["reads"] += 1
            state["passed"] = True
            return 200, {"config": test["config"], "target": state["url"], "result": "PASS", "successRate": 100,
                         "numPending": 0, "responseTimes": {"average": 40, "p50": 35, "p90": 60, "p95": 70, "p99": 90},
                         "failures": {}}
        self.fail(404, 4000000)

    def image(self, method, image_id, query, raw_body, content_type, state):
        if method == "PUT":
            if (content_type or "") != "image/png" or not raw_body.startswith(PNG):
                self.fail(400, 4000161)
            sizes = query.get("imageSize", ["FULL_SIZE"])
            if len(sizes) != 1 or sizes[0] not in IMAGE_SIZES:
                self.fail(400, 4000216)
            if image_id in state["images"]:
                self.fail(409, 4090000)
            state["images"][image_id] = {"imageState": "PENDING" if image_id.endswith("0000000000ff") else "APPROVED",
                                         "imageSize": sizes[0], "bytes": len(raw_body)}
            return 200, None
        if method == "DELETE":
            if image_id not in state["images"]:
                self.fail(404, 4040014)
            in_use = any(m["body"].get("image", {}).get("imageIdentifier") == image_id for m in state["messages"].values())
            if in_use:
                self.fail(403, 4030019)
            del state["images"][image_id]
            return 200, None
        self.fail(404, 4000000)

    def message(self, method, message_id, body, content_type, state):
        if method == "PUT":
            body = self.json_body(body, content_type)
            header, text = body.get("header"), body.get("body")
            if not isinstance(header, str) or len(header) > 66:
                self.fail(400, 4000162)
            if not isinstance(text, str) or len(text) > 144:
                self.fail(400, 4000163)
            image = body.get("image")
            if image is not None:
                if not isinstance(image, dict) or image.get("imageIdentifier") not in state["images"]:
                    self.fail(404, 4040014)
                if len(image.get("altText") or "") > 150:
                    self.fail(400, 4000175)
            if body.get("headerPosition") not in (None, *HEADER_POSITIONS):
                self.fail(400, 4000000)
            if len(body.get("bulletPoints") or []) > 5:
                self.fail(400, 4000218)
            if message_id in state["messages"]:
                self.fail(409, 4090001)
            pending = message_id.endswith("0000000000ff")
            state["messages"][message_id] = {"messageState": "REJECTED" if "REJECT" in header else
                                             ("PENDING" if pending else "APPROVED"), "body": body}
            return 200, None
        if method == "DELETE":
            if state["messages"].pop(message_id, None) is None:
                self.fail(404, 4040015)
            return 200, None
        self.fail(404, 4000000)

    def default(self, method, product_id, locale, body, content_type, state):
        if not LOCALE.match(locale):
            self.fail(400, 4000164)
        key = product_id + "/" + locale
        if method == "PUT":
            body = self.json_body(body, content_type)
            message_id = body.get("messageIdentifier")
            message = state["messages"].get(message_id)
            if message is None:
                self.fail(404, 4040015)
            if message["messageState"] != "APPROVED":
                self.fail(403, 4030017)
            state["defaults"][key] = message_id
            return 200, None
        if key not in state["defaults"]:
            self.fail(404, 4040020)
        if method == "GET":
            return 200, {"messageIdentifier": state["defaults"][key]}
        if method == "DELETE":
            del state["defaults"][key]
            return 200, None
        self.fail(404, 4000000)

    def realtime_url(self, method, body, content_type, env, state):
        if method == "PUT":
            url = self.json_body(body, content_type).get("realtimeURL")
            if not isinstance(url, str) or not url.startswith("https://") or len(url) > 256:
                self.fail(400, 4000215)
            # Apple requires a passed sandbox performance test before a production URL.
            if env == "Production" and not self.envs["Sandbox"]["passed"]:
                self.fail(403, 4030026)
            state["url"] = url
            return 200, None
        if state["url"] is None:
            self.fail(404, 4040021)
        if method == "GET":
            return 200, {"realtimeURL": state["url"]}
        if method == "DELETE":
            state["url"] = None
            return 200, None
        self.fail(404, 4000000)

    def initiate_test(self, body, content_type, env, state):
        body = self.json_body(body, content_type)
        original = body.get("originalTransactionId")
        if env != "Sandbox" or not isinstance(original, str) or not original.isdigit() or state["url"] is None:
            self.fail(400, 4000211)
        request_id = str(uuid.uuid4())
        config = {"maxConcurrentRequests": 2, "totalRequests": 100, "totalDuration": 60000,
                  "responseTimeThreshold": 700, "successRateThreshold": 90}
        state["tests"][request_id] = {"config": config, "reads": 0, "originalTransactionId": original}
        return 200, {"config": config, "requestId": request_id}
