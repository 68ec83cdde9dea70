#!/usr/bin/env python3
"""Slow clients for the gateway tests and `make bench`. Standard library only.

    slow_clients.py --port P [--count 300] [--path /appstore/notifications] [--interval 1]
                    [--stop-file F] [--hold-at-most 60] [--wait-closed 30]

Opens COUNT connections to 127.0.0.1:P, sends each a request head announcing a body and then
one byte of it, and trickles one more byte on every connection each INTERVAL seconds: the
"slowloris" shape, a request that is never finished and never quite idle. It trickles until
STOP-FILE exists (or HOLD-AT-MOST seconds passed), then goes silent and waits up to
WAIT-CLOSED seconds for the server to close the connections on its own (EOF or reset).

Prints JSON lines on stdout, flushed:
    {"event": "open", "opened": N, "failed": F}      once every connection is open and started
    {"event": "done", "opened": N, "closedWhileTrickling": A, "closedAfterSilence": B,
     "stillOpen": C, "secondsToLastClose": S}       at the end
"""

import argparse
import json
import os
import selectors
import socket
import sys
import time


def emit(**fields):
    sys.stdout.write(json.dumps(fields) + "\n")
    sys.stdout.flush()


def closed_by_peer(connection):
    """True when the server has closed (EOF, reset) the connection; reads what it sent."""
    try:
        data = connection.recv(65536)
    except BlockingIOError:
        return False
    except OSError:
        return True
    # An answer (408, 400) may come before the close: keep reading until EOF.
    return data == b""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--path", default="/appstore/notifications")
    parser.add_argument("--interval", type=float, default=1.0)
    parser.add_argument("--stop-file")
    parser.add_argument("--hold-at-most", type=float, default=60.0)
    parser.add_argument("--wait-closed", type=float, default=30.0)
    arguments = parser.parse_args()

    head = (
        f"POST {arguments.path} HTTP/1.1\r\nHost: {arguments.host}:{arguments.port}\r\n"
        "Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"
    ).encode()
    selector = selectors.DefaultSelector()
    connections = []
    failed = 0
    for _ in range(arguments.count):
        connection = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        connection.settimeout(10)
        try:
            connection.connect((arguments.host, arguments.port))
            connection.sendall(head)
        except OSError:
            failed += 1
            connection.close()
            continue
        connection.setblocking(False)
        selector.register(connection, selectors.EVENT_READ)
        connections.append(connection)
    emit(event="open", opened=len(connections), failed=failed)

    open_ones = set(connections)

    def reap(timeout):
        """Drops the connections the server closed; returns how many."""
        closed = 0
        for key, _ in selector.select(timeout):
            connection = key.fileobj
            if connection in open_ones and closed_by_peer(connection):
                selector.unregister(connection)
                connection.close()
                open_ones.discard(connection)
                closed += 1
        return closed

    # Trickle: one byte on each connection per interval, until told to stop.
    closed_while_trickling = 0
    started = time.monotonic()
    while time.monotonic() - started < arguments.hold_at_most:
        if arguments.stop_file and os.path.exists(arguments.stop_file):
            break
        for connection in list(open_ones):
            try:
                connection.send(b" ")
            except BlockingIOError:
                pass
            except OSError:
                selector.unregister(connection)
                connection.close()
                open_ones.discard(connection)
                closed_while_trickling += 1
        tick = time.monotonic()
        while True:
            left = arguments.interval - (time.monotonic() - tick)
            if left <= 0:
                break
            closed_while_trickling += reap(left)

    # Silence: the server's idle timeout should now close every one of them.
    silent = time.monotonic()
    closed_after_silence = 0
    last_close = None
    while open_ones and time.monotonic() - silent < arguments.wait_closed:
        closed = reap(0.2)
        if closed:
            closed_after_silence += closed
            last_close = time.monotonic() - silent
    emit(event="done", opened=len(connections), closedWhileTrickling=closed_while_trickling,
         closedAfterSilence=closed_after_silence, stillOpen=len(open_ones),
         secondsToLastClose=None if last_close is None else round(last_close, 2))
    for connection in open_ones:
        connection.close()


if __name__ == "__main__":
    main()
