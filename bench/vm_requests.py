#!/usr/bin/env python3
"""Time VM requests to a running cloudsmd, from the request to the answer, for bench/vm_live.

vm_requests.py SOCKET < requests

Each line of standard input is one control request (docs/sm/control.md), such as
"vm-migrate web-1 0x0010000000000100 --json". For each: connect to SOCKET, send the line, read
the answer until cloudsmd closes the connection, and print one line: the microseconds from the
connect to the end of the answer, the status line, and the body on one line. The client is a
persistent process, so no program start-up is counted: what an orchestrator holding a connection
library would see.
"""
import socket
import sys
import time

path = sys.argv[1]
for line in sys.stdin:
    request = line.strip()
    if not request:
        continue
    start = time.monotonic_ns()
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall((request + "\n").encode())
    chunks = []
    while True:
        data = s.recv(65536)
        if not data:
            break
        chunks.append(data)
    s.close()
    elapsed_us = (time.monotonic_ns() - start) // 1000
    reply = b"".join(chunks).decode(errors="replace")
    status, _, body = reply.partition("\n")
    print(elapsed_us, status, " ".join(body.split()), flush=True)
