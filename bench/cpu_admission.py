"""Throughput of `ta serve` on this CPU (the embedded tiny model): 64 requests of one 17.5 s chunk sent at once, then 16
of four such chunks (72 s); RTFx = audio seconds / wall seconds. Alternates the given trees' `ta` (each a folder holding
`ta/`), as bench/drain_cpu.py does (nbs/07_engine "Admissions on a CPU": at most `CPU_ADMISSION` chunks an admission).
Usage: python bench/cpu_admission.py OUT.json TREE [TREE ...]   (e.g. /tmp/before .)"""
import argparse, json, os, sys, tempfile, time
from concurrent.futures import ThreadPoolExecutor
import httpx
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import drain_cpu   # its `recording` and `server`

def burst(url: str, body: bytes, n: int) -> dict:
    "n requests of `body` at once: wall seconds, RTFx, and how many were answered 200."
    t = time.perf_counter()
    with ThreadPoolExecutor(n) as ex:
        codes = list(ex.map(lambda _: httpx.post(url + '/transcribe', content=body, timeout=900).status_code, range(n)))
    wall = time.perf_counter() - t
    return dict(wall_s=round(wall, 2), rtfx=round(n * (len(body) - 44) / 32000 / wall, 1), ok=codes.count(200))

if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('out'); ap.add_argument('trees', nargs='+'); ap.add_argument('--rounds', type=int, default=2)
    a = ap.parse_args()
    folder = tempfile.mkdtemp(prefix='ta-cpu-admission-')
    drain_cpu.BODY = short = drain_cpu.recording(f'{folder}/short.wav', 1)   # also `server`'s warm-up request
    four = drain_cpu.recording(f'{folder}/four.wav', 4)
    runs = {}
    for _ in range(a.rounds):
        for tree in a.trees:
            p, url = drain_cpu.server(os.path.abspath(tree), 10, f'{folder}/serve.log')
            runs.setdefault(tree, []).append({'64 x 17.5 s': burst(url, short, 64), '16 x 72 s': burst(url, four, 16)})
            p.send_signal(2); p.wait(60); print(tree, runs[tree][-1], flush=True)
    json.dump(dict(command=' '.join(sys.argv), runs=runs), open(a.out, 'w'), indent=1)
