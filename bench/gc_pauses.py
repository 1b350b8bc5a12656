"""Garbage-collection pauses of the server in soaks (issue 13's /health tail), from bench/gcprobe's logs beside the soak
records: per soak, the server's collections while the clients sent, by generation (count, longest, total ms, how many
took 40 ms or more), next to the soak's /health latency, RTFx and answers.
Usage: python bench/gc_pauses.py OUT.json LABEL=SOAK.json:GC.log ...
The server is the second process to write to a log: `ta bench soak` itself starts first (its imports collect), then
the `ta serve` it launches; a third process, when there is one, is the soak's /health probe."""
import json, sys
from collections import defaultdict
from datetime import datetime

def pauses(soak: dict, log: str) -> dict:
    "The server's collections during the soak's load: {genN: {count, longest_ms, total_ms, at_least_40ms}}."
    order, rows = [], []
    for line in open(log):
        pid, gen, ms, _, t = line.split()
        if pid not in order: order.append(pid)
        rows.append((pid, gen, float(ms[:-2]), float(t[2:])))
    t0 = datetime.fromisoformat(soak['created']).timestamp() - soak['series']['rss_mb'][-1][0]   # written after its last sample
    by = defaultdict(list)
    for pid, gen, ms, t in rows:
        if pid == order[1] and t0 <= t <= t0 + soak['seconds']: by[gen].append(ms)
    return {g: dict(count=len(v), longest_ms=max(v), total_ms=round(sum(v), 1), at_least_40ms=sum(x >= 40 for x in v))
            for g, v in sorted(by.items())}

out, runs = sys.argv[1], []
for arg in sys.argv[2:]:
    label, paths = arg.split('=', 1)
    soak_path, log = paths.split(':')
    soak = json.load(open(soak_path))
    runs.append(dict(run=label, answers=soak['ok'], requests=soak['requests'], crossed=soak['crossed'], rtfx=round(soak['rtfx'], 1),
                     health_ms={k[:-2]: round(v * 1e3, 1) for k, v in soak['health_latency'].items()},
                     health_probes=sum(soak['health_statuses'].values()), server_collections=pauses(soak, log)))
    print(json.dumps(runs[-1]))
json.dump(dict(command=' '.join(sys.argv), runs=runs), open(out, 'w'), indent=1)
