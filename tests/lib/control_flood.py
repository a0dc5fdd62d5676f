#!/usr/bin/env python3
"""Idle connections against cloudsmd's control socket, for tests/integration/cloudsmd_control.sh.

control_flood.py SOCKET COUNT SECONDS [--reopen]

Holds COUNT connections that never send a byte for SECONDS. With --reopen, a connection the
daemon closes (it drops idle ones at their request deadline) or that could not connect yet (the
backlog is full) is opened again at once, so the daemon's table and backlog stay full the whole
time. Prints one line: connections opened, refused by a full backlog, and closed by the daemon
with an "error: " line.
"""
import errno
import socket
import sys
import time

path, count, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
reopen = "--reopen" in sys.argv[4:]
slots = [None] * count
opened = backlog_full = dropped_with_error = 0
tried = [False] * count
end = time.monotonic() + seconds
while time.monotonic() < end:
    for i in range(count):
        s = slots[i]
        if s is None:
            if tried[i] and not reopen:
                continue
            tried[i] = True
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.setblocking(False)
            try:
                s.connect(path)
            except OSError as e:
                s.close()
                if e.errno in (errno.EAGAIN, errno.EWOULDBLOCK):
                    backlog_full += 1
                    tried[i] = False  # not connected: try again
                    continue
                raise
            slots[i] = s
            opened += 1
            continue
        try:
            data = s.recv(4096)
        except BlockingIOError:
            continue
        if data.startswith(b"error: "):
            dropped_with_error += 1
        s.close()
        slots[i] = None
    time.sleep(0.01)
for s in slots:
    if s is not None:
        s.close()
print(f"opened {opened} backlog_full {backlog_full} dropped_with_error {dropped_with_error}")
