"""The engine's decode step with weights pulled into the L2 ahead of each GEMM (nbs/06g_patches_l2, issue 11), side by
side in one process: `ta.engine.L2_PREFETCH_MB` at 0 (the default step) and at each MB given, each a compiled engine
with the decode graphs of buckets 1, 32 and 128 captured (no encoder or prefill graphs, no row ever stopping, every row
at the KV column of a 17 s chunk half-way through its new tokens, as bench/step_profile_h200.py). Per variant and
bucket: the median of 50 replays after 5 (ms) beside the floor, the kernels a replay runs, and the tokens 8 replays
write from the same start against the default step's (a prefetch changes no value; a different compile may round
differently, so agreement is reported, not assumed). Variants alternate twice (0, A, B, 0, A, B) so a drift of the
machine shows. Prediction (nbs/06g_patches_l2): -3 to -7% at 1 and 32 rows, about 0 at 128.
Usage (bench/engine_h200.sh step_l2): python bench/step_l2_h200.py CKPT OUT.json [MB ...]   (default MB: 16)"""
import gc, json, sys, time
import torch
import ta.engine
from ta.engine import DecodeEngine, _prompt_room
from ta.model import ASRModel
from ta.patches.bench import time_steps, summarize, copy_bandwidth, decode_floor_bytes, floor_ms, environment, profile_steps, kernel_table

BUCKETS, REPLAYS = (1, 32, 128), 8
ckpt, out, mbs = sys.argv[1], sys.argv[2], [float(a) for a in sys.argv[3:]] or [16.0]
model = ASRModel.from_pretrained(ckpt, device='cuda')
LIVE = _prompt_room(model, 17.0) + int(3.3 * 17 / 2)
bw = copy_bandwidth()
rec = dict(env=environment(), checkpoint=ckpt, copy_tb_per_s=round(bw, 3), live_column=LIVE, runs=[])
weights = sum(p.numel() * p.element_size() for p in model.decoder.parameters())
reference: dict[int, torch.Tensor] = {}

def run(mb: float, rnd: int) -> None:
    "Build, capture and time one variant; its tokens against the first default step's."
    ta.engine.L2_PREFETCH_MB = mb
    eng, t0 = DecodeEngine(model, 128, 'compiled'), time.perf_counter()
    eng.stop_ids.fill_(-1)
    pool = torch.cuda.graph_pool_handle()
    for b in BUCKETS: eng.capture(b, pool)
    print(f'L2_PREFETCH_MB={mb}: captured {BUCKETS} in {time.perf_counter() - t0:.1f} s', flush=True)
    for b in BUCKETS:
        p = eng.pool
        # every row running from the same start (budget past the replays, so none stops), then free again for the
        # timing, as bench/step_profile_h200.py times it: a free row computes the same and neither moves nor writes
        p.pos.fill_(LIVE); p.step.zero_(); p.done.zero_(); p.budget.fill_(p.new_tokens); p.tok.copy_(torch.arange(p.rows, device='cuda') * 97 + 11)
        for t in p.rec + p.conv + [x for kv in p.kv for x in kv]: t.zero_()
        toks = []
        for _ in range(REPLAYS): eng.graphs[b].replay(); toks.append(p.tok[:b].clone())
        toks = torch.stack(toks)
        reference.setdefault(b, toks)
        p.pos.fill_(LIVE); p.done.fill_(True)
        s = summarize(time_steps(eng.graphs[b].replay, repeats=50, warmup=5, cuda=True))
        groups = kernel_table(profile_steps(eng.graphs[b].replay, steps=5), 5)
        fl = floor_ms(decode_floor_bytes(model.decoder.config, b, eng.pool.cache_len, weight_bytes=weights)['total'], bw)
        r = dict(l2_prefetch_mb=mb, round=rnd, bucket=b, **s, floor_ms=round(fl, 4), x_floor=round(s['median_ms'] / fl, 3),
                 kernels_per_step=sum(g['kernels_per_step'] for g in groups), groups=groups,
                 tokens_agree=round((toks == reference[b]).float().mean().item(), 4))
        rec['runs'].append(r)
        print(json.dumps({k: v for k, v in r.items() if k != 'groups'}), flush=True)
        json.dump(rec, open(out, 'w'), indent=1)
    del eng; gc.collect(); torch.cuda.empty_cache()

for rnd in range(2):
    for mb in [0.0, *mbs]: run(mb, rnd)
print('wrote', out)
