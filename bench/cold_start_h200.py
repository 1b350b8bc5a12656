"""Where an engine's start-up time goes (issue 9, start-up: healthy <= 180 s cold, <= 60 s warm; nbs/10c_engine_bench).
Loads the checkpoint and sets up the engine exactly as `ta serve`'s engine process does (`ta.service.load_for_serving`
with the serving defaults: compiled graphs, 128 rows, fp32 state), timing each phase: imports, model load, engine
construction, each graph's capture (from `setup`'s progress lines) and the warm-up. Adds dynamo's own compile-time
table (`torch._dynamo.utils.compile_times`) and the counters of compiles, recompiles and Triton autotuning.
Whether the start is cold or warm is the caller's: bench/engine_h200.sh `cold_start` runs it once on empty inductor and
Triton cache folders (cold) under py-spy (where py-spy runs), then again on the folders that run filled (warm).
Usage: python bench/cold_start_h200.py CKPT TPS OUT.json
       python bench/cold_start_h200.py --summarise PYSPY_RAW COLD.json WARM.json OUT.json   (here, after the run: the main
       thread's py-spy samples by set-up phase and by kind of work, with the two runs' records, in one JSON)"""
import time
T0 = time.perf_counter()
import json, logging, re, sys
import torch
from ta.service import load_for_serving
from ta.settings import Settings
from ta.patches.bench import environment

PHASE = re.compile(r'captured graph \d+/\d+ \(\w+\): bucket (\d+) \(([\d.]+) s\)|captured the encoder \(([\d.]+) s\) and the prefill \(([\d.]+) s\) for (\d+) chunks')

class Phases(logging.Handler):
    "Collect `setup`'s progress lines: each decode-step graph's and each encoder + prefill capture's seconds."
    def __init__(self):
        super().__init__(); self.steps, self.admissions, self.last = {}, {}, 0.0
    def emit(self, record):
        msg = record.getMessage(); print(f'[{time.perf_counter() - T0:6.1f} s] {msg}', flush=True)
        if not (m := PHASE.search(msg)): return
        if m[1]: t = float(m[2]); self.steps[m[1]] = round(t - self.last, 2); self.last = t
        else: self.admissions[m[5]] = {'encoder_s': float(m[3]), 'prefill_s': float(m[4])}

def main(ckpt: str, tps: float, out: str) -> None:
    t_import = time.perf_counter() - T0
    phases = Phases(); log = logging.getLogger('ta.service'); log.addHandler(phases); log.setLevel(logging.INFO)
    t = time.perf_counter()
    engine = load_for_serving(Settings(model=ckpt, synthetic_tokens_per_second=tps))
    total = time.perf_counter() - t
    from torch._dynamo.utils import counters, compile_times
    record = {'env': environment(), 'imports_s': round(t_import, 1), 'load_for_serving_s': round(total, 1),
              'setup_s': round(engine.stats.setup_seconds, 1), 'step_graphs_s': phases.steps, 'encoder_prefill_s': phases.admissions,
              'compile_counters': {k: dict(v) for k, v in counters.items() if k in ('stats', 'inductor', 'aot_autograd') and v},
              'compile_times': compile_times(repr='str', aggregate=True)}
    engine.close()
    json.dump(record, open(out, 'w'), indent=1)
    print(record['compile_times']); print(json.dumps({k: v for k, v in record.items() if k != 'compile_times'}, indent=1))

PHASES = (('prefill', 'capture_prefill'), ('encoder', 'capture_encoder'), ('decode step', 'capture (ta/engine'),
          ('model load', 'from_pretrained'), ('warm-up', 'warm_up'))   # the first frame of a stack that names its phase
KINDS = (("fla's Triton tuning", 'Autotuner.run'), ('inductor (lowering, codegen, Triton compiles)', 'compile_fx_inner'),
         ('dynamo (tracing) and AOT autograd', 'compile_inner'))       # the first match, outermost kinds last

def summarise(raw: str, cold: str, warm: str, out: str, rate: float = 20.0) -> dict:
    "Seconds of the main thread by phase and kind of work from py-spy's raw samples (`rate` a second, idle included), beside both records."
    phases: dict = {}
    for line in open(raw):
        stack, n = line.rsplit(' ', 1)
        frames = stack.split(';')
        if 'MainThread' not in frames[0]: continue
        phase = next((name for f in frames for name, mark in PHASES if mark in f), 'imports and the rest')
        kind = next((name for name, mark in KINDS if mark in stack), 'other')
        row = phases.setdefault(phase, {}); row[kind] = round(row.get(kind, 0) + int(n) / rate, 2)
    record = {'pyspy_main_thread_s': phases, 'cold': json.load(open(cold)), 'warm': json.load(open(warm))}
    json.dump(record, open(out, 'w'), indent=1)
    return record

if __name__ == '__main__':
    if sys.argv[1] == '--summarise': print(json.dumps(summarise(*sys.argv[2:6])['pyspy_main_thread_s'], indent=1))
    else: main(sys.argv[1], float(sys.argv[2]), sys.argv[3])
