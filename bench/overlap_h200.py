"""Issue 9: is an admission's encoder pass worth running on a second CUDA stream beside the decode steps, and does that
ever hang? Stop 32 tried it inside the engine (commit 217342f) and `ta serve` hung in its first 64-client round, cause
unknown. This asks the GPU alone, with no engine worker, no request threads and no host copies: the engine's captured
decode graphs (buckets 128, 64, 32, compiled, every row live half-way through a 17 s chunk) and its captured encoder
graphs (64, 32 and 16 chunks of 18 s, compiled block by block as `DecodeEngine.setup` does).

For each (bucket, encoder rows) pair and each stream priority:
- `dec_ms`: STEPS decode replays alone; `enc_ms`: one encoder replay alone;
- `both_ms`: the encoder replay launched on its stream, then the STEPS decode replays on theirs, from one start event
  to the later of the two ends; `dec_beside_ms` and `enc_beside_ms` when each stream's last work ended;
- `hidden_share` = (dec_ms + enc_ms - both_ms) / enc_ms: the part of the encoder pass that overlapping hides.
Then HANG_REPEATS concurrent rounds of the 128/64 pair polled with a time limit: a round that does not end within
HANG_LIMIT_S is written to the record as a hang (with every thread's stack) and the process exits.
Usage (from bench/engine_h200.sh overlap): python bench/overlap_h200.py CKPT OUT.json"""
import faulthandler, json, statistics, sys, time
import torch
from ta.engine import DecodeEngine, _prompt_room, capture_encoder
from ta.model import ASRModel
from ta.patches.bench import environment

ckpt, out = sys.argv[1:3]
STEPS, REPEATS, HANG_REPEATS, HANG_LIMIT_S = 57, 7, 200, 30.0   # 57: the decode steps of a 17.5 s chunk at 3.3 tokens/s
BUCKETS, ENC_ROWS = (128, 64, 32), (64, 32, 16)
model = ASRModel.from_pretrained(ckpt, device='cuda')
LIVE = _prompt_room(model, 17.0) + int(3.3 * 17 / 2)
rec = dict(env=environment(), checkpoint=ckpt, steps=STEPS, repeats=REPEATS, runs=[], hang=None)
save = lambda: json.dump(rec, open(out, 'w'), indent=1)

eng = DecodeEngine(model, 128, 'compiled')
eng.stop_ids.fill_(-1); eng.pool.pos.fill_(LIVE)
t0, pool = time.perf_counter(), torch.cuda.graph_pool_handle()
for b in BUCKETS: eng.capture(b, pool)
encs = {n: capture_encoder(model, n, torch.cuda.graph_pool_handle(), encode=eng._encode) for n in ENC_ROWS}
torch.cuda.synchronize()
rec['setup_s'] = round(time.perf_counter() - t0, 1); print(f"captured in {rec['setup_s']} s", flush=True)

def ev(stream) -> torch.cuda.Event:
    e = torch.cuda.Event(enable_timing=True); e.record(stream); return e

def alone(stream, fn) -> float:
    "ms of `fn`'s work on `stream`, alone on the GPU."
    torch.cuda.synchronize(); a = ev(stream)
    with torch.cuda.stream(stream): fn()
    z = ev(stream); torch.cuda.synchronize(); return a.elapsed_time(z)

def together(dec_stream, enc_stream, b: int, n: int) -> tuple[torch.cuda.Event, ...]:
    "Launch the encoder replay on its stream, then the decode replays on theirs, from one start: (start, decode end, encoder end) events."
    torch.cuda.synchronize(); start = ev(dec_stream); enc_stream.wait_event(start)
    with torch.cuda.stream(enc_stream): encs[n].graph.replay()
    enc_end = ev(enc_stream)
    with torch.cuda.stream(dec_stream):
        for _ in range(STEPS): eng.graphs[b].replay()
    dec_end = ev(dec_stream)
    return start, dec_end, enc_end

def ms3(start, dec_end, enc_end) -> tuple[float, float, float]:
    "(both, decode end, encoder end) ms after the start, once all is done."
    torch.cuda.synchronize(); d, e = start.elapsed_time(dec_end), start.elapsed_time(enc_end); return max(d, e), d, e

lo, hi = torch.cuda.Stream(priority=0), torch.cuda.Stream(priority=-1)
PRIORITIES = {'decode high, encoder low': (hi, lo), 'same priority': (torch.cuda.Stream(priority=0), lo)}
for b in BUCKETS:
    for n in ENC_ROWS:
        for name, (ds, es) in PRIORITIES.items():
            dec = lambda: [eng.graphs[b].replay() for _ in range(STEPS)]
            for _ in range(2): alone(ds, dec); alone(es, encs[n].graph.replay); ms3(*together(ds, es, b, n))   # warm-up
            d = statistics.median(alone(ds, dec) for _ in range(REPEATS))
            e = statistics.median(alone(es, encs[n].graph.replay) for _ in range(REPEATS))
            tog = sorted((ms3(*together(ds, es, b, n)) for _ in range(REPEATS)), key=lambda t: t[0])[REPEATS // 2]
            r = dict(bucket=b, encoder_rows=n, priority=name, dec_ms=round(d, 3), enc_ms=round(e, 3), both_ms=round(tog[0], 3),
                     dec_beside_ms=round(tog[1], 3), enc_beside_ms=round(tog[2], 3), serial_ms=round(d + e, 3),
                     hidden_share=round((d + e - tog[0]) / e, 3))
            rec['runs'].append(r); print(json.dumps(r), flush=True); save()

ds, es = PRIORITIES['decode high, encoder low']
t0 = time.perf_counter()
for i in range(HANG_REPEATS):
    start, dec_end, enc_end = together(ds, es, 128, 64); t = time.perf_counter()
    while not (dec_end.query() and enc_end.query()):
        if time.perf_counter() - t > HANG_LIMIT_S:
            faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
            rec['hang'] = dict(round=i, limit_s=HANG_LIMIT_S, dec_done=dec_end.query(), enc_done=enc_end.query()); save()
            print('HANG', json.dumps(rec['hang']), flush=True); sys.exit(3)
        time.sleep(0.001)
rec['hang'] = dict(rounds=HANG_REPEATS, hung=0, seconds=round(time.perf_counter() - t0, 1)); save()
print('no hang in', HANG_REPEATS, 'rounds', flush=True)
