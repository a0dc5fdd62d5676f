#!/usr/bin/env python3
"""Stand in for systemd's notification socket (sd_notify(3)'s receiving end).

usage: notify_listen.py PATH SECONDS

Binds a unix datagram socket at PATH ("@name": the abstract namespace) and prints every datagram
it receives as one line, its "KEY=VALUE" lines joined by "|", flushed at once. Ends after
SECONDS, or right after a datagram that holds STOPPING=1.
"""
import os
import socket
import sys
import time


def main():
    path, seconds = sys.argv[1], float(sys.argv[2])
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind("\0" + path[1:] if path.startswith("@") else path)
    deadline = time.monotonic() + seconds
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        sock.settimeout(left)
        try:
            data = sock.recv(4096)
        except socket.timeout:
            break
        text = data.decode(errors="replace")
        print("|".join(text.split("\n")), flush=True)
        if "STOPPING=1" in text.split("\n"):
            break
    if not path.startswith("@"):
        os.unlink(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
