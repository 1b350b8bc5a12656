"""What a drain saves: `ta serve` (the embedded tiny model, this CPU) gets N requests of a long recording at once; once a
share of their chunks is answered it gets SIGINT (Ctrl-C) and has `--drain-s` to finish. Counts the requests answered 200
and 503. The drain time is a fraction of what the whole load takes without a signal, measured first on the same server
tree. Alternates the given trees' `ta` (each a folder holding `ta/`), `python -P`, so two versions meet the same load on
the same machine at the same time (nbs/07_engine "Draining").
Usage: python bench/drain_cpu.py OUT.json TREE [TREE ...]   (e.g. /tmp/before .)"""
import argparse, json, os, re, signal, statistics, subprocess, sys, tempfile, threading, time
from concurrent.futures import ThreadPoolExecutor
import httpx, numpy as np, soundfile as sf

STARTED = re.compile(r'(?:Uvicorn running on|ta serve listening on) (http://\S+)')
SERVE = 'import sys, ta; print("ta from", ta.__file__, flush=True); from ta.cli import main; sys.exit(main())'

def recording(path: str, copies: int) -> bytes:
    "`copies` of fixtures/speech_17s.flac with 0.5 s of silence between them, as WAV bytes."
    a, sr = sf.read('fixtures/speech_17s.flac', dtype='float32')
    gap = np.zeros(sr // 2, np.float32)
    sf.write(path, np.concatenate([x for _ in range(copies) for x in (a, gap)]), sr)
    return open(path, 'rb').read()

def server(tree: str, drain_s: float, log: str):
    "Start `ta serve` from `tree` (its own ta, checked) on a free port: (process, url)."
    env = dict(os.environ, PYTHONPATH=':'.join([tree] + [p for p in sys.path if p]))
    p = subprocess.Popen([sys.executable, '-P', '-c', SERVE, 'serve', '--port', '0', '--drain-s', str(drain_s)], env=env, cwd=tree,
                         stdout=open(log, 'w'), stderr=subprocess.STDOUT, start_new_session=True)
    for _ in range(1200):
        text = open(log).read()
        if (m := STARTED.search(text)): break
        if p.poll() is not None: raise RuntimeError(f'the server ended:\n{text[-2000:]}')
        time.sleep(0.25)
    else: raise RuntimeError(f'the server did not start:\n{text[-2000:]}')
    where = re.search(r'ta from (\S+)', text)[1]
    assert where.startswith(tree + '/'), f'{tree} asked for, {where} imported'
    with httpx.Client() as c:   # ready, and warm: one request through
        while c.get(m[1] + '/health').status_code != 200: time.sleep(0.25)
        assert c.post(m[1] + '/transcribe', content=BODY, timeout=600).status_code == 200
    return p, m[1]

def load(url: str, n: int, when_answered: float | None, p) -> dict:
    "Send n requests at once; with `when_answered`, SIGINT the server once that share of all chunks is answered. Statuses and seconds."
    with httpx.Client() as c: base = c.get(url + '/stats').json()['engine']['chunks']
    t0, statuses = time.perf_counter(), []
    def one(_):
        try: r = httpx.post(url + '/transcribe', content=BODY, timeout=600); statuses.append(r.status_code)
        except httpx.HTTPError as e: statuses.append(type(e).__name__)
    with ThreadPoolExecutor(n) as ex:
        futs = [ex.submit(one, i) for i in range(n)]
        signalled = None
        if when_answered is not None:
            with httpx.Client() as c:
                while c.get(url + '/stats').json()['engine']['chunks'] - base < when_answered * n * CHUNKS: time.sleep(0.02)
            signalled = time.perf_counter() - t0; os.kill(p.pid, signal.SIGINT)
        for f in futs: f.result()
    return dict(seconds=round(time.perf_counter() - t0, 2), signal_at_s=signalled and round(signalled, 2),
                answered_200=statuses.count(200), answered_503=statuses.count(503), other=[s for s in statuses if s not in (200, 503)])

def run(tree: str, a, folder: str) -> dict:
    tree = os.path.abspath(tree)
    p, url = server(tree, 60, f'{folder}/full.log')            # the whole load, no signal: how long it takes
    full = load(url, a.requests, None, p); p.send_signal(signal.SIGINT); p.wait(120)
    drain_s = round(a.drain_share * full['seconds'], 2)
    p, url = server(tree, drain_s, f'{folder}/drain.log')
    cut = load(url, a.requests, a.when_answered, p); p.wait(120)
    return dict(full=full, drain_s=drain_s, drained=cut)

if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('out'); ap.add_argument('trees', nargs='+')
    ap.add_argument('--requests', type=int, default=48); ap.add_argument('--copies', type=int, default=4, help='17.5 s recordings in one request')
    ap.add_argument('--when-answered', type=float, default=0.25, help='share of all chunks answered when SIGINT comes')
    ap.add_argument('--drain-share', type=float, default=0.4, help="--drain-s as a share of the whole load's seconds")
    ap.add_argument('--rounds', type=int, default=2)
    a = ap.parse_args()
    folder = tempfile.mkdtemp(prefix='ta-drain-')
    BODY = recording(f'{folder}/long.wav', a.copies)
    from ta.audio import decode_audio
    from ta.pipeline import split_chunks
    CHUNKS = len(split_chunks(decode_audio(BODY)))
    runs = {}
    for _ in range(a.rounds):
        for tree in a.trees: runs.setdefault(tree, []).append(run(tree, a, folder)); print(tree, runs[tree][-1], flush=True)
    rec = dict(command=' '.join(sys.argv), chunks_per_request=CHUNKS, audio_s_per_request=round(len(BODY) / 32000, 1),
               runs=runs, median_200={t: statistics.median(r['drained']['answered_200'] for r in rs) for t, rs in runs.items()})
    print(json.dumps(rec['median_200'])); json.dump(rec, open(a.out, 'w'), indent=1)
