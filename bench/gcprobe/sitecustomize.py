"""Garbage-collection pauses of every Python process started with this folder on PYTHONPATH (issue 13's /health tail):
each collection of 5 ms or more, as one line `PID genN MSms collected=N t=EPOCH` appended to $GCPROBE_LOG (nothing
without it). Python imports `sitecustomize` at start-up from the path, so a server and the processes it spawns all log.
Usage (nbs/10b_soak, a soak with and without the frozen heap):
  GCPROBE_LOG=/tmp/gc.log PYTHONPATH=bench/gcprobe ta bench soak --clients 128 --minutes 2 --idle 10 --out X.json -- --device cpu
then `python bench/gc_pauses.py X.json /tmp/gc.log ...` reads the log against the soak's record."""
import gc, os, time

_log, _start = os.environ.get('GCPROBE_LOG'), {}

def _timed(phase: str, info: dict):
    if phase == 'start': _start['t'] = time.perf_counter(); return
    ms = (time.perf_counter() - _start.get('t', time.perf_counter())) * 1e3
    if ms >= 5:
        with open(_log, 'a') as f: f.write(f"{os.getpid()} gen{info['generation']} {ms:.1f}ms collected={info['collected']} t={time.time():.1f}\n")

if _log: gc.callbacks.append(_timed)
