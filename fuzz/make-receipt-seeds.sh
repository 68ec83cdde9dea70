#!/usr/bin/env bash
# Writes fuzz/corpus/receipt-reader/ from the committed test receipts (Tests/Fixtures/receipts,
# made by make-receipts.sh): the receipts themselves (valid-* verify with the test receipt
# root; the rest are refused at some step) and two bare payloads, so mutations reach both the
# PKCS#7 container and the DER payload reader. fuzz/make-seeds.sh runs it; it can run alone.
# Needs bash and openssl.
set -euo pipefail
cd "$(dirname "$0")/.."
R=Tests/Fixtures/receipts
OUT=fuzz/corpus/receipt-reader
rm -rf "$OUT" && mkdir -p "$OUT"
cp "$R/receipt-single.p7" "$OUT/valid-single.p7"
cp "$R/receipt-several.p7" "$OUT/valid-several.p7"
cp "$R/receipt-no-purchases.p7" "$OUT/valid-no-purchases.p7"
cp "$R/receipt-signer-expired-later.p7" "$OUT/valid-signer-expired-later.p7"
for name in tampered other-root xcode signer-expired-before truncated signer-not-receipt-signer intermediate-not-wwdr; do
    cp "$R/receipt-$name.p7" "$OUT/rejected-$name.p7"
done
for name in single several; do
    openssl smime -verify -noverify -binary -inform DER -in "$R/receipt-$name.p7" -out "$OUT/payload-$name.der" 2>/dev/null
done
echo "$OUT: $(find "$OUT" -type f | wc -l) seeds"
