"""Seconds from launching `ta serve` to its log's 'listening' line, its 'model ... on' line (the engine process has the
model loaded) and, unless --until-loaded, to /health answering ready (issue 9). Usage, from the repository root
(PYTHONPATH picks the tree measured; the server is stopped at the end):
    PYTHONPATH=. python bench/startup_serve.py OUT.json [--until-loaded] -- ta serve --http-workers 2 --device cpu --port 8123"""
import json, os, platform, re, signal, subprocess, sys, threading, time, urllib.request

MARKS = {'listening': re.compile(r'ta serve listening on'), 'model_loaded': re.compile(r'ta\.server: model .* on ')}

def _read(proc, t0: float, seen: dict, lines: list):
    "Time each mark's first line in the server's output (seconds after launch)."
    for line in proc.stdout:
        lines.append(line)
        for k, rx in MARKS.items():
            if k not in seen and rx.search(line): seen[k] = round(time.perf_counter() - t0, 2)

def healthy(port: int) -> bool:
    try: return json.load(urllib.request.urlopen(f'http://127.0.0.1:{port}/health', timeout=1)).get('status') == 'ready'
    except Exception: return False

def run(argv: list[str], until_loaded: bool, limit_s: float = 900) -> dict:
    "Launch `argv`, wait for its marks (and readiness), stop it; the marks in seconds after launch."
    port = int(argv[argv.index('--port') + 1])
    t0, seen, lines = time.perf_counter(), {}, []
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    threading.Thread(target=_read, args=(proc, t0, seen, lines), daemon=True).start()
    while time.perf_counter() - t0 < limit_s and proc.poll() is None:
        if until_loaded and 'model_loaded' in seen: break
        if not until_loaded and healthy(port): seen['healthy'] = round(time.perf_counter() - t0, 2); break
        time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGKILL); proc.wait()
    if not seen: print(''.join(lines[-30:]))
    return seen

if __name__ == '__main__':
    out, rest = sys.argv[1], sys.argv[2:]
    until = '--until-loaded' in rest
    argv = rest[rest.index('--') + 1:]
    rec = dict(machine=f'{platform.node()}: {platform.machine()}, {os.cpu_count()} cores', command=f"PYTHONPATH={os.environ.get('PYTHONPATH', '')} " + ' '.join(['python', *sys.argv]),
               seconds_after_launch=run(argv, until))
    print(json.dumps(rec, indent=1))
    if out != '-': open(out, 'w').write(json.dumps(rec, indent=1) + '\n')
