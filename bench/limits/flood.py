"""Slow-connection flood against a `ta serve` (issue 13): N connections that each send a request line a byte a second and
never finish it, reopened when closed, for T seconds; meanwhile GET /health and POST /transcribe every second.
Prints JSON: healthy answers by status, /health latency, and the server log's line counts.
Usage: python bench/limits/flood.py TREE NOFILE N T OUT.json   (TREE: the source tree to run, e.g. /work/main)"""
import asyncio, json, os, subprocess, sys, time
import httpx

tree, nofile, n, seconds, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
port = 18800 + os.getpid() % 100
log_path = os.path.abspath(out.replace('.json', '.log'))
server = subprocess.Popen(['bash', '-c', f'ulimit -Sn {nofile}; ulimit -Hn {nofile}; exec {sys.executable} -c "from ta.server import serve, Settings; '
                           f'raise SystemExit(serve(Settings(port={port})))"'], env={**os.environ, 'PYTHONPATH': tree},
                          stdout=open(log_path, 'w'), stderr=subprocess.STDOUT, cwd=tree)
url = f'http://127.0.0.1:{port}'
while True:
    try:
        if httpx.get(url + '/health', timeout=1).status_code == 200: break
    except httpx.HTTPError: time.sleep(0.2)
wav = open(os.path.join(os.path.dirname(__file__), '../../fixtures/speech.wav'), 'rb').read()
lines_before = sum(1 for _ in open(log_path))

async def slow(end: float):
    while time.monotonic() < end:
        try:
            r, w = await asyncio.open_connection('127.0.0.1', port)
            for b in b'GET /health HTTP/1.1\r\nX-Slow: ' + b'x' * 10000:
                if time.monotonic() > end: break
                w.write(bytes([b])); await w.drain(); await asyncio.sleep(1)
            w.close()
        except (OSError, ConnectionError): await asyncio.sleep(0.05)   # closed by the server: open another

async def healthy(end: float, results: dict):
    async with httpx.AsyncClient(timeout=30) as c:
        while time.monotonic() < end:
            for kind in ('health', 'transcribe'):
                t = time.perf_counter()
                try:
                    r = await (c.get(url + '/health') if kind == 'health' else c.post(url + '/transcribe', content=wav))
                    key = f'{kind} {r.status_code}'
                except httpx.HTTPError as e: key = f'{kind} {type(e).__name__}'
                results.setdefault(key, []).append(round(time.perf_counter() - t, 4))
            await asyncio.sleep(1)

async def main():
    end = time.monotonic() + seconds; results = {}
    await asyncio.gather(*(slow(end) for _ in range(n)), healthy(end, results))
    return results

results = asyncio.run(main())
stats = httpx.get(url + '/stats', timeout=30).json() if 'transcribe 200' in results else None
server.terminate(); server.wait(60)
log = open(log_path).read().splitlines()
summary = {'tree': tree, 'nofile': nofile, 'slow_connections': n, 'seconds': seconds,
           'answers': {k: len(v) for k, v in results.items()},
           'health_latency_s': {'max': max(results.get('health 200', [0])), 'median': sorted(results.get('health 200', [0]))[len(results.get('health 200', [0])) // 2]},
           'log_lines_during_flood': len(log) - lines_before,
           'accept_lines': sum('out of system resource' in l for l in log),
           'connections': (stats or {}).get('connections')}
json.dump(summary, open(out, 'w'), indent=1); print(json.dumps(summary))
