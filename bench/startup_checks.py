"""What the supervisor of `ta serve --http-workers N` imports and spends before it lets its engine process load (issue 9):
fresh-interpreter seconds of `import torch`, of torch's CUDA probe, of `ta.checks` and `ta.server`, and of the supervisor's
whole pre-listen path (`http_workers`, `check_settings`, `check_workers`, `listen_sockets`, as `serve_workers` runs them),
with the heavy modules that path left in `sys.modules`. Usage, from the repository root (PYTHONPATH picks the tree measured):
    PYTHONPATH=. python bench/startup_checks.py OUT.json"""
import json, os, platform, subprocess, sys, time

PRE_GO = '''
import sys, time; t = time.perf_counter()
from ta.settings import Settings
from ta.http_workers import http_workers, check_workers, listen_sockets
try: from ta.checks import check_settings      # this tree
except ImportError: from ta.server import check_settings   # before ta.checks
s = Settings(device="cpu", http_workers=2, port=0); n = http_workers(s)
check_settings(s); check_workers(s, n); listen_sockets(s.host, s.port, n)
print(time.perf_counter() - t, sorted({"torch", "transformers", "fastapi", "uvicorn", "ta.server", "ta.model", "ta.engine"} & set(sys.modules)))
'''
CODES = {'torch': 'import torch', 'torch.cuda.is_available': 'import torch; torch.cuda.is_available()',
         'ta.checks': 'import ta.checks', 'ta.server': 'import ta.server', 'pre_listen_path': PRE_GO}

def wall_s(code: str, repeats: int) -> tuple[float, str]:
    "Median wall seconds of a fresh `python -P -c code` (interpreter start included; -P: `ta` from PYTHONPATH, not the current folder), and its last output."
    runs, out = [], ''
    for _ in range(repeats):
        t = time.perf_counter(); p = subprocess.run([sys.executable, '-P', '-c', code], capture_output=True, text=True)
        runs.append(time.perf_counter() - t); out = p.stdout.strip() or p.stderr.strip()[-200:]
    return round(sorted(runs)[len(runs) // 2], 2), out

if __name__ == '__main__':
    out, repeats = sys.argv[1], 3
    rec = dict(machine=f'{platform.node()}: {platform.machine()}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start',
               command=f"PYTHONPATH={os.environ.get('PYTHONPATH', '')} " + ' '.join(['python', *sys.argv]), repeats=repeats, seconds={}, pre_listen_modules=None)
    for name, code in CODES.items():
        s, printed = wall_s(code, repeats)
        if name == 'pre_listen_path' or 'Error' not in printed: rec['seconds'][name] = s
        if name == 'pre_listen_path': rec['pre_listen_modules'] = printed.split(' ', 1)[1] if ' ' in printed else printed
    print(json.dumps(rec, indent=1))
    if out != '-': open(out, 'w').write(json.dumps(rec, indent=1) + '\n')
