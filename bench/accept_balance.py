"""How a running `ta serve --http-workers N` shares a burst of new connections between its worker processes: opens
`connections` at once to 127.0.0.1:port, sends GET /health on each, then counts the ones each worker holds (Linux /proc).
    python bench/accept_balance.py SUPERVISOR_PID PORT [CONNECTIONS=32] [TRIES=5] [OUT.json]"""
import json, socket, sys
from pathlib import Path
from ta.http_workers import held_connections

def workers(pid: int) -> list[int]:
    "The HTTP worker processes among the children of `pid` (named ta-http-N)."
    kids = [int(p) for p in Path(f'/proc/{pid}/task/{pid}/children').read_text().split()]
    return [p for p in kids if Path(f'/proc/{p}/comm').read_text().startswith('ta-http')]

def burst(pid: int, port: int, n: int) -> list[int]:
    "Connections each worker holds after `n` opened at once (largest first)."
    socks = [socket.create_connection(('127.0.0.1', port), timeout=60) for _ in range(n)]
    for s in socks: s.sendall(f'GET /health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n'.encode())
    for s in socks: s.recv(65536)   # answered, so accepted
    held = sorted((held_connections(w, port) for w in workers(pid)), reverse=True)
    for s in socks: s.close()
    return held

if __name__ == '__main__':
    pid, port = int(sys.argv[1]), int(sys.argv[2])
    n, tries = (int(sys.argv[3]) if len(sys.argv) > 3 else 32), (int(sys.argv[4]) if len(sys.argv) > 4 else 5)
    rec = dict(connections=n, held_per_worker=[burst(pid, port, n) for _ in range(tries)])
    print(json.dumps(rec))
    if len(sys.argv) > 5: Path(sys.argv[5]).write_text(json.dumps(rec, indent=1))
