"""CPU seconds the HTTP front of `ta serve --engine-process on` spends per request, and its engine process beside it:
python bench/front_cpu.py OUT.json [requests] [concurrency]. The tiny model on CPU, fixtures/speech_17s.flac, a real
server on loopback (ta.service.launch, port 0) and one httpx client process. /proc/<pid>/stat user+system time, before
and after the timed requests (a warm-up of 8 first)."""
import asyncio, json, os, subprocess, sys, tempfile, time
from pathlib import Path
import httpx
from ta.service import launch, wait_healthy

def cpu_s(pid: int) -> float:
    f = open(f'/proc/{pid}/stat').read().rsplit(')', 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf('SC_CLK_TCK')

async def send(url: str, body: bytes, n: int, conc: int):
    sem = asyncio.Semaphore(conc)
    async with httpx.AsyncClient(timeout=600) as c:
        async def one():
            async with sem:
                r = await c.post(url + '/transcribe', content=body, headers={'content-type': 'audio/flac'})
                assert r.status_code == 200, r.text
        await asyncio.gather(*(one() for _ in range(n)))

def main(out: str, n: int = 100, conc: int = 16):
    body = Path(__file__).parent.parent.joinpath('fixtures', 'speech_17s.flac').read_bytes()
    proc, url = launch(['ta', 'serve', '--engine-process', 'on', '--port', '0'], Path(tempfile.mkdtemp()) / 'serve.log')
    try:
        wait_healthy(url, proc)
        child = int(subprocess.run(['pgrep', '-P', str(proc.pid), '-f', 'spawn_main'], capture_output=True, text=True).stdout.split()[0])
        asyncio.run(send(url, body, 8, 8))
        f0, e0, t0 = cpu_s(proc.pid), cpu_s(child), time.perf_counter()
        asyncio.run(send(url, body, n, conc))
        f1, e1, wall = cpu_s(proc.pid), cpu_s(child), time.perf_counter() - t0
    finally: proc.terminate(); proc.wait(30)
    rec = dict(requests=n, concurrency=conc, audio='fixtures/speech_17s.flac', wall_s=round(wall, 3), cpu_count=os.cpu_count(),
               front_cpu_ms_per_request=round(1e3 * (f1 - f0) / n, 2), engine_cpu_ms_per_request=round(1e3 * (e1 - e0) / n, 2))
    Path(out).write_text(json.dumps(rec, indent=1) + '\n'); print(rec)

if __name__ == '__main__': main(sys.argv[1], *map(int, sys.argv[2:]))
