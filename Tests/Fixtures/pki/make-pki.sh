#!/usr/bin/env bash
# (Re)generates Storekeeper's test PKI: a copy of Apple's App Store signing chain
# (root -> WWDR intermediate -> receipt-signing leaf) with fixed validity dates,
# the broken variants the verifier must reject, the OCSP pieces for `openssl ocsp`,
# and Apple-style API keys. Tests validate at 2026-06-01T00:00:00Z.
#
# Usage: make-pki.sh [OUTPUT_DIR]   (default: the folder this script lives in)
# Needs only the openssl CLI (Debian 12, OpenSSL 3.0). Keys are new on every run;
# names, serials, dates and extensions are always the same. See README.md.
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-$script_dir}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

command -v openssl >/dev/null || { echo "make-pki.sh: openssl not found" >&2; exit 1; }

work="$(mktemp -d "${TMPDIR:-/tmp}/storekeeper-pki.XXXXXX")"
trap 'rm -rf "$work"' EXIT
umask 022

# Fixed dates (openssl ca -startdate/-enddate; UTCTime before 2050).
D2024=20240101000000Z
D2025=20250101000000Z
D2030=20300101000000Z
D2044=20440101000000Z
D2049=20490101000000Z
# Revocation time written into index.txt for leaf-revoked (YYMMDDHHMMSSZ): 2026-01-01,
# before the tests' "now", so a revoked answer is revoked at every instant tests use.
REVOKED_AT=260101000000Z

OCSP_URL="http://127.0.0.1:18888"
# The root's responder, named by the intermediates (Apple's WWDR intermediates carry one too).
ROOT_OCSP_URL="http://127.0.0.1:18889"
OU_CA="Storekeeper Test Certification Authority"
OU_WWDR="Storekeeper Test Worldwide Developer Relations"
O="Storekeeper Test"
ROOT_CN="Storekeeper Test Root CA - G3"
WWDR_CN="Storekeeper Test WWDR CA - G6"
LEAF_CN="Storekeeper Test App Store Receipt Signing"

cat >"$work/ca.cnf" <<EOF
# Throwaway openssl ca configuration; CA_DIR and CA_MD select the signing CA.
[ ca ]
default_ca = ca_default

[ ca_default ]
dir            = \${ENV::CA_DIR}
database       = \$dir/index.txt
new_certs_dir  = \$dir/newcerts
serial         = \$dir/serial
default_md     = \${ENV::CA_MD}
default_days   = 1
policy         = policy_any
preserve       = yes
email_in_dn    = no
unique_subject = no
copy_extensions = none
name_opt       = ca_default
cert_opt       = ca_default

[ policy_any ]
commonName             = supplied
organizationalUnitName = optional
organizationName       = optional
countryName            = optional

# Apple Root CA - G3 shape.
[ ext_root ]
basicConstraints       = critical, CA:TRUE
keyUsage               = critical, keyCertSign, cRLSign
subjectKeyIdentifier   = hash

# Apple WWDR intermediate shape: CA, path length 0, Apple's intermediate marker OID.
[ ext_wwdr ]
basicConstraints         = critical, CA:TRUE, pathlen:0
keyUsage                 = critical, keyCertSign, cRLSign
subjectKeyIdentifier     = hash
authorityKeyIdentifier   = keyid:always
1.2.840.113635.100.6.2.1 = ASN1:NULL
authorityInfoAccess      = OCSP;URI:$ROOT_OCSP_URL

# Bad: a CA intermediate without the WWDR marker OID.
[ ext_wwdr_no_oid ]
basicConstraints         = critical, CA:TRUE, pathlen:0
keyUsage                 = critical, keyCertSign, cRLSign
subjectKeyIdentifier     = hash
authorityKeyIdentifier   = keyid:always
authorityInfoAccess      = OCSP;URI:$ROOT_OCSP_URL

# Bad: carries the WWDR marker OID but is not a CA.
[ ext_wwdr_not_ca ]
basicConstraints         = critical, CA:FALSE
keyUsage                 = critical, keyCertSign, cRLSign
subjectKeyIdentifier     = hash
authorityKeyIdentifier   = keyid:always
1.2.840.113635.100.6.2.1 = ASN1:NULL
authorityInfoAccess      = OCSP;URI:$ROOT_OCSP_URL

# App Store receipt-signing leaf shape, with an OCSP pointer to the loopback responder.
[ ext_leaf ]
basicConstraints          = CA:FALSE
keyUsage                  = critical, digitalSignature
subjectKeyIdentifier      = hash
authorityKeyIdentifier    = keyid:always
authorityInfoAccess       = OCSP;URI:$OCSP_URL
1.2.840.113635.100.6.11.1 = ASN1:NULL

# Bad: a leaf without the receipt-signer marker OID.
[ ext_leaf_no_oid ]
basicConstraints          = CA:FALSE
keyUsage                  = critical, digitalSignature
subjectKeyIdentifier      = hash
authorityKeyIdentifier    = keyid:always
authorityInfoAccess       = OCSP;URI:$OCSP_URL

# Delegated OCSP responder for the WWDR intermediate (RFC 6960 4.2.2.2).
[ ext_ocsp ]
basicConstraints       = CA:FALSE
keyUsage               = critical, digitalSignature
extendedKeyUsage       = critical, OCSPSigning
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always
noCheck                = ignored
EOF

# Requests only carry the subject and key; every extension comes from ca.cnf.
printf '[ req ]\ndistinguished_name = req_dn\nprompt = no\n[ req_dn ]\nCN = unused\n' >"$work/req.cnf"

# ec_key NAME CURVE: PKCS#8 PEM private key in $work/NAME.key
ec_key() {
    openssl genpkey -algorithm EC -pkeyopt "ec_paramgen_curve:$2" \
        -pkeyopt ec_param_enc:named_curve -out "$work/$1.key" 2>/dev/null
}

# new_ca_db NAME SERIAL_HEX: an empty openssl ca database for the CA called NAME
new_ca_db() {
    local d="$work/db-$1"
    mkdir -p "$d/newcerts"
    : >"$d/index.txt"
    echo "unique_subject = no" >"$d/index.txt.attr"
    echo "$2" >"$d/serial"
}

# issue NAME CN OU EXT_SECTION START END SERIAL_HEX ISSUER
#   ISSUER is the name of an already issued CA, or "self" for a self-signed root
#   (whose database is db-NAME). Writes $work/NAME.pem.
issue() {
    local name=$1 cn=$2 ou=$3 ext=$4 start=$5 end=$6 serial=$7 issuer=$8
    local db md
    openssl req -new -config "$work/req.cnf" -key "$work/$name.key" \
        -subj "/CN=$cn/OU=$ou/O=$O/C=US" -out "$work/$name.csr"
    if [[ $issuer == self ]]; then db=$name; else db=$issuer; fi
    # The CA's key size picks the digest, as in Apple's chain (P-384 -> SHA-384).
    if openssl pkey -in "$work/$db.key" -text_pub -noout | grep -q 'P-384'; then
        md=sha384
    else
        md=sha256
    fi
    echo "$serial" >"$work/db-$db/serial"
    local signer=(-cert "$work/$issuer.pem")
    [[ $issuer == self ]] && signer=(-selfsign)
    CA_DIR="$work/db-$db" CA_MD="$md" openssl ca -batch -notext -config "$work/ca.cnf" \
        "${signer[@]}" -keyfile "$work/$db.key" -in "$work/$name.csr" \
        -out "$work/$name.pem" -extensions "$ext" \
        -startdate "$start" -enddate "$end" 2>"$work/$name.log" \
        || { cat "$work/$name.log" >&2; exit 1; }
}

# --- the real-looking chain -------------------------------------------------------
ec_key root P-384
new_ca_db root 1000
issue root "$ROOT_CN" "$OU_CA" ext_root "$D2024" "$D2049" 1000 self

ec_key intermediate P-384
new_ca_db intermediate 3000
issue intermediate "$WWDR_CN" "$OU_CA" ext_wwdr "$D2024" "$D2044" 2000 root

ec_key leaf P-256
issue leaf "$LEAF_CN" "$OU_WWDR" ext_leaf "$D2025" "$D2030" 3000 intermediate

# --- bad leaves under the real intermediate ----------------------------------------
ec_key leaf-expired P-256
issue leaf-expired "$LEAF_CN" "$OU_WWDR" ext_leaf "$D2024" "$D2025" 3001 intermediate

ec_key leaf-no-oid P-256
issue leaf-no-oid "$LEAF_CN" "$OU_WWDR" ext_leaf_no_oid "$D2025" "$D2030" 3002 intermediate

ec_key leaf-revoked P-256
issue leaf-revoked "$LEAF_CN" "$OU_WWDR" ext_leaf "$D2025" "$D2030" 3003 intermediate

# --- OCSP responder for the intermediate ----------------------------------------
ec_key ocsp-responder P-256
issue ocsp-responder "$WWDR_CN OCSP Responder" "$OU_CA" ext_ocsp "$D2024" "$D2044" 3f00 intermediate

# --- bad intermediates (own names and keys), each with a good-looking leaf -----------
ec_key intermediate-no-oid P-384
new_ca_db intermediate-no-oid 3100
issue intermediate-no-oid "$WWDR_CN (no WWDR OID)" "$OU_CA" ext_wwdr_no_oid "$D2024" "$D2044" 2001 root
ec_key leaf-under-intermediate-no-oid P-256
issue leaf-under-intermediate-no-oid "$LEAF_CN" "$OU_WWDR" ext_leaf "$D2025" "$D2030" 3100 intermediate-no-oid

ec_key intermediate-not-ca P-384
new_ca_db intermediate-not-ca 3200
issue intermediate-not-ca "$WWDR_CN (not a CA)" "$OU_CA" ext_wwdr_not_ca "$D2024" "$D2044" 2002 root
ec_key leaf-under-intermediate-not-ca P-256
issue leaf-under-intermediate-not-ca "$LEAF_CN" "$OU_WWDR" ext_leaf "$D2025" "$D2030" 3200 intermediate-not-ca

# --- a parallel chain: same names, serials, dates and extensions; other keys -------
ec_key other-root P-384
new_ca_db other-root 1000
issue other-root "$ROOT_CN" "$OU_CA" ext_root "$D2024" "$D2049" 1000 self
ec_key other-intermediate P-384
new_ca_db other-intermediate 3000
issue other-intermediate "$WWDR_CN" "$OU_CA" ext_wwdr "$D2024" "$D2044" 2000 other-root
ec_key leaf-other-root P-256
issue leaf-other-root "$LEAF_CN" "$OU_WWDR" ext_leaf "$D2025" "$D2030" 3000 other-intermediate

# --- revoke leaf-revoked in the intermediate's database, at a fixed time ------------
CA_DIR="$work/db-intermediate" CA_MD=sha384 openssl ca -batch -config "$work/ca.cnf" \
    -cert "$work/intermediate.pem" -keyfile "$work/intermediate.key" \
    -revoke "$work/leaf-revoked.pem" -crl_reason keyCompromise 2>"$work/revoke.log" \
    || { cat "$work/revoke.log" >&2; exit 1; }
# index.txt: status, expiry, revocation "time[,reason]", serial, file, subject (tab-separated).
awk -F'\t' -v OFS='\t' -v at="$REVOKED_AT" \
    '$1 == "R" { n = split($3, r, ","); $3 = (n > 1) ? at "," r[2] : at } { print }' \
    "$work/db-intermediate/index.txt" >"$work/index.txt"
cp "$work/db-intermediate/index.txt.attr" "$work/index.txt.attr"

# --- Apple-style keys for the API clients and fake Apple servers --------------------
ec_key appstore-api-key P-256
ec_key siwa-key P-256
ec_key subscription-offer-key P-256
openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$work/appleid-rsa.key" 2>/dev/null
for k in appstore-api-key siwa-key subscription-offer-key appleid-rsa; do
    openssl pkey -in "$work/$k.key" -pubout -out "$work/$k.pub.pem"
done
mv "$work/appstore-api-key.key" "$work/appstore-api-key.p8"
mv "$work/siwa-key.key" "$work/siwa-key.p8"
mv "$work/subscription-offer-key.key" "$work/subscription-offer-key.p8"

# --- install into the output folder ------------------------------------------------
certs=(root intermediate leaf leaf-expired leaf-no-oid leaf-revoked ocsp-responder
       intermediate-no-oid leaf-under-intermediate-no-oid
       intermediate-not-ca leaf-under-intermediate-not-ca
       other-root other-intermediate leaf-other-root)
for c in "${certs[@]}"; do
    openssl x509 -in "$work/$c.pem" -outform DER -out "$work/$c.cer"
    cp "$work/$c.pem" "$work/$c.cer" "$work/$c.key" "$out/"
done
cp "$work/index.txt" "$work/index.txt.attr" \
   "$work/appstore-api-key.p8" "$work/appstore-api-key.pub.pem" \
   "$work/siwa-key.p8" "$work/siwa-key.pub.pem" \
   "$work/subscription-offer-key.p8" "$work/subscription-offer-key.pub.pem" \
   "$work/appleid-rsa.key" "$work/appleid-rsa.pub.pem" "$out/"
# Test keys, not secrets: same mode as a git checkout gives them.
chmod 0644 "$out"/*.pem "$out"/*.cer "$out"/*.key "$out"/*.p8 "$out"/index.txt "$out"/index.txt.attr

echo "make-pki.sh: wrote ${#certs[@]} certificates, their keys, index.txt and API keys to $out"

# The OCSP extras (root responder, root index, wrong-key responder) are made by their own
# idempotent script; with the new CA keys above it remakes them too.
"$script_dir/make-ocsp-fixtures.sh" "$out"
