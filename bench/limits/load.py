"""A burst of requests against a `ta serve` (tiny model, CPU): C clients x R requests of real recordings (the seven
alsa-utils clips and 60 s of the espeak fixture looped); GET /health every 0.1 s throughout; the server's RSS sampled
every 0.2 s. Prints JSON: RSS idle before, peak, and 15 s / 30 s after the burst; /health latency p50/p99/max; answers by status.
Usage: python bench/limits/load.py TREE C R OUT.json [KEY=VALUE settings ...]   (env MALLOC_ARENA_MAX is passed on)"""
import asyncio, json, os, subprocess, sys, tempfile, time
import httpx

tree, clients, rounds, out, *kv = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], *sys.argv[5:]
port = 18900 + os.getpid() % 100
extra = ''.join(f', {k}={v}' for k, v in (x.split('=', 1) for x in kv))
server = subprocess.Popen([sys.executable, '-c', f'from ta.server import serve, Settings; raise SystemExit(serve(Settings(port={port}{extra})))'],
                          env={**os.environ, 'PYTHONPATH': tree}, cwd=tree, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
url = f'http://127.0.0.1:{port}'
def rss_mb() -> float:
    for line in open(f'/proc/{server.pid}/status'):
        if line.startswith('VmRSS:'): return int(line.split()[1]) / 1024
while True:
    try:
        if httpx.get(url + '/health', timeout=1).status_code == 200: break
    except httpx.HTTPError: time.sleep(0.2)
here = os.path.dirname(os.path.abspath(__file__))
long = tempfile.mktemp(suffix='.mp3')
subprocess.run(['ffmpeg', '-nostdin', '-loglevel', 'error', '-stream_loop', '-1', '-i', f'{here}/../../fixtures/speech.wav', '-t', '60', '-b:a', '32k', long], check=True)
files = [open(f'/usr/share/sounds/alsa/{n}.wav', 'rb').read() for n in ('Front_Center', 'Front_Left', 'Front_Right', 'Rear_Left', 'Rear_Right', 'Side_Left', 'Noise')]
files.append(open(long, 'rb').read())
time.sleep(5); idle_before = rss_mb()

async def main():
    answers, health, rss, done = {}, [], [], asyncio.Event()
    async def client(i):
        async with httpx.AsyncClient(timeout=600) as c:
            for r in range(rounds):
                resp = await c.post(url + '/transcribe', content=files[(i + r) % len(files)])
                answers[resp.status_code] = answers.get(resp.status_code, 0) + 1
    async def probe():
        async with httpx.AsyncClient(timeout=60) as c:
            while not done.is_set():
                t = time.perf_counter(); await c.get(url + '/health'); health.append(time.perf_counter() - t)
                rss.append(rss_mb()); await asyncio.sleep(0.1)
    p = asyncio.create_task(probe()); t0 = time.perf_counter()
    await asyncio.gather(*(client(i) for i in range(clients)))
    wall = time.perf_counter() - t0; done.set(); await p
    return answers, health, rss, wall

answers, health, rss, wall = asyncio.run(main())
after = {}
for s in (15, 30): time.sleep(s - sum(after and [15] or [])); after[s] = rss_mb()
server.terminate(); server.wait(60)
q = sorted(health)
summary = {'tree': tree, 'settings': kv, 'MALLOC_ARENA_MAX': os.environ.get('MALLOC_ARENA_MAX'), 'clients': clients, 'rounds': rounds,
           'answers': answers, 'burst_s': round(wall, 1), 'rss_mb': {'idle_before': round(idle_before), 'peak': round(max(rss)),
           'after_15s': round(after[15]), 'after_30s': round(after[30])},
           'health_s': {'n': len(q), 'p50': round(q[len(q) // 2], 4), 'p99': round(q[int(len(q) * 0.99)], 4), 'max': round(q[-1], 4)}}
json.dump(summary, open(out, 'w'), indent=1); print(json.dumps(summary))
