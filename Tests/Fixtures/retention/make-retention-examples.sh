#!/usr/bin/env bash
# Regenerates retention-message's golden examples (functions/retention-message/examples/): Apple's
# realtime requests signed with the committed test PKI through simulate-store, at the fixed
# signed date of the other examples, answered from Tests/Fixtures/retention/catalog.json.
# usage: BIN=.build/debug Tests/Fixtures/retention/make-retention-examples.sh
set -euo pipefail
cd "$(dirname "$0")/../../.."
: "${BIN:=.build/debug}"
export SIMULATE_PKI_DIR=Tests/Fixtures/pki
signed_ms=1780272000000           # 2026-06-01T00:00:00Z
sign() { # $1 type, $2 payload
  jq -cn --arg t "$1" --argjson p "$2" '{sign: $t, payload: $p}' | "$BIN/simulate-store" 2>/dev/null | jq -r .signedData
}

rm=functions/retention-message/examples
mkdir -p "$rm"
rm_env='{"APPSTORE_ROOT_CERTS": "Tests/Fixtures/pki/root.pem", "STOREKEEPER_CATALOG": "Tests/Fixtures/retention/catalog.json", "APPSTORE_ONLINE_CHECKS": "off", "APPSTORE_OFFER_KEY_ID": "OFFERKEY01", "APPSTORE_OFFER_PRIVATE_KEY": "Tests/Fixtures/pki/subscription-offer-key.p8", "APPSTORE_ISSUER_ID": "57246542-96fe-1a63-e053-0824d011072a"}'
realtime() { # $1 product, $2 locale, $3 app apple id
  jq -cn --arg p "$1" --arg l "$2" --argjson a "$3" --argjson s "$signed_ms" '{
    originalTransactionId: "2000000001", appAppleId: $a, productId: $p, userLocale: $l,
    requestIdentifier: "3f1c2b7a-9d4e-4f60-8a1b-5c6d7e8f9a01", environment: "Sandbox", signedDate: $s}'
}
retention_example() { # $1 file, $2 description, $3 signed payload, $4 response, $5 exit code, [$6 environment]
  jq -n --arg d "$2" --argjson env "${6:-$rm_env}" --arg s "$3" --argjson res "$4" --argjson code "$5" \
    '{description: $d, environment: $env, request: {signedPayload: $s}, response: $res, exitCode: $code}' > "$rm/$1"
}
retention_example monthly-alternate-product.json \
  "A monthly subscriber about to cancel is offered the yearly plan (rule monthly-to-yearly: by product alone, the store is not read)." \
  "$(sign realtimeRequest "$(realtime com.example.pro.monthly en-US 1234567890)")" \
  '{"alternateProduct": {"messageIdentifier": "0a6f3d52-7c1e-4b8a-9e2d-000000000003", "productId": "com.example.pro.yearly"}}' 0
retention_example monthly-french-offer-v1.json \
  "A French-speaking monthly subscriber gets a promotional offer with the original (V1) signature: nonce, timestamp and signature are new each time." \
  "$(sign realtimeRequest "$(realtime com.example.pro.monthly fr-FR 1234567890)")" \
  '{"promotionalOffer": {"messageIdentifier": "0a6f3d52-7c1e-4b8a-9e2d-000000000004", "promotionalOfferSignatureV1": {"encodedSignature": "<<any>>", "productId": "com.example.pro.monthly", "nonce": "<<any>>", "timestamp": "<<any>>", "keyId": "OFFERKEY01", "offerIdentifier": "reste-mensuel"}}}' 0
retention_example yearly-unknown-subscription-default.json \
  "The yearly rules ask the customer's history; Storekeeper holds no record of this subscription, so the default message answers rather than a guess." \
  "$(sign realtimeRequest "$(realtime com.example.pro.yearly en-US 1234567890)")" \
  '{"message": {"messageIdentifier": "0a6f3d52-7c1e-4b8a-9e2d-000000000000"}}' 0
retention_example other-app-refused.json \
  "A request for an app this deployment does not serve (by appAppleId) is refused: Apple shows its own default message." \
  "$(sign realtimeRequest "$(realtime com.example.pro.monthly en-US 999)")" \
  '{"error": {"code": "INVALID_APP_IDENTIFIER", "message": "App Apple ID 999 is not one of this deployment'"'"'s apps"}}' 65
genuine=$(sign realtimeRequest "$(realtime com.example.pro.monthly en-US 1234567890)")
other=$(sign realtimeRequest "$(realtime com.example.pro.yearly en-US 1234567890)")
forged="$(cut -d. -f1 <<<"$genuine").$(cut -d. -f2 <<<"$other").$(cut -d. -f3 <<<"$genuine")"
retention_example bad-signature.json \
  "A request whose payload was swapped does not verify: 400, and nothing is read or signed." \
  "$forged" '{"error": {"code": "VERIFICATION_FAILURE", "message": "signature does not match the leaf certificate"}}' 65

echo "examples written to $rm"
