"""The decode step's weight GEMMs with their weights streamed from HBM, cuBLAS against the split-K Triton kernel of
bench/skinny_gemm_h200.py (issue 11, item 2). That bench called each GEMM 20 times on one weight: the in_proj's 34 MB
and the MLP's 50 MB stay in the H200's 50 MB L2 between calls, so both sides were flattered (cuBLAS's in_proj at 32
rows 8.45 us alone, 11.7 us inside the step, bench/step_attention_after.json). Here each timed graph cycles through
enough copies of the weight to hold at least `STREAM_MB` (more than the L2), so every call reads its weight from
HBM, as in the step, where 24 layers' weights pass between two uses of one. Per (shape, rows): cuBLAS (F.linear) and
every configuration, us per call (median of 30 replays of a graph of `CALLS` calls after 3), TB/s of the weight,
the floor at the copy bandwidth; outputs checked against F.linear first.
Predicted before the run: cuBLAS streams at 2.6-3.2 TB/s at 1-128 rows (the step's profile), and the best
configuration per shape at 3.4-3.9 TB/s where cuBLAS leaves SMs idle (the MLP's 128 x 32 tiles: 96 programs on 132 SMs).
Usage (from bench/engine_h200.sh gemm_stream): python bench/gemm_stream_h200.py OUT.json"""
import json, math, sys
import torch
import torch.nn.functional as F
import triton
from skinny_gemm_h200 import skinny_linear, check
from ta.patches.bench import time_steps, summarize, copy_bandwidth, environment, decoder_config

STREAM_MB, CALLS, ROWS = 400, 40, (1, 16, 32, 64, 128)   # rows: each of the kernel's row tiles (16, 32, 64, 128) and one row
CONFIGS = [  # (BN, BK, SPLIT_K, warps, stages): stop 26's best in L2 (64 x 128, no split) and its neighbours, splits for N = 2048
    (32, 128, 1, 4, 4), (64, 128, 1, 4, 4), (64, 256, 1, 4, 3), (64, 64, 1, 4, 5), (128, 128, 1, 8, 3), (32, 128, 2, 4, 4),
    (64, 128, 2, 4, 4), (16, 256, 2, 4, 3), (32, 128, 4, 4, 4), (64, 128, 4, 4, 4), (128, 64, 4, 8, 4)]

def shapes() -> dict[str, tuple[int, int]]:
    "Every weight GEMM of the full-size step, (N, K), with the step's fused projections."
    c = decoder_config('2b')
    D, I = c.hidden_size, c.intermediate_size
    gdn = 2 * c.linear_num_key_heads * c.linear_key_head_dim + 2 * c.linear_num_value_heads * c.linear_value_head_dim + 2 * c.linear_num_value_heads
    return {'gdn in_proj (x18)': (gdn, D), 'gdn out_proj (x18)': (D, c.linear_num_value_heads * c.linear_value_head_dim),
            'attn q k v (x6)': (2 * c.num_attention_heads * c.head_dim + 2 * c.num_key_value_heads * c.head_dim, D),
            'attn o_proj (x6)': (D, c.num_attention_heads * c.head_dim), 'mlp gate+up (x24)': (2 * I, D), 'mlp down (x24)': (D, I)}

def per_call_us(fn_of, copies: int) -> float:
    "us per call of fn_of(i) for weight copy i, from a CUDA graph of `CALLS` calls cycling through the copies."
    fn_of(0); torch.cuda.synchronize(); g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for i in range(CALLS): fn_of(i % copies)
    return summarize(time_steps(g.replay, repeats=30, warmup=3, cuda=True))['median_ms'] * 1e3 / CALLS

def main(out: str) -> None:
    check('cuda')
    bw = copy_bandwidth()
    rec = dict(env=environment(), copy_tb_per_s=round(bw, 3), stream_mb=STREAM_MB, calls=CALLS, configs=CONFIGS, runs=[])
    for name, (N, K) in shapes().items():
        mb = N * K * 2 / 1e6
        copies = max(2, math.ceil(STREAM_MB / mb))
        ws = [torch.randn(N, K, device='cuda', dtype=torch.bfloat16) * 0.02 for _ in range(copies)]
        for M in ROWS:
            x = torch.randn(M, K, device='cuda', dtype=torch.bfloat16)
            ref = F.linear(x, ws[0]).float()
            row = dict(gemm=name, n=N, k=K, rows=M, weight_mb=round(mb, 1), copies=copies, floor_us=round(mb / bw, 2),
                       cublas_us=round(per_call_us(lambda i: F.linear(x, ws[i]), copies), 2), configs={})
            for cfg in CONFIGS:
                try: err = ((skinny_linear(x, ws[0], *cfg).float() - ref).abs().max() / ref.abs().max()).item()
                except triton.runtime.errors.OutOfResources: continue
                row['configs'][str(cfg)] = dict(us=round(per_call_us(lambda i: skinny_linear(x, ws[i], *cfg), copies), 2), err=round(err, 5))
            best = min(row['configs'].items(), key=lambda kv: kv[1]['us'])
            row |= dict(best=best[0], best_us=best[1]['us'], cublas_tb_per_s=round(mb / row['cublas_us'], 3),   # MB / us = TB/s
                        best_tb_per_s=round(mb / best[1]['us'], 3))
            rec['runs'].append(row)
            print(json.dumps({k: v for k, v in row.items() if k != 'configs'}), flush=True)
            json.dump(rec, open(out, 'w'), indent=1)
        del ws
    print('wrote', out)

if __name__ == '__main__':
    main(sys.argv[1])
