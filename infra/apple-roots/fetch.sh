#!/usr/bin/env bash
# Downloads Apple's root certificates from Apple's certificate authority page into a folder
# (default var/apple-roots) for APPSTORE_ROOT_CERTS, and refuses any file whose SHA-256
# fingerprint differs from the one pinned here: a root is the one thing that must never be
# taken on trust from the network.
#
# Needs internet access (not available on the build machines, and no test needs it). Run it
# once when deploying, then point APPSTORE_ROOT_CERTS at the folder.
set -euo pipefail
dest=${1:-var/apple-roots}
base=https://www.apple.com/certificateauthority

# file name | pinned SHA-256 fingerprint
pins=(
  # Apple Root CA - G3: the root of App Store signed data (JWS x5c chains).
  "AppleRootCA-G3.cer|63343ABFB89A6A03EBB57E9B3F5FA7BE7C4F5C756F3017B3A8C488C3653E9179"
  # Apple Root CA (2006): the root of legacy app receipts (PKCS#7).
  "AppleIncRootCertificate.cer|B0B1730ECBC7FF4505142C49F1295E6EDA6BCAED7E2C68C5BE91B5A11001F024"
)

mkdir -p "$dest"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for pin in "${pins[@]}"; do
  name=${pin%%|*}
  expected=${pin##*|}
  curl --fail --silent --show-error --location --proto '=https' --max-time 30 -o "$tmp/$name" "$base/$name"
  actual=$(openssl x509 -inform DER -in "$tmp/$name" -noout -fingerprint -sha256 | sed 's/.*=//; s/://g')
  if [ "$actual" != "$expected" ]; then
    echo "refusing $name: SHA-256 $actual is not the pinned $expected" >&2
    exit 1
  fi
  mv "$tmp/$name" "$dest/$name"
  echo "ok $dest/$name"
done
