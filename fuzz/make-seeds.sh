#!/usr/bin/env bash
# Writes the fuzz seed corpus, fuzz/corpus/<target>/, from the committed test PKI
# (Tests/Fixtures/pki). Seeds are real: ES256 JWS signed by the test leaf with the x5c chain
# leaf → intermediate → root, so mutations start from input that reaches the chain and
# signature checks, plus requests in every front door's shape. Files named valid-* must be
# accepted (`swift test` checks that, in FuzzRegressionTests), the rest are rejected somewhere.
#
# Needs bash, openssl, jq and coreutils (basenc). ECDSA signatures are randomized, so a rerun
# rewrites every signed seed; rerun it after regenerating the PKI (make pki), and commit.
#
#     fuzz/make-seeds.sh
set -euo pipefail
cd "$(dirname "$0")/.."

PKI=Tests/Fixtures/pki
CORPUS=fuzz/corpus
T=1780272000000            # 2026-06-01T00:00:00Z in ms: the test PKI's validation time
BUNDLE=com.example.storekeeper
APP_APPLE_ID=1234567890
TOKEN=fuzz-admin-token     # FuzzFixtures.adminToken

for tool in openssl jq basenc; do
    command -v "$tool" >/dev/null || { echo "make-seeds.sh: $tool is missing" >&2; exit 1; }
done

b64url() { basenc --base64url -w0 | tr -d '='; }

# The 32-byte big-endian form of an INTEGER that openssl asn1parse printed in hex.
pad32() { local hex=$1; printf '%64s' "$hex" | tr ' ' '0'; }

# x5c_header ALG STEM... → a compact JOSE header whose x5c holds the stems' DER, in order.
x5c_header() {
    local alg=$1; shift
    local certs=()
    for stem in "$@"; do certs+=("$(base64 -w0 "$PKI/$stem.cer")"); done
    jq -cn --arg alg "$alg" '{alg: $alg, x5c: $ARGS.positional}' --args "${certs[@]}"
}

# sign HEADER PAYLOAD KEY_STEM → compact JWS; the DER ECDSA signature becomes JOSE's r||s.
sign() {
    local header=$1 payload=$2 key=$3
    local input r s
    input="$(printf '%s' "$header" | b64url).$(printf '%s' "$payload" | b64url)"
    { read -r r; read -r s; } < <(printf '%s' "$input" \
        | openssl dgst -sha256 -sign "$PKI/$key.key" \
        | openssl asn1parse -inform DER | sed -n 's/.*INTEGER *://p')
    printf '%s.%s' "$input" "$(printf '%s%s' "$(pad32 "$r")" "$(pad32 "$s")" | basenc --base16 -d | b64url)"
}

# sign_chain PAYLOAD [LEAF INTERMEDIATE ROOT] → JWS signed by LEAF's key with that x5c.
sign_chain() {
    local payload=$1 leaf=${2:-leaf} intermediate=${3:-intermediate} root=${4:-root}
    sign "$(x5c_header ES256 "$leaf" "$intermediate" "$root")" "$payload" "$leaf"
}

transaction() {
    jq -cn --arg env "$1" --arg bundle "${2:-$BUNDLE}" --argjson t "$T" '{
        transactionId: "2000000001", originalTransactionId: "2000000001", bundleId: $bundle,
        productId: "com.example.pro.monthly", type: "Auto-Renewable Subscription",
        purchaseDate: ($t - 1000), expiresDate: ($t + 2592000000), environment: $env,
        inAppOwnershipType: "PURCHASED", signedDate: $t}'
}

renewal_info() {
    jq -cn --arg env "$1" --argjson t "$T" '{
        originalTransactionId: "2000000001", autoRenewProductId: "com.example.pro.monthly",
        productId: "com.example.pro.monthly", autoRenewStatus: 1, environment: $env, signedDate: $t}'
}

app_transaction() {
    jq -cn --arg env "$1" --arg bundle "$BUNDLE" --argjson id "$APP_APPLE_ID" --argjson t "$T" '{
        receiptType: $env, bundleId: $bundle, appAppleId: $id, applicationVersion: "1",
        receiptCreationDate: $t, originalPurchaseDate: $t, signedDate: $t}'
}

# notification ENV → a SUBSCRIBED notification whose data carries a signed transaction and renewal info.
notification() {
    local env=$1
    jq -cn --arg env "$env" --arg bundle "$BUNDLE" --argjson id "$APP_APPLE_ID" --argjson t "$T" \
        --arg tx "$(sign_chain "$(transaction "$env")")" --arg ri "$(sign_chain "$(renewal_info "$env")")" '{
        notificationType: "SUBSCRIBED", subtype: "INITIAL_BUY",
        notificationUUID: "8c9f1d2e-0000-4000-8000-000000000001", version: "2.0", signedDate: $t,
        data: {bundleId: $bundle, appAppleId: $id, environment: $env,
               signedTransactionInfo: $tx, signedRenewalInfo: $ri}}'
}

summary_notification() {
    jq -cn --arg bundle "$BUNDLE" --argjson id "$APP_APPLE_ID" --argjson t "$T" '{
        notificationType: "RENEWAL_EXTENSION", subtype: "SUMMARY",
        notificationUUID: "8c9f1d2e-0000-4000-8000-000000000002", version: "2.0", signedDate: $t,
        summary: {requestIdentifier: "req-1", environment: "Sandbox", appAppleId: $id, bundleId: $bundle,
                  productId: "com.example.pro.monthly", storefrontCountryCodes: ["USA"],
                  succeededCount: 1, failedCount: 0}}'
}

external_purchase_notification() {
    jq -cn --arg bundle "$BUNDLE" --argjson id "$APP_APPLE_ID" --argjson t "$T" '{
        notificationType: "EXTERNAL_PURCHASE_TOKEN", subtype: "UNREPORTED",
        notificationUUID: "8c9f1d2e-0000-4000-8000-000000000003", version: "2.0", signedDate: $t,
        externalPurchaseToken: {externalPurchaseId: "SANDBOX_0001", tokenCreationDate: $t,
                                appAppleId: $id, bundleId: $bundle}}'
}

# event METHOD PATH QUERY BODY [CONTENT_TYPE [AUTHORIZATION [BASE64]]] → one-line HTTP event (format 2.0).
event() {
    local method=$1 path=$2 query=$3 body=$4 type=${5:-application/json} auth=${6:-"Bearer $TOKEN"} base64=${7:-false}
    if [ "$base64" = true ]; then body=$(printf '%s' "$body" | base64 -w0); fi
    jq -cn --arg method "$method" --arg path "$path" --arg query "$query" --arg body "$body" \
        --arg type "$type" --arg auth "$auth" --argjson base64 "$base64" '{
        version: "2.0", routeKey: "$default", rawPath: $path, rawQueryString: $query,
        cookies: ["session=abc"],
        headers: ({"content-type": $type, "x-request-id": "fuzz-1"} + (if $auth == "" then {} else {authorization: $auth} end)),
        requestContext: {http: {method: $method, path: $path, protocol: "HTTP/1.1", sourceIp: "127.0.0.1"}},
        body: $body, isBase64Encoded: $base64}'
}

seed() { # seed TARGET NAME CONTENT
    printf '%s' "$3" > "$CORPUS/$1/$2"
}

for target in jws-verify front-doors cgi verify-signed-data; do
    rm -rf "${CORPUS:?}/$target"
    mkdir -p "$CORPUS/$target"
done

# --- jws-verify: the JWS text itself ------------------------------------------------------
tx_sandbox=$(sign_chain "$(transaction Sandbox)")
tx_production=$(sign_chain "$(transaction Production)")
renewal=$(sign_chain "$(renewal_info Sandbox)")
notif=$(sign_chain "$(notification Sandbox)")
other_root=$(sign_chain "$(transaction Sandbox)" leaf-other-root other-intermediate other-root)

seed jws-verify valid-transaction-sandbox.jws "$tx_sandbox"
seed jws-verify valid-transaction-production.jws "$tx_production"
seed jws-verify valid-renewal-info.jws "$renewal"
seed jws-verify valid-app-transaction.jws "$(sign_chain "$(app_transaction Production)")"
seed jws-verify valid-notification-sandbox.jws "$notif"
seed jws-verify valid-notification-production.jws "$(sign_chain "$(notification Production)")"
seed jws-verify valid-summary-notification.jws "$(sign_chain "$(summary_notification)")"
seed jws-verify valid-external-purchase-notification.jws "$(sign_chain "$(external_purchase_notification)")"
seed jws-verify rejected-wrong-bundle-id.jws "$(sign_chain "$(transaction Sandbox com.example.other)")"
seed jws-verify rejected-xcode-environment.jws "$(sign_chain "$(transaction Xcode)")"
seed jws-verify rejected-expired-leaf.jws "$(sign_chain "$(transaction Sandbox)" leaf-expired)"
seed jws-verify rejected-other-root.jws "$other_root"
seed jws-verify rejected-leaf-without-oid.jws "$(sign_chain "$(transaction Sandbox)" leaf-no-oid)"
seed jws-verify rejected-intermediate-not-ca.jws \
    "$(sign_chain "$(transaction Sandbox)" leaf-under-intermediate-not-ca intermediate-not-ca)"
seed jws-verify rejected-two-certificates.jws \
    "$(sign "$(x5c_header ES256 leaf intermediate)" "$(transaction Sandbox)" leaf)"
seed jws-verify rejected-rs256-header.jws \
    "$(sign "$(x5c_header RS256 leaf intermediate root)" "$(transaction Sandbox)" leaf)"
# A good header and payload under another JWS's signature.
seed jws-verify rejected-bad-signature.jws "${tx_sandbox%.*}.${renewal##*.}"
for vector in Tests/OpenSSLCryptoTests/Vectors/rfc7515-*.json; do
    seed jws-verify "$(basename "$vector" .json).jws" "$(jq -r .jws "$vector")"
done

# --- verify-signed-data: the function's stdin ----------------------------------------------
request() { jq -cn --arg jws "$1" --arg type "${2:-}" '{signedData: $jws} + (if $type == "" then {} else {type: $type} end)'; }
seed verify-signed-data valid-direct-transaction.json "$(request "$tx_sandbox")"
seed verify-signed-data valid-direct-notification-typed.json "$(request "$notif" notification)"
seed verify-signed-data valid-direct-pretty.json "$(request "$renewal" renewalInfo | jq .)"
seed verify-signed-data valid-event-json.json "$(event POST /appstore/verify '' "$(request "$tx_production")")"
seed verify-signed-data valid-event-base64.json \
    "$(event POST /appstore/verify '' "$(request "$renewal" renewalInfo)" application/json "Bearer $TOKEN" true)"
seed verify-signed-data valid-event-form.json \
    "$(event POST /appstore/verify '' "signedData=$tx_sandbox&type=transaction" application/x-www-form-urlencoded)"
seed verify-signed-data batch.ndjson "$(printf '%s\n%s\n%s\n' "$(request "$tx_sandbox")" "$(request "$renewal" renewalInfo)" "$(request "$other_root")")"
seed verify-signed-data mixed-doors.ndjson "$(printf '%s\n%s\n' "$(request "$tx_sandbox")" "$(event POST /appstore/verify '' "$(request "$renewal")")")"
seed verify-signed-data rejected-other-root.json "$(request "$other_root")"
seed verify-signed-data rejected-unknown-type.json "$(request "$tx_sandbox" receipt)"
seed verify-signed-data rejected-unknown-field.json "$(request "$tx_sandbox" | jq -c '. + {extra: 1}')"
seed verify-signed-data rejected-wrong-token.json "$(event POST /appstore/verify '' "$(request "$tx_sandbox")" application/json "Bearer nope")"
seed verify-signed-data rejected-get.json "$(event GET /appstore/verify "signedData=$tx_sandbox" '')"
seed verify-signed-data rejected-not-json.json 'signedData: eyJ'

# --- front-doors: stdin of a small POST handler and a small internal GET handler ----------
post='{"name":"Ada","count":2,"tags":["a","b"],"note":"hi"}'
seed front-doors direct.json "$post"
seed front-doors direct-pretty.json "$(printf '%s' "$post" | jq .)"
seed front-doors batch.ndjson "$(printf '%s\n%s\n%s\n' '{"name":"Ada"}' '{"name":' '{"name":"Grace","count":-1}')"
seed front-doors mixed-doors.ndjson "$(printf '%s\n%s\n' "$post" "$(event GET /lookup 'userId=u1' '')")"
seed front-doors event-post-json.json "$(event POST /fuzz 'a=1' "$post")"
seed front-doors event-post-base64.json "$(event POST /fuzz '' "$post" application/json '' true)"
seed front-doors event-post-form.json \
    "$(event POST /fuzz '' 'name=Ada+Lovelace&note=caf%C3%A9' 'application/x-www-form-urlencoded; charset=utf-8')"
seed front-doors event-get-query.json "$(event GET /lookup 'userId=u%2B1&note=hi+there' '')"
seed front-doors event-get-wrong-token.json "$(event GET /lookup 'userId=u1' '' application/json 'Bearer wrong')"
seed front-doors event-get-bad-escape.json "$(event GET /lookup 'userId=%zz' '')"
seed front-doors event-get-duplicate.json "$(event GET /lookup 'userId=a&userId=b' '')"
seed front-doors event-malformed.json '{"version":"2.0","requestContext":{"http":{"method":"POST"}},"headers":5}'
seed front-doors not-an-object.json '[1,2,3]'
seed front-doors unknown-field.json '{"name":"Ada","nmae":"typo"}'

# --- cgi: REQUEST_METHOD, PATH_INFO, QUERY_STRING, CONTENT_TYPE, HTTP_AUTHORIZATION and
# CONTENT_LENGTH (empty: the body's length), one a line, then the body (FuzzCGIInput) --------
cgi() { # cgi NAME METHOD PATH QUERY CONTENT_TYPE AUTHORIZATION CONTENT_LENGTH BODY
    local name=$1; shift
    printf '%s\n%s\n%s\n%s\n%s\n%s\n%s' "$@" > "$CORPUS/cgi/$name"
}
cgi post-json.cgi POST /fuzz '' application/json '' '' "$post"
cgi post-form.cgi POST /fuzz 'x=1' application/x-www-form-urlencoded '' '' 'name=Ada&note=x%20y'
cgi get-query.cgi GET /lookup 'userId=u1&note=hi+there' '' "Bearer $TOKEN" '' ''
cgi get-no-token.cgi GET /lookup 'userId=u1' '' '' '' ''
cgi short-content-length.cgi POST /fuzz '' application/json '' 5 "$post"
cgi huge-content-length.cgi POST /fuzz '' application/json '' 99999999999 '{}'
cgi bad-content-length.cgi POST /fuzz '' application/json '' 12a '{}'
cgi delete.cgi DELETE /fuzz '' '' '' '' ''

for target in jws-verify front-doors cgi verify-signed-data; do
    echo "$CORPUS/$target: $(find "$CORPUS/$target" -type f | wc -l) seeds"
done

# --- catalog: catalog files (STOREKEEPER_CATALOG) ---------------------------------------------
catalog_seeds() {
    local out=$CORPUS/catalog
    mkdir -p "$out"
    cp infra/catalog/catalog.example.json "$out/valid-example.json"
    printf '%s' '{"apps": [{"bundleId": "com.example.app", "appAppleId": 1234567890, "environments": ["Production", "Sandbox"], "sandboxGrants": true}], "entitlements": {"pro": {"description": "Paid features"}}, "products": {"com.example.pro.monthly": {"entitlements": ["pro"]}, "com.example.pass30": {"type": "NonRenewingSubscription", "durationDays": 30, "entitlements": ["pro"]}, "com.example.coins100": {"type": "Consumable"}}}' > "$out/valid-one-app.json"
    printf '%s' '{"apps": [{"bundleId": "com.a", "environments": ["Sandbox"], "transfer": "move-to-latest"}]}' > "$out/valid-sandbox-only.json"
    printf '%s' '{"apps": [{"bundleId": "com.a", "appAppleId": 1}], "products": {"p": {}, "p": {}}}' > "$out/duplicate-product.json"
    printf '%s' '{"apps": [{"bundleId": "com.a", "appAppleId": 1}, {"bundleId": "com.b", "appAppleId": 2}], "entitlements": {"pro": {}}, "products": {"p": {"entitlements": ["pro"]}}}' > "$out/product-without-app.json"
    printf '%s' '{"apps": [{"bundleId": "com.a", "appAppleId": 1}], "entitlements": {"pro": {}}, "products": {"p": {"type": "Consumable", "durationDays": 3, "entitlements": ["pro", "plus"]}}}' > "$out/several-mistakes.json"
    echo "$out: $(find "$out" -type f | wc -l) seeds"
}
catalog_seeds

# --- receipt-reader: the test receipts (deterministic RSA signatures) ------------------------
fuzz/make-receipt-seeds.sh

# --- identity-token and ocsp-response: tokens signed with the Apple ID test key, OCSP
# responses from the test PKI's responders (python3 + cryptography) ---------------------------
python3 fuzz/make-siwa-ocsp-seeds.py
