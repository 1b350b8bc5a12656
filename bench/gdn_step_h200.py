"""The Gated DeltaNet state update of one decode step (18 layers, the engine's in-place call of fla's fused recurrent
kernel, `ta.patches.state.fla_step_`) under other launch shapes than fla's own (a [128 x 8] state tile, one warp), at
1, 32 and 128 rows, with the state in fp32 and in bf16 (issue 11; nbs/10c_engine_bench). Each configuration is captured
as one CUDA graph of 18 calls and replayed; its outputs and states are compared with fla's configuration.
Usage (from bench/h200.sh gdn_configs): python bench/gdn_step_h200.py OUT.json"""
import json, sys
import torch
import torch.nn.functional as F
from ta.patches.state import fla_step_
from ta.patches.bench import time_steps, summarize, copy_bandwidth, environment

LAYERS, HV, K, V = 18, 16, 128, 128   # Qwen3.5-2B: 18 Gated DeltaNet layers, 16 heads, 128 x 128 state per head
CONFIGS = [(8, 1), (16, 1), (16, 2), (32, 1), (32, 2), (32, 4), (64, 2), (64, 4), (128, 4), (128, 8)]   # (bv, num_warps); fla's: (8, 1)
out = sys.argv[1]
rec = dict(env=environment(), copy_tb_per_s=round(copy_bandwidth(), 3), layers=LAYERS, runs=[])

def inputs(B: int, dtype: torch.dtype, seed: int = 0) -> tuple:
    "One decode step's q, k, v (bf16), g (fp32 log decay), beta (bf16), per layer, and the layers' states in `dtype`."
    g = torch.Generator(device='cuda').manual_seed(seed)
    rnd = lambda *s: torch.randn(*s, device='cuda', generator=g)
    xs = [tuple(rnd(B, 1, HV, K).bfloat16() for _ in range(3)) for _ in range(LAYERS)]
    gate, beta = F.logsigmoid(rnd(B, 1, HV)), torch.rand(B, 1, HV, device='cuda', generator=g).bfloat16()
    states = [(rnd(B, HV, K, V) * 0.1).to(dtype) for _ in range(LAYERS)]
    return xs, gate, beta, states

for B in (1, 32, 128):
    for dtype in (torch.float32, torch.bfloat16):
        xs, gate, beta, start = inputs(B, dtype)
        ref = None
        for bv, warps in CONFIGS:
            states = [s.clone() for s in start]
            step = lambda: [fla_step_(q, k, v, gate, beta, s, K ** -0.5, True, bv=bv, num_warps=warps) for (q, k, v), s in zip(xs, states)]
            outs = step(); torch.cuda.synchronize()       # compiles this configuration; one step from the start states
            o, h = torch.stack(outs).float(), torch.stack(states).float()
            ref = (o, h) if ref is None else ref
            diff = lambda a, b: ((a - b).abs().max() / b.abs().max()).item()
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph): step()
            t = summarize(time_steps(graph.replay, repeats=50, warmup=5, cuda=True))
            nbytes = 2 * LAYERS * B * HV * K * V * start[0].element_size()   # the state read and written
            rec['runs'].append(dict(rows=B, state_dtype=str(dtype).removeprefix('torch.'), bv=bv, num_warps=warps, **t,
                                    state_tb_per_s=round(nbytes / 1e9 / t['median_ms'], 3),
                                    out_diff_vs_fla_config=round(diff(o, ref[0]), 7), state_diff_vs_fla_config=round(diff(h, ref[1]), 7)))
            print(json.dumps(rec['runs'][-1]), flush=True)
            del graph
        json.dump(rec, open(out, 'w'), indent=1)
print('wrote', out)
