#!/usr/bin/env bash
# (Re)generates the certificates the Redis-over-TLS tests use (`rediss://`, see
# Tests/KeyValueStoreTests/RedisTLSTests.swift and RedisTestServer's TLS mode):
#
#   ca                 the Redis server's CA (what STORE_TLS_CA_FILE names)
#   server             its server certificate: DNS localhost, IP 127.0.0.1, signed by ca
#   server-elsewhere   signed by ca for DNS redis.invalid only: connecting as localhost is a
#                      name mismatch, as 127.0.0.1 an IP address mismatch
#   server-expired     signed by ca for localhost and 127.0.0.1, valid 2020-01-01 → 2021-01-01
#   client-ca          the CA redis-server trusts for client certificates (--tls-auth-clients)
#   client             a client certificate signed by client-ca (STORE_TLS_CERT_FILE/_KEY_FILE)
#   wrong-ca           a CA that signed nothing here: trusting only it rejects the server
#   stranger           a client certificate signed by wrong-ca: redis-server refuses it
#
# Usage: make-redis-tls.sh [OUTPUT_DIR]   (default: the folder this script lives in)
# Needs only the openssl CLI (OpenSSL 3.0). Keys (P-256) are new on every run; names and
# extensions stay the same. Valid for 20 years from the run (the expired one aside).
# Test material only: every private key here is public.
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-$script_dir}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
command -v openssl >/dev/null || { echo "make-redis-tls.sh: openssl not found" >&2; exit 1; }

work="$(mktemp -d "${TMPDIR:-/tmp}/storekeeper-redis-tls.XXXXXX")"
trap 'rm -rf "$work"' EXIT
umask 022
DAYS=7300
O="Storekeeper Test"

key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$out/$1.key" 2>/dev/null; }

# ca NAME CN
ca() {
    key "$1"
    openssl req -x509 -new -key "$out/$1.key" -sha256 -days "$DAYS" -subj "/CN=$2/O=$O" \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
        -out "$out/$1.pem"
}

# leaf NAME CN ISSUER EXTENDED_USAGE SAN
leaf() {
    key "$1"
    openssl req -new -key "$out/$1.key" -subj "/CN=$2/O=$O" -out "$work/$1.csr"
    printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=%s\n%s\n' \
        "$4" "${5:+subjectAltName=$5}" > "$work/$1.ext"
    openssl x509 -req -in "$work/$1.csr" -CA "$out/$3.pem" -CAkey "$out/$3.key" -CAcreateserial \
        -CAserial "$work/$3.srl" -sha256 -days "$DAYS" -extfile "$work/$1.ext" -out "$out/$1.pem" 2>/dev/null
}

ca ca "Storekeeper Test Redis CA"
ca client-ca "Storekeeper Test Redis Client CA"
ca wrong-ca "Storekeeper Test Wrong CA"
leaf server "localhost" ca serverAuth "DNS:localhost,IP:127.0.0.1"
leaf server-elsewhere "redis.invalid" ca serverAuth "DNS:redis.invalid"
leaf client "storekeeper" client-ca clientAuth ""
leaf stranger "stranger" wrong-ca clientAuth ""

# An expired server certificate: `openssl ca` is the CLI's way to set dates in the past.
key server-expired
openssl req -new -key "$out/server-expired.key" -subj "/CN=localhost/O=$O" -out "$work/expired.csr"
touch "$work/index.txt"
cat > "$work/ca.cnf" <<CNF
[ca]
default_ca = test
[test]
database = $work/index.txt
new_certs_dir = $work
serial = $work/expired.srl
default_md = sha256
policy = anything
copy_extensions = none
unique_subject = no
[anything]
commonName = supplied
organizationName = optional
[server]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost,IP:127.0.0.1
CNF
echo 1000 > "$work/expired.srl"
openssl ca -batch -config "$work/ca.cnf" -extensions server -cert "$out/ca.pem" -keyfile "$out/ca.key" \
    -startdate 20200101000000Z -enddate 20210101000000Z -in "$work/expired.csr" -out "$work/expired.pem" 2>/dev/null
openssl x509 -in "$work/expired.pem" -out "$out/server-expired.pem"

chmod 644 "$out"/*.key "$out"/*.pem
echo "make-redis-tls.sh: wrote $(ls "$out" | grep -c '\.pem$') certificates to $out"
