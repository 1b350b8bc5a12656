"""The engine's recurrent state in fp32 (the default) against bf16 (`--state-dtype bfloat16`), in one process on the H200
(issue 11, item 4): the compiled, captured decode step at buckets 1, 32 and 128 for each, beside its floor; and what bf16
costs in accuracy, as greedy agreement under teacher forcing over STEPS steps of 32 rows, with the fp32 compiled step
against the fp32 eager step beside it as the noise floor (both differ from the reference only by rounding).
Usage (from bench/engine_h200.sh state_dtype): python bench/state_dtype_h200.py CKPT OUT.json"""
import json, sys, time
import torch
from ta.engine import DecodeEngine, GraphMode, prefill
from ta.model import ASRModel
from ta.patches.bench import time_steps, summarize, copy_bandwidth, decode_floor_bytes, floor_ms, environment

ckpt, out = sys.argv[1:3]
BUCKETS, ROWS, STEPS = (128, 32, 1), 32, 200
model = ASRModel.from_pretrained(ckpt, device='cuda')
bw = copy_bandwidth()
rec = dict(env=environment(), checkpoint=ckpt, copy_tb_per_s=round(bw, 3), steps=[], parity={})

def engine(dtype: str, mode: str = 'compiled') -> DecodeEngine:
    "An engine whose decode graphs for `BUCKETS` are captured (not `setup`: no encoder or prefill graphs), never stopping a row."
    eng = DecodeEngine(model, 128, mode, state_dtype=dtype)
    eng.stop_ids.fill_(-1)               # no token stops a row: every row runs its whole budget (the graphs read this tensor)
    if mode != 'eager':
        pool, t0 = torch.cuda.graph_pool_handle(), time.perf_counter()
        for b in BUCKETS: eng.capture(b, pool)
        print(f'{dtype} {mode}: captured buckets {BUCKETS} in {time.perf_counter() - t0:.1f} s', flush=True)
    return eng

def step_times(eng: DecodeEngine, dtype: str) -> None:
    "Median ms of each captured bucket's replay (rows free: a free row costs a step what a running one does) against its floor."
    w = sum(p.numel() * p.element_size() for p in model.decoder.parameters())
    for b in BUCKETS:
        fb = decode_floor_bytes(model.decoder.config, b, eng.pool.cache_len, weight_bytes=w)
        total = fb['total'] - (fb['recurrent_state_rw'] // 2 if dtype == 'bfloat16' else 0)   # 2 bytes a value, not 4
        s = summarize(time_steps(eng.graphs[b].replay, repeats=50, warmup=5, cuda=True))
        fl = floor_ms(total, bw)
        rec['steps'].append(dict(state_dtype=dtype, bucket=b, **s, floor_ms=round(fl, 4), x_floor=round(s['median_ms'] / fl, 3),
                                 floor_bytes=total, achieved_tb_per_s=round(total / 1e9 / s['median_ms'], 3)))
        print(json.dumps(rec['steps'][-1]), flush=True)

@torch.inference_mode()
def fill(engines: list, seed: int = 0) -> None:
    "The same ROWS random prompts prefilled (eagerly) into rows 0..ROWS-1 of every engine, each with the whole budget."
    g = torch.Generator(device='cuda').manual_seed(seed)
    e0 = engines[0]
    L, D = e0.prompt_room, model.decoder.config.hidden_size
    embeds = torch.randn(ROWS, L, D, device='cuda', generator=g).to(model.decoder.dtype) * 0.02
    mask = torch.ones(ROWS, L, dtype=torch.long, device='cuda')
    rows, budgets = torch.arange(ROWS, device='cuda'), torch.full((ROWS,), e0.new_tokens, device='cuda')
    for e in engines: prefill(e.decoder, e.pool, rows, embeds, mask, budgets, e.stop_ids)

@torch.inference_mode()
def agreement(ref: DecodeEngine, other: DecodeEngine, label: str) -> None:
    "Greedy agreement of `other` with `ref` under teacher forcing: each step both run from ref's tokens (and history, for the n-gram ban); the share of rows whose next token agrees, and how far the recurrent states drift (relative L2 over every Gated DeltaNet layer)."
    fill([ref, other])
    step = lambda e: e.graphs[ROWS].replay() if ROWS in e.graphs else e._run_step(ROWS)
    agree, drift = [], {}
    for s in range(1, STEPS + 1):
        step(ref); step(other)
        agree.append((ref.pool.tok[:ROWS] == other.pool.tok[:ROWS]).float().mean().item())
        for t in ('tok', 'out', 'step', 'pos', 'done'): getattr(other.pool, t)[:ROWS] = getattr(ref.pool, t)[:ROWS]
        if s in (1, 10, 50, 100, STEPS):
            a = torch.cat([r[:ROWS].float().flatten() for r in ref.pool.rec]); b = torch.cat([r[:ROWS].float().flatten() for r in other.pool.rec])
            drift[s] = round(((a - b).norm() / a.norm()).item(), 6)
    rec['parity'][label] = dict(steps=STEPS, rows=ROWS, agreement=round(sum(agree) / len(agree), 4),
                                agreement_last_50=round(sum(agree[-50:]) / len(agree[-50:]), 4), state_rel_l2_at_step=drift)
    print(label, json.dumps(rec['parity'][label]), flush=True)

fp32 = engine('float32'); step_times(fp32, 'float32')
bf16 = engine('bfloat16'); step_times(bf16, 'bfloat16')
rec['state_bytes_per_row'] = {d: sum(r[0].nbytes for r in e.pool.rec) for d, e in (('float32', fp32), ('bfloat16', bf16))}
json.dump(rec, open(out, 'w'), indent=1)
agreement(fp32, bf16, 'bf16 state, compiled, against fp32 state, compiled')
agreement(fp32, engine('float32', 'eager'), 'fp32 state, eager, against fp32 state, compiled (the noise floor)')
json.dump(rec, open(out, 'w'), indent=1)
print('wrote', out)
