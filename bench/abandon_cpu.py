"""What a request's 504 leaves behind: `ta serve --request-timeout-s 12` (the embedded tiny model, this CPU) gets a
12-minute recording (40 copies of fixtures/speech_17s.flac) asking for srt, so its word alignments are queued on the
CPU pool when the deadline passes; then the server's CPU seconds over the next 8 s and a 17.5 s request's time.
Alternates the given trees' `ta` (each a folder holding `ta/`), as bench/drain_cpu.py does (nbs/08c_openai_api, `_abandon`).
Usage: python bench/abandon_cpu.py OUT.json TREE [TREE ...]   (e.g. /tmp/before .)"""
import argparse, json, os, subprocess, sys, tempfile, time
import httpx
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import drain_cpu   # its `recording`, `SERVE` and `STARTED`

def cpu_seconds(pid: int) -> float:
    "User + system CPU seconds of process `pid` so far (/proc/PID/stat)."
    return sum(int(x) for x in open(f'/proc/{pid}/stat').read().split()[13:15]) / os.sysconf('SC_CLK_TCK')

def one(tree: str, long: bytes, short: bytes, log: str) -> dict:
    "Start `ta serve` from `tree`, send the srt request, then measure: its status and seconds, CPU seconds in the 8 s after, the short request's seconds."
    p = subprocess.Popen([sys.executable, '-P', '-c', drain_cpu.SERVE, 'serve', '--port', '0', '--request-timeout-s', '12'],
                         env=dict(os.environ, PYTHONPATH=tree), cwd=tree, stdout=open(log, 'w'), stderr=subprocess.STDOUT, start_new_session=True)
    try:
        while not (m := drain_cpu.STARTED.search(open(log).read())): time.sleep(0.25)
        while httpx.get(m[1] + '/health').status_code != 200: time.sleep(0.25)
        t = time.perf_counter()
        r = httpx.post(m[1] + '/v1/audio/transcriptions', files={'file': ('long.wav', long)}, data={'response_format': 'srt'}, timeout=100)
        out = dict(status=r.status_code, seconds=round(time.perf_counter() - t, 2))
        c0 = cpu_seconds(p.pid); time.sleep(8); out['cpu_s_in_8_s_after'] = round(cpu_seconds(p.pid) - c0, 2)
        t = time.perf_counter(); r = httpx.post(m[1] + '/transcribe', content=short, timeout=100)
        out.update(short_status=r.status_code, short_seconds=round(time.perf_counter() - t, 2))
        return out
    finally: p.send_signal(2); p.wait(30)

if __name__ == '__main__':
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('out'); ap.add_argument('trees', nargs='+'); ap.add_argument('--rounds', type=int, default=2)
    a = ap.parse_args()
    folder = tempfile.mkdtemp(prefix='ta-abandon-')
    short, long = drain_cpu.recording(f'{folder}/short.wav', 1), drain_cpu.recording(f'{folder}/long.wav', 40)
    runs = {}
    for _ in range(a.rounds):
        for tree in a.trees:
            runs.setdefault(tree, []).append(one(os.path.abspath(tree), long, short, f'{folder}/serve.log')); print(tree, runs[tree][-1], flush=True)
    json.dump(dict(command=' '.join(sys.argv), runs=runs), open(a.out, 'w'), indent=1)
