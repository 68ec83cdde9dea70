#!/usr/bin/env python3
"""A small HTTP(S) server on loopback for the HTTP transport tests. Standard library only.

    test_server.py [--tls DIR] [--san SAN] [--cleanup DIR]

Listens on 127.0.0.1 on a free port and prints the port as its first stdout line. With
--tls, it first makes a test CA and a server certificate with the `openssl` CLI in DIR
(DIR/ca.pem is the CA to trust; the server certificate names IP:127.0.0.1 and
DNS:localhost, or SAN when given) and serves HTTPS.

It exits when its stdin closes (removing the --cleanup DIR), so a test process that dies
never leaves it behind.

Endpoints (any method):
    /status/<code>[?retry_after=S]  that status, a small JSON body; 429 and 503 add Retry-After
    /echo                           JSON: method, path, headers (in order), body (base64),
                                    client_port (the same port twice means a reused connection)
    /slow/<ms>                      waits, then answers 200
    /bytes/<n>[?chunked=1|truncate=1]  n bytes; chunked without Content-Length; truncate
                                    declares n but closes after n/2
    /redirect/<n>[?to=URL]          302 to /redirect/<n-1>; /redirect/1 goes to /echo, or to URL
    /hang                           reads, never answers, until the client goes away
    /drop[?reset=1]                 closes the connection without answering or reading the
                                    body (reset: RST)
"""

import argparse
import base64
import http.server
import json
import os
import shutil
import signal
import socket
import ssl
import struct
import subprocess
import sys
import threading
import time
from urllib.parse import parse_qs, urlsplit

CHUNK = 64 * 1024


def make_certificates(directory, san):
    """A CA and a server certificate signed by it, valid for two days."""
    def openssl(*args):
        subprocess.run(["openssl", *args], cwd=directory, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl("req", "-x509", *curve, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
            "-subj", "/CN=Storekeeper Test HTTP CA",
            "-addext", "basicConstraints=critical,CA:TRUE",
            "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    openssl("req", "-new", *curve, "-keyout", "server.key", "-out", "server.csr",
            "-subj", "/CN=Storekeeper Test HTTP Server")
    with open(os.path.join(directory, "server.ext"), "w") as extensions:
        extensions.write("basicConstraints=CA:FALSE\n"
                         "keyUsage=critical,digitalSignature\n"
                         "extendedKeyUsage=serverAuth\n"
                         f"subjectAltName={san}\n")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
            "-set_serial", str(int.from_bytes(os.urandom(8), "big")), "-days", "2",
            "-extfile", "server.ext", "-out", "server.pem")
    return os.path.join(directory, "server.pem"), os.path.join(directory, "server.key")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, so client connection reuse is exercised

    def __getattr__(self, name):
        # BaseHTTPRequestHandler dispatches to do_<METHOD>; every method gets the same routes.
        if name.startswith("do_"):
            return self.route
        raise AttributeError(name)

    def setup(self):
        super().setup()
        if isinstance(self.connection, ssl.SSLSocket):
            # Handshake here, in the connection's own thread, not in the accept loop.
            self.connection.settimeout(10)
            self.connection.do_handshake()
            self.connection.settimeout(None)

    def log_message(self, format, *args):
        pass

    def route(self):
        url = urlsplit(self.path)
        query = {key: values[-1] for key, values in parse_qs(url.query).items()}
        parts = [part for part in url.path.split("/") if part]
        name = parts[0] if parts else ""
        try:
            argument = int(parts[1]) if len(parts) > 1 else None
            # /drop leaves the body unread, so a client still sending it hits a closed socket.
            body = b"" if name == "drop" else self.read_body()
            if name == "status" and argument is not None:
                self.status(argument, query)
            elif name == "echo":
                self.echo(body)
            elif name == "slow" and argument is not None:
                time.sleep(argument / 1000)
                self.reply(200, {"slept_ms": argument})
            elif name == "bytes" and argument is not None:
                self.send_bytes(argument, query)
            elif name == "redirect" and argument is not None:
                target = f"/redirect/{argument - 1}" if argument > 1 else query.get("to", "/echo")
                self.reply(302, {"redirect": target},
                           [("Location", target), ("X-Redirect-Hop", str(argument))])
            elif name == "hang":
                self.hang()
            elif name == "drop":
                self.drop(query)
            else:
                self.reply(404, {"error": "no such endpoint"})
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
            # The client gave up (a timeout or size cap in a test): nothing to answer.
            self.close_connection = True

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def reply(self, status, document, headers=()):
        data = json.dumps(document).encode()
        bodyless = status in (204, 304) or 100 <= status < 200
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if not bodyless:
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if not bodyless and self.command != "HEAD":
            self.wfile.write(data)

    def status(self, code, query):
        headers = []
        if code in (429, 503):
            headers.append(("Retry-After", query.get("retry_after", "1")))
        self.reply(code, {"status": code}, headers)

    def echo(self, body):
        self.reply(200, {
            "method": self.command,
            "path": self.path,
            "headers": [[name, value] for name, value in self.headers.items()],
            "body": base64.b64encode(body).decode(),
            "client_port": self.client_address[1],  # the same port means a reused connection
        })

    def send_bytes(self, count, query):
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        chunked = query.get("chunked") == "1"
        truncate = query.get("truncate") == "1"
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Content-Length", str(count))
        self.end_headers()
        if self.command == "HEAD":
            return
        remaining = count // 2 if truncate else count
        block = b"x" * CHUNK
        while remaining > 0:
            piece = block[:min(CHUNK, remaining)]
            if chunked:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            else:
                self.wfile.write(piece)
            remaining -= len(piece)
        if chunked:
            self.wfile.write(b"0\r\n\r\n")
        if truncate:
            self.close_connection = True

    def hang(self):
        self.close_connection = True
        while self.connection.recv(4096):
            pass

    def drop(self, query):
        self.close_connection = True
        if query.get("reset") == "1":
            # Linger 0: close sends RST instead of FIN.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64

    def handle_error(self, request, client_address):
        # Clients that fail the TLS handshake or vanish are part of the tests, not news;
        # anything else is a bug here, and its traceback goes to stderr (the test's log).
        if isinstance(sys.exc_info()[1], (ConnectionError, ssl.SSLError, TimeoutError)):
            return
        super().handle_error(request, client_address)


def exit_when_stdin_closes(cleanup):
    try:
        while sys.stdin.buffer.read(4096):
            pass
    finally:
        if cleanup:
            shutil.rmtree(cleanup, ignore_errors=True)
        os._exit(0)


def unblock_signals():
    """A parent may start us from a thread that blocks signals (Swift's Foundation does), and
    the mask survives exec: undo it, so SIGTERM ends us. Inherited descriptors are left open
    on purpose: Foundation watches one of them to learn that we have exited."""
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, signal.SIG_DFL)


def main():
    parser = argparse.ArgumentParser(description="HTTP(S) test server on loopback")
    parser.add_argument("--tls", metavar="DIR", help="serve HTTPS; write the test CA to DIR/ca.pem")
    parser.add_argument("--san", default="IP:127.0.0.1,DNS:localhost",
                        help="subjectAltName of the server certificate")
    parser.add_argument("--cleanup", metavar="DIR", help="remove DIR on exit")
    arguments = parser.parse_args()
    unblock_signals()

    server = Server(("127.0.0.1", 0), Handler)
    if arguments.tls:
        certificate, key = make_certificates(arguments.tls, arguments.san)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certificate, key)
        server.socket = context.wrap_socket(server.socket, server_side=True,
                                            do_handshake_on_connect=False)

    threading.Thread(target=exit_when_stdin_closes, args=(arguments.cleanup,), daemon=True).start()
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
