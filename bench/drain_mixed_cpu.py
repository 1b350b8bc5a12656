"""A drain beside a long recording: `ta serve` (the embedded tiny model, this CPU, `--drain-s` 10 by default) gets one
request of a long recording, then, once its first chunks are admitted, N requests of one 17.5 s chunk each; SIGINT
(Ctrl-C) follows `--signal-after-s` after all N are in flight. Counts the short requests answered 200 and 503, and the long one's status and when it came after the signal.
Alternates the given trees' `ta` (each a folder holding `ta/`), as bench/drain_cpu.py does (nbs/07_engine "Dropping what
cannot finish"; stop 52's fresh user saw every request of such a load answered 503).
Usage: python bench/drain_mixed_cpu.py OUT.json TREE [TREE ...]   (e.g. /tmp/before .)"""
import argparse, json, os, signal, statistics, sys, tempfile, time
from concurrent.futures import ThreadPoolExecutor
import httpx
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import drain_cpu   # its `recording` and `server`

def load(url: str, p, long_body: bytes, short_body: bytes, n: int, after_s: float) -> dict:
    "The long request, then n short ones once its first chunks are admitted, then SIGINT `after_s` later: statuses and seconds."
    def post(body):
        try: return httpx.post(url + '/transcribe', content=body, timeout=900).status_code
        except httpx.HTTPError as e: return type(e).__name__
        finally: ended[body is long_body] = time.perf_counter()   # the last of its kind to end: the long one's own time
    with httpx.Client() as c: base = c.get(url + '/stats').json()['engine']['admitted_chunks']
    ended = {}
    with ThreadPoolExecutor(n + 1) as ex:
        t0 = time.perf_counter(); long = ex.submit(post, long_body)
        with httpx.Client() as c:   # its first chunks in the pool: the short ones wait for rows
            while c.get(url + '/stats').json()['engine']['admitted_chunks'] == base: time.sleep(0.05)
        shorts = [ex.submit(post, short_body) for _ in range(n)]
        with httpx.Client() as c:   # every short request in flight before the signal: none refused for arriving late
            while c.get(url + '/stats').json()['inflight']['requests'] < n + 1: time.sleep(0.05)
        time.sleep(after_s); signalled = time.perf_counter() - t0; os.kill(p.pid, signal.SIGINT)
        statuses = [f.result() for f in shorts]; long_status = long.result()
        return dict(seconds=round(time.perf_counter() - t0, 2), signal_at_s=round(signalled, 2), long=long_status,
                    long_answered_after_signal_s=round(ended[True] - t0 - signalled, 2),
                    short_200=statuses.count(200), short_503=statuses.count(503), other=[s for s in statuses if s not in (200, 503)])

if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('out'); ap.add_argument('trees', nargs='+')
    ap.add_argument('--requests', type=int, default=32, help='short requests of one 17.5 s chunk')
    ap.add_argument('--long-copies', type=int, default=100, help='17.5 s recordings in the long request (100: 29 minutes)')
    ap.add_argument('--signal-after-s', type=float, default=1.0); ap.add_argument('--drain-s', type=float, default=10.0)
    ap.add_argument('--rounds', type=int, default=2)
    a = ap.parse_args()
    folder = tempfile.mkdtemp(prefix='ta-drain-mixed-')
    drain_cpu.BODY = short = drain_cpu.recording(f'{folder}/short.wav', 1)   # also `server`'s warm-up request
    long = drain_cpu.recording(f'{folder}/long.wav', a.long_copies)
    runs = {}
    for _ in range(a.rounds):
        for tree in a.trees:
            p, url = drain_cpu.server(os.path.abspath(tree), a.drain_s, f'{folder}/serve.log')
            runs.setdefault(tree, []).append(load(url, p, long, short, a.requests, a.signal_after_s)); p.wait(120)
            print(tree, runs[tree][-1], flush=True)
    rec = dict(command=' '.join(sys.argv), long_audio_s=round(len(long) / 32000, 1), runs=runs,
               median_short_200={t: statistics.median(r['short_200'] for r in rs) for t, rs in runs.items()})
    print(json.dumps(rec['median_short_200'])); json.dump(rec, open(a.out, 'w'), indent=1)
