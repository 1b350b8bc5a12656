"""Weights prefetched into the L2 on a second stream while the GEMM before them runs (issue 11, item 5).
Streamed from HBM, every weight GEMM of the decode step costs its bytes' time plus about 4 us (bench/gemm_stream_h200.json:
a 2048 x 2048 projection 6.1 us where its 8.4 MB take 2.0; the MLP's down 10.8 against 5.9), 96 GEMMs a step, and
HBM idles while the small kernels between them run. Here a chain shaped like the step's (24 layers of RMSNorm, gate+up,
SiLU x up, down, residual, RMSNorm, a 2048 x 2048 projection, residual; every layer its own weights, 2 GB in all, so
each GEMM reads from HBM) is captured as a CUDA graph and timed alone, then with a side stream that starts to pull the
first P MB of each GEMM's weight into the L2 (`ta.patches.l2.prefetch_l2_`: cp.async.bulk.prefetch.L2, 64 KB an
instruction, no registers held), either as the GEMM before it is launched (early: the two overlap) or once that GEMM
has written its output (late: in the small kernels' window, where the engine's step puts it). Also: one 2048 x 2048 GEMM cold, and right after its weight was prefetched on the same
stream (does the prefetch reach the L2 at all?). Median of 30 replays after 3 per row count and P.
Predicted before the run: the prefetched 2048 x 2048 GEMM in 3-4 us against 6; the chain 8-15% faster at 32 rows
with P = 16 (about 8 us a layer of the GEMMs' fixed cost and idle HBM turned into L2 hits), less at 128 rows; under 5%
and it is not worth putting into the step.
Usage (bench/engine_h200.sh l2_prefetch): python bench/l2_prefetch_h200.py OUT.json"""
import json, sys
import torch
import torch.nn.functional as F
from ta.patches.bench import time_steps, summarize, copy_bandwidth, environment
from ta.patches.l2 import prefetch_l2_, join_l2_, prefetch_here

D, I, LAYERS, ROWS, PREFETCH_MB = 2048, 6144, 24, (1, 32, 128), (0, 4, 8, 16, 32)

def layers() -> list[dict]:
    return [dict(gu=torch.randn(2 * I, D, device='cuda', dtype=torch.bfloat16) * 0.02, down=torch.randn(D, I, device='cuda', dtype=torch.bfloat16) * 0.02,
                 o=torch.randn(D, D, device='cuda', dtype=torch.bfloat16) * 0.02, n1=torch.ones(D, device='cuda', dtype=torch.bfloat16),
                 n2=torch.ones(D, device='cuda', dtype=torch.bfloat16)) for _ in range(LAYERS)]

def chain(x: torch.Tensor, ws: list[dict], mb: float, early: bool) -> torch.Tensor:
    "The step-shaped chain on x [M, D]; with mb > 0, each GEMM's weight (its first `mb` MB) asked of the L2 by `prefetch_l2_`, `early`: as the GEMM before it is launched (anchored on that GEMM's input, so the two overlap), else once that GEMM has written its output (the window of small kernels after it, as `ta.engine.decode_step` places them)."
    order, k = [w for l in ws for w in (l['gu'], l['down'], l['o'])], 0
    def gemm(inp: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        nonlocal k
        nxt = order[k + 1] if mb and k + 1 < len(order) else None
        if nxt is not None and early: prefetch_l2_(inp, nxt, int(mb * 1e6))
        out = F.linear(inp, w); k += 1
        if nxt is not None and not early: prefetch_l2_(out, nxt, int(mb * 1e6))
        return out
    if mb: prefetch_l2_(x, order[0], int(mb * 1e6))
    for l in ws:
        g, u = gemm(F.rms_norm(x, (D,), l['n1'], 1e-6), l['gu']).chunk(2, -1)
        x = x + gemm(F.silu(g) * u, l['down'])
        x = x + gemm(F.rms_norm(x, (D,), l['n2'], 1e-6), l['o'])
    if mb: join_l2_(x)
    return x

def graph_ms(fn) -> dict:
    fn(); torch.cuda.synchronize(); g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g): fn()
    return summarize(time_steps(g.replay, repeats=30, warmup=3, cuda=True))

def single(rec: dict) -> None:
    "One 2048 x 2048 GEMM at 32 rows: cold (a 400 MB copy between calls evicts the L2) and right after its weight was prefetched."
    w, x = torch.randn(D, D, device='cuda', dtype=torch.bfloat16), torch.randn(32, D, device='cuda', dtype=torch.bfloat16)
    junk = torch.empty(400 << 20, dtype=torch.uint8, device='cuda')
    ev = [torch.cuda.Event(enable_timing=True) for _ in range(2)]
    def run(pre: bool) -> float:
        ts = []
        for _ in range(33):
            junk.add_(1)                           # walks 400 MB: the L2 holds none of w
            if pre: prefetch_here(w, 16 << 20); torch.cuda._sleep(20000)   # about 10 us for the prefetch to land
            ev[0].record(); F.linear(x, w); ev[1].record(); torch.cuda.synchronize(); ts.append(ev[0].elapsed_time(ev[1]) * 1e3)
        return round(sorted(ts[3:])[15], 2)
    rec['single_2048x2048_us'] = dict(cold=run(False), prefetched=run(True), floor=round(D * D * 2 / 1e6 / rec['copy_tb_per_s'], 2))
    print(json.dumps(rec['single_2048x2048_us']), flush=True)

def main(out: str) -> None:
    props = torch.cuda.get_device_properties(0)
    rec = dict(env=environment(), copy_tb_per_s=round(copy_bandwidth(), 3), l2_mb=round(props.L2_cache_size / 1e6, 1),
               layers=LAYERS, runs=[])
    single(rec)
    ws = layers()
    weight_gb = sum(w.numel() * 2 for l in ws for w in (l['gu'], l['down'], l['o'])) / 1e9
    rec['weight_gb'], rec['floor_ms'] = round(weight_gb, 3), round(weight_gb / rec['copy_tb_per_s'], 4)
    for m in ROWS:
        x = torch.randn(m, D, device='cuda', dtype=torch.bfloat16)
        ref = chain(x, ws, 0, True)
        for mb, early in [(0, True)] + [(mb, e) for mb in PREFETCH_MB if mb for e in (True, False)]:
            diff = (chain(x, ws, mb, early) - ref).abs().max().item()   # a prefetch should change no result: 0
            r = dict(rows=m, prefetch_mb=mb, early=early, max_abs_diff=diff, **graph_ms(lambda: chain(x, ws, mb, early)))
            rec['runs'].append(r); print(json.dumps(r), flush=True)
            json.dump(rec, open(out, 'w'), indent=1)
    print('wrote', out)

if __name__ == '__main__':
    main(sys.argv[1])
