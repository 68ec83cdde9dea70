# Storekeeper. The two commands for a fresh machine are `make demo` and `make test`;
# each installs what it needs first (Debian packages through `make deps`).
SHELL := /bin/bash
.DEFAULT_GOAL := help

# Every Debian package the project uses, for every issue: C libraries behind the four
# fences, the servers the tests run for real, and the benchmark tools.
DEBIAN_PACKAGES := libssl-dev libcurl4-openssl-dev libsqlite3-dev libhiredis-dev \
                   redis-server lighttpd hyperfine wrk valgrind openssl ca-certificates pkg-config jq sqlite3 curl python3 \
                   libfcgi-dev libfcgi-bin spawn-fcgi nginx chromium chromium-driver systemd

SWIFT ?= swift
FUNCTIONS := $(notdir $(wildcard functions/*))
RELEASE_FLAGS := -c release --static-swift-stdlib
PKI := Tests/Fixtures/pki

.PHONY: help deps build release test test-release demo serve doctor bench fuzz fuzz-ci pki apple-roots clean

help:
	@echo "make demo   - build, show verify-signed-data accepting and rejecting signed data, then a subscription's lifecycle through lighttpd, then the dashboard's address (kept up until Ctrl-C on a terminal)"
	@echo "make serve  - the gateway on 127.0.0.1:8080 with the SQLite default (GATEWAY=nginx|lighttpd MODE=fastcgi|cgi; default: the fastest installed)"
	@echo "make test   - the whole test suite (unit, adapters, black-box binaries, ldd check, short fuzz runs)"
	@echo "make test-release - the binary suites (OCSP, App Store API, examples, link check) on the release build"
	@echo "make doctor - check this deployment's configuration (the caller's environment) without changing anything; NOTIFICATION_URL=https://.../appstore/notifications probes it too"
	@echo "make bench  - release build, then figures: process time, batch time per JWS, peak memory, floors, Apple's Python library"
	@echo "make fuzz   - run each libFuzzer target (FUZZ_SECONDS=60 each by default)"
	@echo "make pki    - regenerate the test PKI under $(PKI), the test receipts under Tests/Fixtures/receipts and the Redis TLS certificates under Tests/Fixtures/redis-tls"
	@echo "make apple-roots - download Apple's root certificates into var/apple-roots (needs internet)"
	@echo "make deps   - install the Debian packages the project needs"

deps:
	@missing=""; for p in $(DEBIAN_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	fi
	@# The fake Apple servers the tests run (Tests/Support/fakes) sign and check JWTs with
	@# Python's cryptography: an implementation independent of ours, so a wrong token fails.
	@python3 -c 'import cryptography' 2>/dev/null || python3 -m pip install -q cryptography
	@# The webhook receiver the deliver-events tests run verifies every delivery with the
	@# standardwebhooks package (PyPI): pure Python, installed into var/python for whichever
	@# python3 the tests find (Debian's refuses a system-wide pip install).
	@test -f var/python/standardwebhooks/__init__.py || python3 -m pip install -q --target var/python standardwebhooks
	@# sign-offer's tests compare its signatures with those of Apple's own Python library
	@# (app-store-server-library, PyPI), installed into var/python with what it needs.
	@test -f var/python/appstoreserverlibrary/jws_signature_creator.py || python3 -m pip install -q --target var/python app-store-server-library
	@# The metrics tests read metrics' answer with prometheus-client's own parser (PyPI).
	@test -f var/python/prometheus_client/parser.py || python3 -m pip install -q --target var/python prometheus-client
	@# The dashboard's browser test drives Debian's chromium through chromium-driver with Selenium
	@# (PyPI), given /usr/bin/chromedriver explicitly: Selenium Manager never downloads a browser.
	@test -f var/python/selenium/webdriver/__init__.py || SE_OFFLINE=true python3 -m pip install -q --target var/python selenium

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build $(RELEASE_FLAGS)

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	$(MAKE) --no-print-directory test-release
	$(MAKE) --no-print-directory fuzz-ci

# The release binaries link libcrypto, SQLite and hiredis statically (Package.swift, `linked`)
# while libcurl, loaded on first use, brings the shared libcrypto: two OpenSSLs in one process.
# So the suites that run the binaries through OCSP, the App Store API (libcurl), the golden
# examples and the link check run again against what `make release` builds, and the container
# image's checks (its COPY sources, the libraries the release binaries load) run on them. The test runner
# itself stays the debug build; only the binaries it starts change (STOREKEEPER_BIN_DIR).
RELEASE_SUITES := OnlineChecksTests AppStoreAPIFunctionTests FunctionContractTests GoldenExampleTests AppleDataTests \
                  ContainerImageTests
test-release: deps release
	$(SWIFT) build --build-tests
	STOREKEEPER_BIN_DIR=$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path) \
	  $(SWIFT) test --skip-build $(addprefix --filter ,$(RELEASE_SUITES))

demo: deps
	@echo "building the functions (release)..."
	@mkdir -p var && $(SWIFT) build $(RELEASE_FLAGS) > var/demo-build.log 2>&1 || { tail -40 var/demo-build.log; exit 1; }
	@BIN=$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path) infra/demo/verify-demo.sh
	@echo
	@BIN=$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path) infra/demo/lifecycle-demo.sh

# The gateway on 127.0.0.1 (PORT, default 8080) with the SQLite default, in the foreground.
# GATEWAY=nginx|lighttpd and MODE=fastcgi|cgi (nginx speaks FastCGI only). By default the
# fastest installed: nginx with FastCGI, else lighttpd with FastCGI (libfcgi), else lighttpd with CGI.
GATEWAY ?=
MODE ?=
serve: deps release
	@bin=$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path); port=$${PORT:-8080}; gateway="$(GATEWAY)"; mode="$(MODE)"; \
	if [ -z "$$gateway" ]; then \
	  if command -v nginx >/dev/null && command -v spawn-fcgi >/dev/null; then gateway=nginx; else gateway=lighttpd; fi; \
	fi; \
	if [ -z "$$mode" ]; then \
	  if [ "$$gateway" = nginx ] || /sbin/ldconfig -p | grep -q 'libfcgi\.so\.0'; then mode=fastcgi; else mode=cgi; fi; \
	fi; \
	case "$$gateway/$$mode" in \
	  nginx/fastcgi) control=infra/nginx/nginx.sh; extra="" ;; \
	  lighttpd/cgi|lighttpd/fastcgi) control=infra/gateway/gateway.sh; extra=$$mode ;; \
	  *) echo "make serve: GATEWAY=nginx|lighttpd, MODE=fastcgi|cgi (nginx: fastcgi only), not $$gateway/$$mode" >&2; exit 64 ;; \
	esac; \
	export STORE_URL=$${STORE_URL:-sqlite:var/storekeeper.db}; \
	$$control start "$$bin" "$$port" var/gateway $$extra || exit 1; \
	echo "$$gateway ($$mode) serving on http://127.0.0.1:$$port (logs in var/gateway/functions.log); Ctrl-C stops"; \
	trap "$$control stop var/gateway" INT TERM EXIT; tail -f var/gateway/functions.log

# The doctor function on the caller's environment, as people read it (--text). The built
# debug binary unless DOCTOR_BIN names a folder of deployed ones (a release build). Its exit
# status is the doctor's (0 nothing wrong, 78 a problem to fix; make itself then says "Error 78").
doctor:
	@bin="$${DOCTOR_BIN:-}"; \
	if [ -z "$$bin" ]; then \
	  mkdir -p var && $(SWIFT) build --product doctor > var/doctor-build.log 2>&1 || { tail -40 var/doctor-build.log; exit 1; }; \
	  bin=$$($(SWIFT) build --show-bin-path); \
	fi; \
	echo '{}' | "$$bin/doctor" --text $${NOTIFICATION_URL:+--notification-url "$$NOTIFICATION_URL"} 2>/dev/null

bench: deps
	@$(SWIFT) build $(RELEASE_FLAGS)
	@BIN=$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path) bench/run.sh

fuzz: deps
	@FUZZ_SECONDS=$${FUZZ_SECONDS:-60} fuzz/run.sh

# The short fuzz run CI makes: each target for a few seconds; any crash, leak or hang fails.
fuzz-ci: deps
	@FUZZ_SECONDS=$${FUZZ_SECONDS:-20} fuzz/run.sh

# New keys and certificates change every signed fixture: the golden examples and the fuzz
# seeds are made again from the new PKI.
pki: build
	$(PKI)/make-pki.sh
	Tests/Fixtures/receipts/make-receipts.sh
	BIN=$$($(SWIFT) build --show-bin-path) Tests/Fixtures/make-examples.sh
	fuzz/make-seeds.sh
	Tests/Fixtures/redis-tls/make-redis-tls.sh

apple-roots:
	infra/apple-roots/fetch.sh var/apple-roots

clean:
	rm -rf .build var/fuzz
