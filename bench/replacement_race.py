"""Stop 37 (nbs/08f_http_workers, "One socket per worker"): does a replacement HTTP worker answer 503 "still loading"?
`ta serve --http-workers 2 --device cpu` (the `ta` on PYTHONPATH, run with -P so the working directory does not shadow
it); as soon as /health says ready, kill HTTP worker 0; once the supervisor has started another, 8 requests on new
connections. Prints and writes the statuses per round:
    git archive <before> ta | tar -x -C /tmp/race_before
    PYTHONPATH=/tmp/race_before python bench/replacement_race.py 3 before.json   # then without PYTHONPATH: this tree
"""
import json, os, signal, subprocess, sys, tempfile, time
from pathlib import Path
import httpx
from ta.service import launch

def one_round(tmp: Path) -> list[int]:
    argv = [sys.executable, '-P', '-c', 'import sys; from ta.cli import main; sys.exit(main())', 'serve', '--http-workers', '2',
            '--device', 'cpu', '--port', '0']
    proc, url = launch(argv, tmp / 'serve.log', start_new_session=True)
    try:
        while True:
            try:
                if httpx.get(url + '/health', timeout=5).json().get('status') == 'ready': break
            except httpx.HTTPError: pass
            time.sleep(0.05)
        kids = subprocess.run(['pgrep', '-P', str(proc.pid)], capture_output=True, text=True).stdout.split()
        os.kill(next(int(p) for p in kids if Path(f'/proc/{p}/comm').read_text().strip() == 'ta-http-0'), signal.SIGKILL)
        while 'starting another' not in (tmp / 'serve.log').read_text(): time.sleep(0.05)
        body = Path('/usr/share/sounds/alsa/Front_Center.wav').read_bytes()
        return [httpx.post(url + '/transcribe', content=body, headers={'content-type': 'audio/wav'}, timeout=300).status_code for _ in range(8)]
    finally:
        os.killpg(proc.pid, signal.SIGTERM); proc.wait(60)

if __name__ == '__main__':
    import ta
    rounds, out = int(sys.argv[1]), sys.argv[2]
    rec = dict(ta=os.path.dirname(ta.__file__), rounds=[])
    for _ in range(rounds):
        rec['rounds'].append(one_round(Path(tempfile.mkdtemp()))); print(rec['rounds'][-1], flush=True)
    Path(out).write_text(json.dumps(rec) + '\n'); print(rec)
