"""A split-K Triton GEMM for the decode step's few rows against cuBLAS, per weight shape (issue 11, item 2).
At 1-128 rows every weight GEMM of the step streams its weight once and does little arithmetic, so it is bound by
memory: what matters is how many SMs stream at once and how many bytes each keeps in flight. cuBLAS picks one kernel
per shape by its heuristics; this kernel lets the sweep pick the column tile (BN), the K tile (BK), how many programs
share one K range (SPLIT_K: partial sums in fp32, added with atomics into a zeroed buffer, then rounded to bf16), warps
and pipeline stages. Every (shape, rows) gets cuBLAS (F.linear) and each configuration, 20 calls captured as one CUDA
graph, median of 30 replays after 3; outputs checked against F.linear first (max abs error relative to its max).
Predicted before measuring: the per-layer shapes at 32 rows reach >= 3.3 TB/s with the best configuration against
cuBLAS's ~2.1 TB/s average in the step's profile (nbs/06f_keep_going), i.e. the 1.80 ms of GEMMs at 32 rows would drop by ~0.5 ms.
Usage: python bench/skinny_gemm_h200.py OUT.json   (CPU check of the kernel: TRITON_INTERPRET=1 ... --check)"""
import json, sys
import torch
import triton
import triton.language as tl

@triton.jit
def _skinny_kernel(x, w, y, M, N, K, stride_xm, stride_wn, stride_ym, K_ITERS: tl.constexpr,
                   BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, SPLIT_K: tl.constexpr):
    # y[M, N] (+)= x[M, K] @ w[N, K]^T over this program's N tile and its share of K (fp32 accumulate)
    pid_n, pid_k = tl.program_id(0), tl.program_id(1)
    rm, rn, rk = tl.arange(0, BM), pid_n * BN + tl.arange(0, BN), tl.arange(0, BK)
    k_lo = pid_k * K_ITERS * BK                  # this program's K range: K_ITERS tiles of BK from k_lo
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for i in range(0, K_ITERS):            # the last split may run past K: the masks read zeros there
        kk = k_lo + i * BK + rk
        a = tl.load(x + rm[:, None] * stride_xm + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(w + rn[:, None] * stride_wn + kk[None, :], mask=(rn[:, None] < N) & (kk[None, :] < K), other=0.0)
        acc += tl.dot(a, tl.trans(b))
    ptr, ok = y + rm[:, None] * stride_ym + rn[None, :], (rm[:, None] < M) & (rn[None, :] < N)
    if SPLIT_K == 1: tl.store(ptr, acc.to(y.dtype.element_ty), mask=ok)
    else: tl.atomic_add(ptr, acc, mask=ok, sem='relaxed')

def skinny_linear(x: torch.Tensor, w: torch.Tensor, bn: int, bk: int, split_k: int, warps: int, stages: int) -> torch.Tensor:
    "x [M, K] @ w [N, K]^T -> [M, N] in x's dtype, M <= 128; split_k > 1 sums fp32 partials with atomics, then rounds."
    M, K = x.shape; N = w.shape[0]
    bm = max(16, triton.next_power_of_2(M))
    y = torch.empty(M, N, device=x.device, dtype=x.dtype) if split_k == 1 else torch.zeros(M, N, device=x.device, dtype=torch.float32)
    _skinny_kernel[(triton.cdiv(N, bn), split_k)](x, w, y, M, N, K, x.stride(0), w.stride(0), y.stride(0), triton.cdiv(triton.cdiv(K, split_k), bk),
                                                  BM=bm, BN=bn, BK=bk, SPLIT_K=split_k, num_warps=warps, num_stages=stages)
    return y if split_k == 1 else y.to(x.dtype)

CONFIGS = [  # (BN, BK, SPLIT_K, warps, stages)
    (16, 256, 1, 4, 4), (32, 128, 1, 4, 4), (32, 256, 1, 4, 3), (64, 128, 1, 4, 4), (64, 64, 1, 4, 5),
    (32, 128, 2, 4, 4), (32, 128, 4, 4, 4), (64, 128, 2, 4, 4), (64, 128, 4, 4, 4), (128, 64, 4, 8, 4),
    (16, 128, 4, 4, 4), (64, 256, 8, 8, 3)]

def check(device: str) -> None:
    "Every configuration against F.linear on small odd shapes; bf16 on CUDA, fp32 on CPU (Triton's interpreter mishandles bf16)."
    g, dt = torch.Generator(device=device).manual_seed(0), torch.bfloat16 if device == 'cuda' else torch.float32
    for M, N, K in ((1, 40, 300), (5, 96, 520), (33, 70, 256)):
        x = torch.randn(M, K, generator=g, device=device).to(dt)
        w = torch.randn(N, K, generator=g, device=device).to(dt)
        ref = torch.nn.functional.linear(x.float(), w.float())
        for cfg in CONFIGS:
            err = ((skinny_linear(x, w, *cfg).float() - ref).abs().max() / ref.abs().max()).item()
            assert err < 2e-2, (M, N, K, cfg, err)
    print('skinny_linear matches F.linear for', len(CONFIGS), 'configurations')

def sweep(out: str) -> None:
    from ta.patches.bench import time_steps, summarize, copy_bandwidth, environment
    from ta.patches.bench import decoder_config
    c = decoder_config('2b')
    D, I, gdn = c.hidden_size, c.intermediate_size, 2 * c.linear_num_key_heads * c.linear_key_head_dim + 2 * c.linear_num_value_heads * c.linear_value_head_dim + 2 * c.linear_num_value_heads
    shapes = {'gdn in_proj (qkv z b a fused)': (gdn, D), 'gdn out_proj': (D, c.linear_num_value_heads * c.linear_value_head_dim),
              'attn q k v fused': (2 * c.num_attention_heads * c.head_dim + 2 * c.num_key_value_heads * c.head_dim, D),
              'attn o_proj': (D, c.num_attention_heads * c.head_dim), 'mlp gate+up fused': (2 * I, D), 'mlp down_proj': (D, I),
              'lm_head': (c.vocab_size, D)}
    bw = copy_bandwidth()
    rec = dict(env=environment(), copy_tb_per_s=round(bw, 3), configs=CONFIGS, runs=[])
    for name, (N, K) in shapes.items():
        w = torch.randn(N, K, device='cuda', dtype=torch.bfloat16) * 0.02
        for M in (1, 32, 128):
            x = torch.randn(M, K, device='cuda', dtype=torch.bfloat16)
            ref = torch.nn.functional.linear(x, w).float()
            def timed(fn) -> float:
                fn(); g = torch.cuda.CUDAGraph()
                with torch.cuda.graph(g):
                    for _ in range(20): fn()
                return summarize(time_steps(g.replay, repeats=30, warmup=3, cuda=True))['median_ms'] * 1e3 / 20
            row = dict(gemm=name, n=N, k=K, rows=M, floor_us=round(N * K * 2 / bw / 1e6, 2),
                       cublas_us=round(timed(lambda: torch.nn.functional.linear(x, w)), 2), configs={})
            for cfg in CONFIGS:
                try: err = ((skinny_linear(x, w, *cfg).float() - ref).abs().max() / ref.abs().max()).item()
                except triton.runtime.errors.OutOfResources: continue      # this tile does not fit in shared memory at these rows
                row['configs'][str(cfg)] = dict(us=round(timed(lambda: skinny_linear(x, w, *cfg)), 2), err=round(err, 5))
            best = min(row['configs'].items(), key=lambda kv: kv[1]['us'])
            row |= dict(best=best[0], best_us=best[1]['us'], cublas_tb_per_s=round(N * K * 2 / 1e6 / row['cublas_us'], 3),
                        best_tb_per_s=round(N * K * 2 / 1e6 / best[1]['us'], 3))
            rec['runs'].append(row)
            print(json.dumps({k: v for k, v in row.items() if k != 'configs'}), flush=True)
            json.dump(rec, open(out, 'w'), indent=1)
    print('wrote', out)

if __name__ == '__main__':
    if '--check' in sys.argv: check('cuda' if torch.cuda.is_available() else 'cpu')
    else: check('cuda'); sweep(sys.argv[1])
