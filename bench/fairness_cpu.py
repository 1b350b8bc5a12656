"""Short requests during a long one on this CPU (stop 57): the engine as `ta serve` runs it on a 2-core machine (eager, one
thread, the embedded default model) at several pool sizes (`--max-batch-size`). Per size: a 10 s request alone (3 in a
row), the long recording alone (RTFx, engine stats), then 20 requests of 10 s, one a second, while the long one runs (their
latency). The recording is fixtures/speech_17s.flac tiled to LONG_S seconds; bench/fairness_h200.py's round is reused.
Usage: python bench/fairness_cpu.py LONG_S ROWS[,ROWS...] OUT.json   (stop 57: 3600 128,32,16,8 bench/fairness_cpu.json)"""
import json, os, sys, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).parent))
import numpy as np
import fairness_h200 as F
from ta.audio import decode_audio, audio_seconds, SAMPLE_RATE
from ta.bench import latency_summary, stats_diff
from ta.engine import DecodeEngine
from ta.model import ASRModel
from ta.patches.bench import environment
from ta.pipeline import split_chunks
from ta.service import set_cpu_threads
from ta.train import DEFAULT_MODEL_DIR

STATS = ('admissions', 'decode_steps', 'encode_seconds', 'prefill_seconds', 'decode_seconds', 'mean_chunks_per_admission', 'mean_active_rows')

def one_size(model: ASRModel, x: np.ndarray, long_s: int, rows: int) -> dict:
    "The three measurements with a pool of `rows` decode rows."
    long = split_chunks(np.tile(x, int(np.ceil(long_s / audio_seconds(x)))))
    short = split_chunks(x[:10 * SAMPLE_RATE])
    eng = DecodeEngine(model, rows, 'eager').setup(lambda *a: None)
    try:
        eng.transcribe_clips([x[:SAMPLE_RATE]])   # warm
        alone = []
        for _ in range(3): t = time.perf_counter(); eng.transcribe_clips(short); alone.append(time.perf_counter() - t)
        before, t = eng.stats.as_dict(), time.perf_counter(); eng.transcribe_clips(long); wall = time.perf_counter() - t
        long_stats = stats_diff(before, eng.stats.as_dict())
        F.SHORTS, F.GAP_S = 20, 1.0
        before = eng.stats.as_dict(); r = F.fairness_round(eng, short, long); round_stats = stats_diff(before, eng.stats.as_dict())
    finally: eng.close()
    return dict(rows=rows, long_s=long_s, long_chunks=len(long), alone=latency_summary(alone), long_rtfx=round(long_s / wall, 1),
                long_stats={k: long_stats[k] for k in STATS}, during=latency_summary(r['latencies_s']), during_list=r['latencies_s'],
                long_wall_during=r['long_wall_s'], failed=r['failed'], round_stats={k: round_stats[k] for k in STATS})

if __name__ == '__main__':
    long_s, sizes, out = int(sys.argv[1]), [int(r) for r in sys.argv[2].split(',')], sys.argv[3]
    set_cpu_threads(1)   # `ta serve`'s default on 2 cores: half of them
    x = decode_audio(str(Path(__file__).parents[1] / 'fixtures' / 'speech_17s.flac'))
    model = ASRModel.from_pretrained(str(DEFAULT_MODEL_DIR), device='cpu')
    rec = dict(env=environment(), command=f'python bench/fairness_cpu.py {" ".join(sys.argv[1:])}', runs=[])
    for rows in sizes:
        load = os.getloadavg()[0]; rec['runs'].append(one_size(model, x, long_s, rows))
        rec['runs'][-1]['load_avg_1min'] = [round(load, 2), round(os.getloadavg()[0], 2)]   # a shared machine: before and after
        print(json.dumps(rec['runs'][-1]), flush=True)
        Path(out).write_text(json.dumps(rec, indent=1))
