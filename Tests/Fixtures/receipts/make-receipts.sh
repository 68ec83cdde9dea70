#!/usr/bin/env bash
# (Re)generates the legacy app receipts the receipt reader and `migrate-receipt` are tested
# with: a stand-in for Apple's legacy receipt PKI (RSA root "Apple Inc. Root" -> WWDR
# intermediate -> "Mac App Store and iTunes Store Receipt Signing" leaf), then receipts in
# Apple's real layout: a PKCS#7 signedData whose content is the DER receipt payload, a SET of
# ReceiptAttribute SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }, with the
# in-app purchase records (type 17) nested the same way inside their OCTET STRING.
#
# Receipts are validated at their creation date; the tests' "now" is 2026-06-01T00:00:00Z.
#
# Usage: make-receipts.sh [OUTPUT_DIR]   (default: this folder). Needs bash, openssl (3.0),
# perl (for the tampered copy) and base64. Keys are new on every run; names, dates and
# payloads stay the same. RSA PKCS#1 v1.5 signatures are deterministic, so a rerun only
# changes what the new keys change. Commit the outputs with the script. See README.md.
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-$script_dir}"
mkdir -p "$out/pki"
out="$(cd "$out" && pwd)"
for tool in openssl perl base64; do
    command -v "$tool" >/dev/null || { echo "make-receipts.sh: $tool not found" >&2; exit 1; }
done
work="$(mktemp -d "${TMPDIR:-/tmp}/storekeeper-receipts.XXXXXX")"
trap 'rm -rf "$work"' EXIT
umask 022

O="Storekeeper Test"
BUNDLE=com.example.storekeeper

cat >"$work/ca.cnf" <<'EOF'
[ ca ]
default_ca = ca_default
[ ca_default ]
dir            = ${ENV::CA_DIR}
database       = $dir/index.txt
new_certs_dir  = $dir/newcerts
serial         = $dir/serial
default_md     = sha256
default_days   = 1
policy         = policy_any
preserve       = yes
email_in_dn    = no
unique_subject = no
copy_extensions = none
[ policy_any ]
commonName             = supplied
organizationalUnitName = optional
organizationName       = optional
countryName            = optional
# Apple Inc. Root shape.
[ ext_root ]
basicConstraints       = critical, CA:TRUE
keyUsage               = critical, keyCertSign, cRLSign
subjectKeyIdentifier   = hash
# Apple Worldwide Developer Relations intermediate shape.
[ ext_wwdr ]
basicConstraints         = critical, CA:TRUE, pathlen:0
keyUsage                 = critical, keyCertSign, cRLSign
subjectKeyIdentifier     = hash
authorityKeyIdentifier   = keyid:always
1.2.840.113635.100.6.2.1 = ASN1:NULL
# Receipt-signing leaf shape (Apple's receipt-signer marker OID).
[ ext_leaf ]
basicConstraints          = CA:FALSE
keyUsage                  = critical, digitalSignature
subjectKeyIdentifier      = hash
authorityKeyIdentifier    = keyid:always
1.2.840.113635.100.6.11.1 = ASN1:NULL
# The same shapes without Apple's marker OIDs: an intermediate that is not WWDR, a leaf
# that is not a receipt signer (a developer's own certificate under WWDR, say).
[ ext_ca_unmarked ]
basicConstraints         = critical, CA:TRUE, pathlen:0
keyUsage                 = critical, keyCertSign, cRLSign
subjectKeyIdentifier     = hash
authorityKeyIdentifier   = keyid:always
[ ext_leaf_unmarked ]
basicConstraints          = CA:FALSE
keyUsage                  = critical, digitalSignature
subjectKeyIdentifier      = hash
authorityKeyIdentifier    = keyid:always
EOF
printf '[ req ]\ndistinguished_name = req_dn\nprompt = no\n[ req_dn ]\nCN = unused\n' >"$work/req.cnf"

# issue NAME CN EXT START END SERIAL ISSUER(|self): RSA 2048 key and certificate in $work.
issue() {
    local name=$1 cn=$2 ext=$3 start=$4 end=$5 serial=$6 issuer=$7 db
    openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$work/$name.key" 2>/dev/null
    openssl req -new -config "$work/req.cnf" -key "$work/$name.key" -subj "/CN=$cn/O=$O/C=US" -out "$work/$name.csr"
    if [[ $issuer == self ]]; then db=$name; else db=$issuer; fi
    mkdir -p "$work/db-$db/newcerts"; touch "$work/db-$db/index.txt"
    echo "$serial" >"$work/db-$db/serial"
    local signer=(-cert "$work/$issuer.pem"); [[ $issuer == self ]] && signer=(-selfsign)
    CA_DIR="$work/db-$db" openssl ca -batch -notext -config "$work/ca.cnf" "${signer[@]}" \
        -keyfile "$work/$db.key" -in "$work/$name.csr" -out "$work/$name.pem" -extensions "$ext" \
        -startdate "$start" -enddate "$end" 2>"$work/$name.log" || { cat "$work/$name.log" >&2; exit 1; }
    cp "$work/$name.pem" "$work/$name.key" "$out/pki/"
}

# The legacy chain, the leaf that expired after the receipts it signed, a look-alike chain
# under another root, a leaf under WWDR without the receipt-signer OID, a leaf (with it)
# under an intermediate of the same root without the WWDR OID, and a self-signed
# "StoreKit Testing in Xcode" certificate.
issue receipt-root "Storekeeper Test Apple Inc. Root" ext_root 20240101000000Z 20490101000000Z 10 self
issue receipt-wwdr "Storekeeper Test Apple Worldwide Developer Relations CA" ext_wwdr 20240101000000Z 20440101000000Z 20 receipt-root
issue receipt-signer "Storekeeper Test Mac App Store and iTunes Store Receipt Signing" ext_leaf 20250101000000Z 20300101000000Z 30 receipt-wwdr
issue receipt-signer-expired "Storekeeper Test Mac App Store and iTunes Store Receipt Signing" ext_leaf 20240101000000Z 20250601000000Z 31 receipt-wwdr
issue other-receipt-root "Storekeeper Test Apple Inc. Root" ext_root 20240101000000Z 20490101000000Z 10 self
issue other-receipt-wwdr "Storekeeper Test Apple Worldwide Developer Relations CA" ext_wwdr 20240101000000Z 20440101000000Z 20 other-receipt-root
issue other-receipt-signer "Storekeeper Test Mac App Store and iTunes Store Receipt Signing" ext_leaf 20250101000000Z 20300101000000Z 30 other-receipt-wwdr
issue unmarked-signer "Storekeeper Test Apple Development: Someone" ext_leaf_unmarked 20250101000000Z 20300101000000Z 32 receipt-wwdr
issue unmarked-wwdr "Storekeeper Test Apple Other CA" ext_ca_unmarked 20240101000000Z 20440101000000Z 21 receipt-root
issue unmarked-wwdr-signer "Storekeeper Test Mac App Store and iTunes Store Receipt Signing" ext_leaf 20250101000000Z 20300101000000Z 30 unmarked-wwdr
issue xcode-signer "StoreKit Testing in Xcode" ext_root 20240101000000Z 20490101000000Z 40 self

# --- payloads (openssl asn1parse -genconf) -----------------------------------------------
# attr NAME TYPE VALUE: one ReceiptAttribute section, version 1.
attr() { printf '[%s]\ntype=INTEGER:%s\nversion=INTEGER:1\nvalue=%s\n' "$1" "$2" "$3"; }

# purchase NAME QTY PRODUCT TXN ORIGINAL_TXN PURCHASE ORIGINAL_PURCHASE EXPIRES CANCELLED WEB_ORDER INTRO TRIAL
#   one in-app purchase record (a SET of attributes) in section NAME; empty dates stay empty
#   IA5Strings, as Apple writes them for fields that do not apply.
purchase() {
    local n=$1
    printf '[%s]\n' "$n"
    for i in 1701 1702 1703 1705 1704 1706 1708 1712 1711 1719 1713; do printf 'a%s=SEQUENCE:%s_%s\n' "$i" "$n" "$i"; done
    attr "${n}_1701" 1701 "OCTWRAP,INTEGER:$2"
    attr "${n}_1702" 1702 "OCTWRAP,UTF8String:$3"
    attr "${n}_1703" 1703 "OCTWRAP,UTF8String:$4"
    attr "${n}_1705" 1705 "OCTWRAP,UTF8String:$5"
    attr "${n}_1704" 1704 "OCTWRAP,IA5STRING:$6"
    attr "${n}_1706" 1706 "OCTWRAP,IA5STRING:$7"
    attr "${n}_1708" 1708 "OCTWRAP,IA5STRING:$8"
    attr "${n}_1712" 1712 "OCTWRAP,IA5STRING:$9"
    attr "${n}_1711" 1711 "OCTWRAP,INTEGER:${10}"
    attr "${n}_1719" 1719 "OCTWRAP,INTEGER:${11}"
    attr "${n}_1713" 1713 "OCTWRAP,INTEGER:${12}"
}

# payload NAME RECEIPT_TYPE CREATED PURCHASE_SECTIONS...: $work/NAME.der
payload() {
    local name=$1 type=$2 created=$3; shift 3
    {
        echo 'asn1=SET:receipt'
        echo '[receipt]'
        for a in t0 t2 t3 t4 t5 t12 t19 t21; do echo "$a=SEQUENCE:$a"; done
        local i=0
        for p in "$@"; do echo "iap$i=SEQUENCE:iap$i"; i=$((i + 1)); done
        attr t0 0 "OCTWRAP,UTF8String:$type"
        attr t2 2 "OCTWRAP,UTF8String:$BUNDLE"
        attr t3 3 "OCTWRAP,UTF8String:42"
        attr t4 4 "FORMAT:HEX,OCTETSTRING:0011223344556677"
        attr t5 5 "FORMAT:HEX,OCTETSTRING:00112233445566778899aabbccddeeff00112233"
        attr t12 12 "OCTWRAP,IA5STRING:$created"
        attr t19 19 "OCTWRAP,UTF8String:1.0"
        attr t21 21 "OCTWRAP,IA5STRING:"
        i=0
        for p in "$@"; do attr "iap$i" 17 "OCTWRAP,SET:$p"; i=$((i + 1)); done
        cat "$work/purchases.cnf"
    } >"$work/$name.cnf"
    openssl asn1parse -genconf "$work/$name.cnf" -out "$work/$name.der" -noout
}

{
    # An auto-renewable subscription's first purchase and its renewal (one original id).
    purchase sub_first 1 com.example.pro.monthly 1000000000000001 1000000000000001 \
        2026-04-01T10:00:00Z 2026-04-01T10:00:00Z 2026-05-01T10:00:00Z "" 1000000000000101 0 1
    purchase sub_renewal 1 com.example.pro.monthly 1000000000000002 1000000000000001 \
        2026-05-01T10:00:00Z 2026-04-01T10:00:00Z 2026-06-01T10:00:00Z "" 1000000000000102 0 0
    # A non-consumable (no expiry) and a refunded consumable.
    purchase lifetime 1 com.example.lifetime 1000000000000003 1000000000000003 \
        2026-02-01T08:30:00Z 2026-02-01T08:30:00Z "" "" 0 0 0
    purchase refunded 2 com.example.coins 1000000000000004 1000000000000004 \
        2026-03-01T09:00:00Z 2026-03-01T09:00:00Z "" 2026-03-02T09:00:00Z 0 0 0
} >"$work/purchases.cnf"

payload single Production 2026-05-31T12:00:00Z sub_first
payload several ProductionSandbox 2026-05-31T12:00:00Z sub_first sub_renewal lifetime refunded
payload old Production 2025-03-01T12:00:00Z sub_first
payload late Production 2026-01-01T12:00:00Z sub_first
payload xcode Xcode 2026-05-31T12:00:00Z sub_first
payload empty ProductionSandbox 2026-05-31T12:00:00Z

# sign PAYLOAD SIGNER CHAIN_PEM OUTPUT: PKCS#7 signedData (content attached, no signed
# attributes, as Apple's legacy receipts), DER; the chain certificates ride along.
sign() {
    openssl smime -sign -binary -nodetach -noattr -md sha256 -outform DER -in "$work/$1.der" \
        -signer "$work/$2.pem" -inkey "$work/$2.key" -certfile "$work/$3.pem" -out "$out/$4.p7"
}
sign single receipt-signer receipt-wwdr receipt-single
sign several receipt-signer receipt-wwdr receipt-several
sign empty receipt-signer receipt-wwdr receipt-no-purchases
sign old receipt-signer-expired receipt-wwdr receipt-signer-expired-later
sign late receipt-signer-expired receipt-wwdr receipt-signer-expired-before
sign single other-receipt-signer other-receipt-wwdr receipt-other-root
sign single unmarked-signer receipt-wwdr receipt-signer-not-receipt-signer
sign single unmarked-wwdr-signer unmarked-wwdr receipt-intermediate-not-wwdr
sign xcode xcode-signer xcode-signer receipt-xcode
# Content changed after signing: same length, so the container still parses.
perl -0777 -pe 's/1000000000000001/1000000000000009/' "$out/receipt-single.p7" >"$out/receipt-tampered.p7"
cmp -s "$out/receipt-single.p7" "$out/receipt-tampered.p7" && { echo "make-receipts.sh: tampering changed nothing" >&2; exit 1; }
# Not a receipt at all: the first half of a good one.
head -c 700 "$out/receipt-several.p7" >"$out/receipt-truncated.p7"

for f in "$out"/*.p7; do base64 -w0 "$f" >"${f%.p7}.b64"; done
echo "make-receipts.sh: wrote $(ls "$out"/*.p7 | wc -l) receipts and their PKI to $out"
