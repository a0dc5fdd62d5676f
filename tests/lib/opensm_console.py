#!/usr/bin/env python3
"""Run commands on OpenSM's console (`console loopback`, `console_port PORT` in its config).

usage: opensm_console.py PORT COMMAND...

For each command, prints a line "@@@ COMMAND" and then what the console answered, without its
"OpenSM $ " prompt. The console answers a line at a time and ends each answer with the prompt;
an answer is complete when the prompt comes back. Exit status 1 if the console cannot be reached
or does not answer within 10 s.
"""
import socket
import sys
import time

PROMPT = b"OpenSM $ "


def read_to_prompt(sock, deadline):
    data = b""
    while not data.endswith(PROMPT):
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("no prompt from OpenSM's console")
        sock.settimeout(left)
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("OpenSM's console closed the connection")
        data += chunk
    return data[: -len(PROMPT)]


def main():
    port, commands = int(sys.argv[1]), sys.argv[2:]
    try:
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        read_to_prompt(sock, time.monotonic() + 10)  # the greeting
        for command in commands:
            sock.sendall(command.encode() + b"\n")
            answer = read_to_prompt(sock, time.monotonic() + 10)
            sys.stdout.write("@@@ " + command + "\n")
            sys.stdout.write(answer.decode(errors="replace"))
        sock.sendall(b"quit\n")
        sock.close()
    except (OSError, TimeoutError, ConnectionError) as e:
        print("opensm_console.py: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
