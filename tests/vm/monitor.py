"""monitor.py SOCKET COMMAND: send one command to a QEMU human monitor on a
unix socket and print its answer (for hot-plug requests from the guest)."""
import socket
import sys
import time


def main():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    for _ in range(100):
        try:
            s.connect(sys.argv[1])
            break
        except OSError:
            time.sleep(0.1)
    s.settimeout(5)
    s.recv(4096)                       # the banner and prompt
    s.sendall(sys.argv[2].encode() + b"\n")
    time.sleep(0.3)                    # let QEMU take it before we hang up
    try:
        print(s.recv(4096).decode(errors="replace").strip())
    except OSError:
        pass
    s.close()


main()
