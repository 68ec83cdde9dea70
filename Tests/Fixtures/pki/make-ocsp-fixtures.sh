#!/usr/bin/env bash
# Adds the OCSP fixtures that make-pki.sh does not make, next to its output, without
# touching anything make-pki.sh made (other tests and golden examples depend on those keys):
#
#   root-ocsp-responder         delegated OCSP signer for the ROOT (answers for the intermediates)
#   root-index.txt (+ .attr)    the root's `openssl ca` database, for `openssl ocsp -index`
#   ocsp-responder-other-root   an OCSP signer issued by other-intermediate: the "wrong key"
#
# Idempotent: a certificate is made only when it is missing or no longer chains to its
# issuer (make-pki.sh was run again and made new CA keys); root-index.txt is rewritten only
# when its content would change. A second run changes nothing. make-pki.sh calls this at
# its end, so a full regeneration makes these too. See README.md ("OCSP").
#
# Usage: make-ocsp-fixtures.sh [PKI_DIR]   (default: the folder this script lives in)
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
pki="$(cd "${1:-$script_dir}" && pwd)"

command -v openssl >/dev/null || { echo "make-ocsp-fixtures.sh: openssl not found" >&2; exit 1; }
for needed in root intermediate intermediate-no-oid other-root other-intermediate; do
    [[ -f "$pki/$needed.pem" ]] || { echo "make-ocsp-fixtures.sh: $pki/$needed.pem missing (run make-pki.sh first)" >&2; exit 1; }
done

work="$(mktemp -d "${TMPDIR:-/tmp}/storekeeper-ocsp-fixtures.XXXXXX")"
trap 'rm -rf "$work"' EXIT
umask 022

# Same conventions as make-pki.sh: fixed dates, names, serials; tests validate at this time.
D2024=20240101000000Z
D2044=20440101000000Z
CHECK_TIME=1780272000   # 2026-06-01T00:00:00Z
OU_CA="Storekeeper Test Certification Authority"
O="Storekeeper Test"
ROOT_CN="Storekeeper Test Root CA - G3"
WWDR_CN="Storekeeper Test WWDR CA - G6"

cat >"$work/ca.cnf" <<'EOF'
# Throwaway openssl ca configuration; CA_DIR and CA_MD select the signing CA.
[ ca ]
default_ca = ca_default

[ ca_default ]
dir            = ${ENV::CA_DIR}
database       = $dir/index.txt
new_certs_dir  = $dir/newcerts
serial         = $dir/serial
default_md     = ${ENV::CA_MD}
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

# Delegated OCSP responder (RFC 6960 4.2.2.2), as ext_ocsp in make-pki.sh.
[ ext_ocsp ]
basicConstraints       = CA:FALSE
keyUsage               = critical, digitalSignature
extendedKeyUsage       = critical, OCSPSigning
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid:always
noCheck                = ignored
EOF
printf '[ req ]\ndistinguished_name = req_dn\nprompt = no\n[ req_dn ]\nCN = unused\n' >"$work/req.cnf"

# new_db NAME: an empty openssl ca database in $work/db-NAME
new_db() {
    mkdir -p "$work/db-$1/newcerts"
    : >"$work/db-$1/index.txt"
    echo "unique_subject = no" >"$work/db-$1/index.txt.attr"
}

# chains NAME ANCHOR [UNTRUSTED]: does $pki/NAME.pem (with its .cer and .key) exist and
# verify up to ANCHOR at the tests' time?
chains() {
    local name=$1 anchor=$2 untrusted=${3:-}
    [[ -f "$pki/$name.pem" && -f "$pki/$name.cer" && -f "$pki/$name.key" ]] || return 1
    local extra=()
    [[ -n $untrusted ]] && extra=(-untrusted "$pki/$untrusted.pem")
    openssl verify -attime "$CHECK_TIME" -CAfile "$pki/$anchor.pem" "${extra[@]}" "$pki/$name.pem" >/dev/null 2>&1
}

# responder NAME CN ISSUER SERIAL_HEX: a P-256 OCSP signing certificate issued by
# $pki/ISSUER (its key picks the digest, P-384 -> SHA-384), installed as NAME.{pem,cer,key}.
responder() {
    local name=$1 cn=$2 issuer=$3 serial=$4 md=sha256
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 \
        -pkeyopt ec_param_enc:named_curve -out "$work/$name.key" 2>/dev/null
    openssl req -new -config "$work/req.cnf" -key "$work/$name.key" \
        -subj "/CN=$cn/OU=$OU_CA/O=$O/C=US" -out "$work/$name.csr"
    openssl pkey -in "$pki/$issuer.key" -text_pub -noout | grep -q 'P-384' && md=sha384
    new_db "$name"
    echo "$serial" >"$work/db-$name/serial"
    CA_DIR="$work/db-$name" CA_MD="$md" openssl ca -batch -notext -config "$work/ca.cnf" \
        -cert "$pki/$issuer.pem" -keyfile "$pki/$issuer.key" -in "$work/$name.csr" \
        -out "$work/$name.pem" -extensions ext_ocsp -startdate "$D2024" -enddate "$D2044" \
        2>"$work/$name.log" || { cat "$work/$name.log" >&2; exit 1; }
    openssl x509 -in "$work/$name.pem" -outform DER -out "$work/$name.cer"
    cp "$work/$name.pem" "$work/$name.cer" "$work/$name.key" "$pki/"
    chmod 0644 "$pki/$name.pem" "$pki/$name.cer" "$pki/$name.key"
    echo "make-ocsp-fixtures.sh: wrote $name"
}

# --- the root's delegated OCSP responder --------------------------------------------
chains root-ocsp-responder root \
    || responder root-ocsp-responder "$ROOT_CN OCSP Responder" root 2f00

# --- the wrong-key responder: same name and extensions as ocsp-responder, issued by the
# parallel chain's intermediate (same name as `intermediate`, other key) ----------------
chains ocsp-responder-other-root other-root other-intermediate \
    || responder ocsp-responder-other-root "$WWDR_CN OCSP Responder" other-intermediate 3f00

# --- the root's database: intermediate, intermediate-no-oid and the root's responder are
# valid; intermediate-not-ca is deliberately absent, so the responder answers *unknown* ---
new_db root-index
for c in intermediate intermediate-no-oid root-ocsp-responder; do
    CA_DIR="$work/db-root-index" CA_MD=sha384 openssl ca -batch -config "$work/ca.cnf" \
        -cert "$pki/root.pem" -keyfile "$pki/root.key" -valid "$pki/$c.pem" 2>"$work/valid.log" \
        || { cat "$work/valid.log" >&2; exit 1; }
done
for f in index.txt index.txt.attr; do
    if ! cmp -s "$work/db-root-index/$f" "$pki/root-$f"; then
        cp "$work/db-root-index/$f" "$pki/root-$f"
        chmod 0644 "$pki/root-$f"
        echo "make-ocsp-fixtures.sh: wrote root-$f"
    fi
done
