#!/usr/bin/env bash
# Writes the golden examples of migrate-receipt (functions/migrate-receipt/examples/*.json)
# from the committed test receipts (Tests/Fixtures/receipts, made by make-receipts.sh). The
# expected answers are written out from what make-receipts.sh puts in each payload, not
# taken from the binary. Rerun after make-receipts.sh (Tests/Fixtures/make-examples.sh calls
# it). Needs bash and jq.
set -euo pipefail
cd "$(dirname "$0")/../../.."
R=Tests/Fixtures/receipts
out=functions/migrate-receipt/examples
mkdir -p "$out"
env_json='{"APPSTORE_RECEIPT_ROOT_CERTS": "Tests/Fixtures/receipts/pki/receipt-root.pem", "APPSTORE_BUNDLE_ID": "com.example.storekeeper"}'

# The records make-receipts.sh writes, as the function answers them (dates in ms).
sub_first='{"quantity": 1, "productId": "com.example.pro.monthly", "transactionId": "1000000000000001", "originalTransactionId": "1000000000000001", "purchaseDate": 1775037600000, "originalPurchaseDate": 1775037600000, "expiresDate": 1777629600000, "webOrderLineItemId": "1000000000000101", "isTrialPeriod": true, "isInIntroOfferPeriod": false}'
sub_renewal='{"quantity": 1, "productId": "com.example.pro.monthly", "transactionId": "1000000000000002", "originalTransactionId": "1000000000000001", "purchaseDate": 1777629600000, "originalPurchaseDate": 1775037600000, "expiresDate": 1780308000000, "webOrderLineItemId": "1000000000000102", "isTrialPeriod": false, "isInIntroOfferPeriod": false}'
lifetime='{"quantity": 1, "productId": "com.example.lifetime", "transactionId": "1000000000000003", "originalTransactionId": "1000000000000003", "purchaseDate": 1769934600000, "originalPurchaseDate": 1769934600000, "isTrialPeriod": false, "isInIntroOfferPeriod": false}'
refunded='{"quantity": 2, "productId": "com.example.coins", "transactionId": "1000000000000004", "originalTransactionId": "1000000000000004", "purchaseDate": 1772355600000, "originalPurchaseDate": 1772355600000, "cancellationDate": 1772442000000, "isTrialPeriod": false, "isInIntroOfferPeriod": false}'
created=1780228800000   # 2026-05-31T12:00:00Z

# receipt TYPE CREATED PURCHASES_JSON_ARRAY
receipt() {
  jq -cn --arg t "$1" --argjson c "$2" --argjson p "$3" \
    '{receiptType: $t, bundleId: "com.example.storekeeper", appVersion: "42", originalAppVersion: "1.0", creationDate: $c, inAppPurchases: $p}'
}
ids() { jq -c '[.[].originalTransactionId] | unique' <<<"$1"; }
data() { tr -d '\n' <"$R/$1.b64"; }

# example FILE DESCRIPTION REQUEST RESPONSE EXIT [ENVIRONMENT]
example() {
  jq -n --arg d "$2" --argjson env "${6:-$env_json}" --argjson req "$3" --argjson res "$4" --argjson code "$5" \
    '{description: $d, environment: $env, request: $req, response: $res, exitCode: $code}' >"$out/$1"
}
dry() { jq -cn --arg r "$(data "$1")" '{receiptData: $r, dryRun: true}'; }
live() { jq -cn --arg r "$(data "$1")" '{receiptData: $r}'; }
rejected() { jq -cn --arg c "$1" --arg m "$2" --arg e "$3" '{dryRun: false, verified: false, environment: $e, error: {code: $c, message: $m}}'; }

single="[$sub_first]"
several="[$lifetime, $refunded, $sub_first, $sub_renewal]"

example dry-run-single.json "Dry run: a Production receipt with one subscription purchase, verified to the legacy root at its creation date; nothing asked of Apple, nothing stored." \
  "$(dry receipt-single)" \
  "$(jq -cn --argjson r "$(receipt Production $created "$single")" --argjson i "$(ids "$single")" \
      '{dryRun: true, verified: true, environment: "Production", chainVerified: true, receipt: $r, originalTransactionIds: $i}')" 0

example dry-run-several.json "Dry run: a sandbox receipt with a subscription and its renewal, a non-consumable and a refunded consumable (oldest first)." \
  "$(dry receipt-several)" \
  "$(jq -cn --argjson r "$(receipt ProductionSandbox $created "$several")" --argjson i "$(ids "$several")" \
      '{dryRun: true, verified: true, environment: "Sandbox", chainVerified: true, receipt: $r, originalTransactionIds: $i}')" 0

example dry-run-signer-expired-later.json "Dry run: the signing certificate expired (2025-06-01) after the receipt was made (2025-03-01): validated at the creation date, it verifies." \
  "$(dry receipt-signer-expired-later)" \
  "$(jq -cn --argjson r "$(receipt Production 1740830400000 "$single")" --argjson i "$(ids "$single")" \
      '{dryRun: true, verified: true, environment: "Production", chainVerified: true, receipt: $r, originalTransactionIds: $i}')" 0

tampered_single=$(jq -c '.[0].transactionId = "1000000000000009"' <<<"$single")   # make-receipts.sh changes the first id only
example dry-run-tampered.json "Dry run of a receipt whose content was changed after signing: what it claims is shown, and that it does not verify." \
  "$(dry receipt-tampered)" \
  "$(jq -cn --argjson r "$(receipt Production $created "$tampered_single")" --argjson i "$(ids "$tampered_single")" \
      '{dryRun: true, verified: false, environment: "Production", error: {code: "VERIFICATION_FAILURE", message: "<<any>>"}, receipt: $r, originalTransactionIds: $i}')" 0

example live-without-api-key.json "Not a dry run: the receipt verifies, and moving it to the App Store Server API needs the API key: without APPSTORE_KEY_ID, exit 78 naming it (a dry run needs no key)." \
  "$(live receipt-single)" \
  '{"error": {"code": "configuration_error", "message": "APPSTORE_KEY_ID is not set"}}' 78

example dry-run-with-user.json "A dry run links nobody: userId belongs to a real migration." \
  "$(jq -cn --arg r "$(data receipt-single)" '{receiptData: $r, dryRun: true, userId: "user-1"}')" \
  '{"error": {"code": "invalid_request", "message": "a dry run links nobody: userId, appAccountToken and sessionToken need dryRun false"}}' 65

example wrong-root.json "A look-alike receipt signed under another root is refused (exit 65)." \
  "$(live receipt-other-root)" \
  "$(rejected INVALID_CERTIFICATE "certificate chain rejected at depth 1: unable to get local issuer certificate (X509_V_ERR 20)" Production)" 65

example signer-expired-before.json "A receipt made after its signing certificate expired is refused." \
  "$(live receipt-signer-expired-before)" \
  "$(rejected INVALID_CERTIFICATE "certificate chain rejected at depth 0: certificate has expired (X509_V_ERR 10)" Production)" 65

example xcode-not-accepted.json "An Xcode (StoreKit testing) receipt where Xcode is not an accepted environment." \
  "$(live receipt-xcode)" \
  "$(rejected INVALID_ENVIRONMENT "environment Xcode is not accepted" Xcode)" 65

example xcode-accepted.json "With APPSTORE_ENVIRONMENT including Xcode, an Xcode receipt's signature is checked, and the answer says its signer chains nowhere." \
  "$(dry receipt-xcode)" \
  "$(jq -cn --argjson r "$(receipt Xcode $created "$single")" --argjson i "$(ids "$single")" \
      '{dryRun: true, verified: true, environment: "Xcode", chainVerified: false, receipt: $r, originalTransactionIds: $i}')" 0 \
  "$(jq -c '.APPSTORE_ENVIRONMENT = "Sandbox,Xcode"' <<<"$env_json")"

example xcode-not-migrated.json "Not a dry run of an Xcode (StoreKit testing) receipt: Apple's servers never saw its purchases, so nothing is asked and no API key is needed." \
  "$(live receipt-xcode)" \
  "$(jq -cn --argjson r "$(receipt Xcode $created "$single")" --argjson i "$(ids "$single")" \
      '{dryRun: false, verified: true, environment: "Xcode", chainVerified: false, receipt: $r, originalTransactionIds: $i,
        migration: {performed: false, reason: "an Xcode receipt'"'"'s purchases are unknown to the App Store Server API"}}')" 0 \
  "$(jq -c '.APPSTORE_ENVIRONMENT = "Sandbox,Xcode"' <<<"$env_json")"

example truncated.json "Half a receipt is not a receipt." \
  "$(dry receipt-truncated)" \
  '{"error": {"code": "INVALID_RECEIPT_FORMAT", "message": "<<any>>"}}' 65

example not-base64.json "receiptData must be base64." \
  '{"receiptData": "not base64!", "dryRun": true}' \
  '{"error": {"code": "INVALID_RECEIPT_FORMAT", "message": "receiptData is not base64"}}' 65

example dry-run-with-legacy-check.json "A dry run asks nobody, so it cannot also ask verifyReceipt." \
  '{"receiptData": "AAAA", "dryRun": true, "legacyCheck": true}' \
  '{"error": {"code": "invalid_request", "message": "legacyCheck asks Apple; a dry run asks nobody: send one or the other"}}' 65

example legacy-check-without-secret.json "legacyCheck without APPSTORE_SHARED_SECRET is a configuration error (exit 78), found before anything is sent." \
  "$(jq -cn --arg r "$(data receipt-single)" '{receiptData: $r, legacyCheck: true}')" \
  '{"error": {"code": "configuration_error", "message": "APPSTORE_SHARED_SECRET is not set (legacyCheck needs it)"}}' 78

example missing-configuration.json "Without APPSTORE_RECEIPT_ROOT_CERTS the function refuses to start: exit 78, naming the variable." \
  '{"receiptData": "AAAA", "dryRun": true}' \
  '{"error": {"code": "configuration_error", "message": "APPSTORE_RECEIPT_ROOT_CERTS is not set"}}' 78 \
  '{"APPSTORE_BUNDLE_ID": "com.example.storekeeper"}'

echo "migrate-receipt examples written to $out"
