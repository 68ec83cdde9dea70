import Foundation
import StorekeeperCore
import Testing
import TestSupport

/// app-store-api's Retention Messaging operations against the fake App Store, which checks
/// method, path, token, content type and body as Apple does: the realtime endpoint's whole
/// setup (images, messages, default message, sandbox URL, performance test, production URL).
@Suite struct RetentionMessagingAPITests {
    static let imageId = "5b7c2a10-3d4e-4f50-8a6b-7c8d9e0f1a2b"
    static let messageId = "0a6f3d52-7c1e-4b8a-9e2d-000000000001"
    /// The smallest PNG: signature, IHDR of a 1×1 image, IDAT, IEND.
    static let png = Data(base64Encoded:
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!

    private func call(_ request: [String: Any], _ fake: FakeAppStore) throws -> (json: [String: Any], exitCode: Int32, stderr: String) {
        try AppStoreAPIFunctionTests.run("app-store-api", request, AppStoreAPIFunctionTests.environment(fake))
    }

    @Test func theWholeSetupOfARealtimeEndpointGoesThroughTheFake() throws {
        let fake = try FakeAppStore.start()
        defer { fake.stop() }
        let upload = try call(["operation": "uploadImage", "environment": "Sandbox", "imageIdentifier": Self.imageId.uppercased(),
                               "query": ["imageSize": "FULL_SIZE"], "image": Self.png.base64EncodedString()], fake)
        #expect(upload.exitCode == 0, "\(upload.json) \(upload.stderr)")
        let sent = try #require(try fake.requests().last)
        #expect(sent["method"] as? String == "PUT")
        #expect(sent["path"] as? String == "/inApps/v1/messaging/image/\(Self.imageId)", "lowercase, as Apple takes it")
        #expect(sent["contentType"] as? String == "image/png")
        #expect(sent["bodyBytes"] as? Int == Self.png.count)
        #expect(sent["environment"] as? String == "Sandbox" && sent["auth"] as? String == "ok")

        let message = try call(["operation": "uploadMessage", "environment": "Sandbox", "messageIdentifier": Self.messageId, "body": [
            "header": "Stay a little longer", "body": "Half price for your next three months.",
            "image": ["imageIdentifier": Self.imageId, "altText": "A calendar"], "headerPosition": "ABOVE_BODY",
        ]], fake)
        #expect(message.exitCode == 0, "\(message.json) \(message.stderr)")
        let messageSent = try #require(try fake.requests().last)
        #expect(messageSent["contentType"] as? String == "application/json")
        #expect((messageSent["body"] as? [String: Any])?["header"] as? String == "Stay a little longer")

        let list = try call(["operation": "getMessageList", "environment": "Sandbox"], fake)
        let items = try #require((list.json["response"] as? [String: Any])?["messageIdentifiers"] as? [[String: Any]])
        #expect(items.first?["messageIdentifier"] as? String == Self.messageId)
        #expect(items.first?["messageState"] as? String == "APPROVED")
        let images = try call(["operation": "getImageList", "environment": "Sandbox"], fake)
        #expect(((images.json["response"] as? [String: Any])?["imageIdentifiers"] as? [[String: Any]])?.first?["imageSize"] as? String == "FULL_SIZE")

        let configured = try call(["operation": "configureDefaultMessage", "environment": "Sandbox", "productId": "com.example.pro.yearly",
                                   "locale": "en-US", "body": ["messageIdentifier": Self.messageId.uppercased()]], fake)
        #expect(configured.exitCode == 0, "\(configured.json)")
        #expect(try fake.requests().last?["path"] as? String == "/inApps/v1/messaging/default/com.example.pro.yearly/en-US")
        let read = try call(["operation": "getDefaultMessage", "environment": "Sandbox", "productId": "com.example.pro.yearly",
                             "locale": "en-US"], fake)
        #expect((read.json["response"] as? [String: Any])?["messageIdentifier"] as? String == Self.messageId)

        // Production needs a passing sandbox performance test first.
        let tooEarly = try call(["operation": "configureRealtimeURL", "body": ["realtimeURL": "https://example.com/appstore/retention"]], fake)
        #expect(tooEarly.exitCode == 65)
        #expect((tooEarly.json["error"] as? [String: Any])?["code"] as? String == "ForbiddenNoPassingTestError")
        let sandboxURL = try call(["operation": "configureRealtimeURL", "environment": "Sandbox",
                                   "body": ["realtimeURL": "https://example.com/appstore/retention"]], fake)
        #expect(sandboxURL.exitCode == 0)
        let test = try call(["operation": "initiatePerformanceTest", "environment": "Sandbox",
                             "body": ["originalTransactionId": "2000000777"]], fake)
        let requestId = try #require((test.json["response"] as? [String: Any])?["requestId"] as? String, "\(test.json)")
        let result = try call(["operation": "getPerformanceTestResults", "environment": "Sandbox", "requestId": requestId], fake)
        #expect((result.json["response"] as? [String: Any])?["result"] as? String == "PASS")
        let production = try call(["operation": "configureRealtimeURL", "body": ["realtimeURL": "https://example.com/appstore/retention"]], fake)
        #expect(production.exitCode == 0, "\(production.json)")
        let url = try call(["operation": "getRealtimeURL"], fake)
        #expect((url.json["response"] as? [String: Any])?["realtimeURL"] as? String == "https://example.com/appstore/retention")

        #expect(try call(["operation": "deleteImage", "environment": "Sandbox", "imageIdentifier": Self.imageId], fake).exitCode == 65,
                "an image a message uses stays (ImageInUseError)")
        #expect(try call(["operation": "deleteMessage", "environment": "Sandbox", "messageIdentifier": Self.messageId], fake).exitCode == 0)
        #expect(try call(["operation": "deleteImage", "environment": "Sandbox", "imageIdentifier": Self.imageId], fake).exitCode == 0)
        #expect(try fake.requests().last?["method"] as? String == "DELETE")
        #expect(try call(["operation": "deleteRealtimeURL"], fake).exitCode == 0)
        let gone = try call(["operation": "getRealtimeURL"], fake)
        #expect((gone.json["error"] as? [String: Any])?["code"] as? String == "RealtimeUrlNotFoundError")
        #expect(gone.exitCode == 65)
    }

    @Test func badInputIsRefusedBeforeAppleIsAsked() throws {
        let fake = try FakeAppStore.start()
        defer { fake.stop() }
        let refusals: [[String: Any]] = [
            ["operation": "uploadImage", "imageIdentifier": Self.imageId, "image": Data("GIF89a....".utf8).base64EncodedString()],
            ["operation": "uploadImage", "imageIdentifier": Self.imageId],
            ["operation": "uploadImage", "imageIdentifier": "not-a-uuid", "image": Self.png.base64EncodedString()],
            ["operation": "uploadImage", "imageIdentifier": Self.imageId, "image": Self.png.base64EncodedString(), "query": ["imageSize": "HUGE"]],
            ["operation": "uploadMessage", "messageIdentifier": Self.messageId, "body": ["header": "no body"]],
            ["operation": "getMessageList", "image": Self.png.base64EncodedString()],
            ["operation": "configureRealtimeURL", "body": ["realtimeURL": "http://example.com/plain"]],
            ["operation": "configureDefaultMessage", "productId": "p", "locale": "en-US", "body": ["messageIdentifier": "x"]],
        ]
        for request in refusals {
            let answer = try call(request, fake)
            #expect(answer.exitCode == 65, "\(request): \(answer.json)")
        }
        #expect(try fake.requests().isEmpty, "nothing reached Apple")
    }

    @Test func theClientRetriesARetentionCallLikeAnyOther() throws {
        let fake = try FakeAppStore.start()
        defer { fake.stop() }
        try fake.queueFaults([["kind": "status", "status": 503], ["kind": "status", "status": 429, "retryAfter": 1]])
        let timing = RecordedWaits()
        let client = try FakeAppStoreClient.make(fake, timing: timing)
        let answer = try client.uploadImage(imageIdentifier: Self.imageId, image: Array(Self.png), imageSize: "BULLET_POINT")
        #expect(answer.attempts == 3)
        #expect(timing.waits.last == .seconds(1), "the 429's Retry-After")
        let list = try client.getImageList()
        #expect(list.value.imageIdentifiers?.first?.imageSize == "BULLET_POINT")
        #expect(try fake.requests().filter { $0["path"] as? String == "/inApps/v1/messaging/image/\(Self.imageId)" }.count == 3)
        do {
            _ = try client.getDefaultMessage(productId: "com.example.pro.yearly", locale: "en-US")
            Issue.record("a missing default message answered")
        } catch {
            #expect(error.code == "DefaultMessageNotFoundError")
            #expect(error.attempts == 1, "a refusal is never retried")
        }
    }
}
