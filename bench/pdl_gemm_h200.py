"""Weight GEMMs launched with programmatic dependent launch (PDL) that load their first weight tiles before they wait
(issue 11; nbs/06f_keep_going "What is left"). Every weight GEMM of the decode step pays 3-5 us to start and drain
whatever its shape (bench/gemm_stream_h200.json: the 2048 x 2048 projections 6.0 us against 1.96 for their bytes). A
GEMM's weights do not depend on the kernel before it, only its activations do: launched with PDL, a GEMM's programs
may start while the kernel before it finishes, load their first weight tiles, and only then wait
(`griddepcontrol.wait`) for the activations. Stop 38 turned PDL on for inductor's kernels only (cuBLAS's GEMMs cannot
take it) and gained nothing; this is the GEMM side.

One CUDA graph replays a chain shaped like the step's Gated DeltaNet layers: per layer, four weight GEMMs (in_proj,
out_proj, the MLP's gate+up and down, the step's fused shapes) each after a one-program-a-row RMS norm standing for the
inductor kernels between them; `LAYERS` layers cycling through weight copies that hold more than the L2, so every
GEMM reads its weight from HBM. The norm kernel waits before its load and lets the next kernel launch after it, as
inductor's kernels do with `TORCHINDUCTOR_ENABLE_PDL=1` (`torch/_inductor/codegen/triton.py`). Variants:
  cublas          torch.mm (cuBLAS) and the norm without PDL (the step as served)
  triton          the Triton GEMM below, no PDL (its own steady state, the best of `CONFIGS` per shape and rows)
  triton_pdl      the same, every kernel launched with PDL, the GEMM waiting before any load
  triton_pdl_pre  ... the GEMM loading its first `PRE` weight tiles into registers before it waits
  triton_pdl_l2   ... and asking the L2 for its whole weight slice first (cp.async.bulk.prefetch.L2, sm_90)
us per layer (median of 30 replays after 3), its floor (the weights' bytes at the copy bandwidth), and each variant's
output against cublas's (max abs difference over max abs value). Rows 1, 32 and 128.
Predicted before the run: at 1 and 32 rows triton_pdl_pre 1-2 us a GEMM under triton, and 5-10% under cublas per layer;
at 128 rows no better than cublas (the Triton GEMM's steady state loses there, bench/gemm_stream_h200.json).
Usage: python bench/pdl_gemm_h200.py OUT.json   (the kernels on CPU: TRITON_INTERPRET=1 python bench/pdl_gemm_h200.py --check)"""
import json, math, sys
import torch
import torch.nn.functional as F
import triton
import triton.language as tl

LAYERS, STREAM_MB, ROWS = 8, 400, (1, 32, 128)
CONFIGS = [(16, 128, 4, 4), (16, 256, 4, 3), (32, 128, 4, 4), (64, 128, 4, 4), (128, 128, 8, 3)]   # (BN, BK, warps, stages)
L2_CHUNK = 16384   # bytes one L2 prefetch instruction asks for

@triton.jit
def _gdc_wait(PDL: tl.constexpr):
    if PDL: tl.extra.cuda.gdc_wait()

@triton.jit
def _gdc_launch(PDL: tl.constexpr):
    if PDL: tl.extra.cuda.gdc_launch_dependents()

@triton.jit
def _norm_kernel(y, h, stride_y, K, BLOCK: tl.constexpr, PDL: tl.constexpr):
    # h[m, :K] = y[m, :K] / rms(y[m, :K]), one program a row; PDL as inductor places it: wait, load, let the next launch
    m, r = tl.program_id(0), tl.arange(0, BLOCK)
    _gdc_wait(PDL)
    v = tl.load(y + m * stride_y + r, mask=r < K, other=0.0).to(tl.float32)
    _gdc_launch(PDL)
    v = v * tl.rsqrt(tl.sum(v * v, 0) / K + 1e-6)
    tl.store(h + m * K + r, v.to(h.dtype.element_ty), mask=r < K)

@triton.jit
def _l2_prefetch(base, nbytes, CHUNKS: tl.constexpr, CHUNK: tl.constexpr):
    # ask the L2 for nbytes from base in CHUNK-byte requests (the last one clipped to a multiple of 16); loads nothing
    i = tl.arange(0, CHUNKS)
    size = tl.minimum(nbytes - i * CHUNK, CHUNK) // 16 * 16
    ptr = base.to(tl.pointer_type(tl.int8)) + i.to(tl.int64) * CHUNK
    tl.inline_asm_elementwise("{ .reg .pred p; setp.gt.s32 p, $2, 0; @p cp.async.bulk.prefetch.L2.global [$1], $2; mov.u32 $0, 0; }",
                              "=r,l,r", [ptr, size], dtype=tl.int32, is_pure=False, pack=1)

@triton.jit
def _gemm_kernel(x, w, y, M, N, K, stride_x, stride_w, stride_y, K_TILES: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                 BK: tl.constexpr, PDL: tl.constexpr, PRE: tl.constexpr, L2_CHUNKS: tl.constexpr, CHUNK: tl.constexpr):
    # y[M, N] = x[M, K] @ w[N, K]^T for this program's BN columns, fp32 accumulate. Before waiting for x (written by the
    # kernel before), it may ask the L2 for its [BN, K] weight rows and load its first PRE [BN, BK] weight tiles.
    pid = tl.program_id(0)
    rm, rn, rk = tl.arange(0, BM), pid * BN + tl.arange(0, BN), tl.arange(0, BK)
    _gdc_launch(PDL)                                     # the kernel after may launch now: it waits for this one itself
    if L2_CHUNKS > 0: _l2_prefetch(w + pid * BN * stride_w, tl.minimum(N - pid * BN, BN) * K * 2, L2_CHUNKS, CHUNK)
    wrow, xrow = w + rn[:, None] * stride_w, x + rm[:, None] * stride_x
    wok, xok = rn[:, None] < N, rm[:, None] < M
    if PRE >= 1: b0 = tl.load(wrow + rk[None, :], mask=wok & (rk[None, :] < K), other=0.0)
    if PRE >= 2: b1 = tl.load(wrow + BK + rk[None, :], mask=wok & (BK + rk[None, :] < K), other=0.0)
    _gdc_wait(PDL)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    if PRE >= 1: acc += tl.dot(tl.load(xrow + rk[None, :], mask=xok & (rk[None, :] < K), other=0.0), tl.trans(b0))
    if PRE >= 2: acc += tl.dot(tl.load(xrow + BK + rk[None, :], mask=xok & (BK + rk[None, :] < K), other=0.0), tl.trans(b1))
    for t in range(PRE, K_TILES):
        kk = t * BK + rk
        a = tl.load(xrow + kk[None, :], mask=xok & (kk[None, :] < K), other=0.0)
        b = tl.load(wrow + kk[None, :], mask=wok & (kk[None, :] < K), other=0.0)
        acc += tl.dot(a, tl.trans(b))
    tl.store(y + rm[:, None] * stride_y + rn[None, :], acc.to(y.dtype.element_ty), mask=xok & (rn[None, :] < N))

def gemm(x: torch.Tensor, w: torch.Tensor, y: torch.Tensor, cfg: tuple, pdl: bool = False, pre: int = 0, l2: bool = False) -> torch.Tensor:
    "y [M, N] = x [M, K] @ w [N, K]^T (M <= 128) with configuration cfg = (BN, BK, warps, stages)."
    (M, K), N = x.shape, w.shape[0]
    bn, bk, warps, stages = cfg
    chunks = triton.next_power_of_2(math.ceil(bn * K * 2 / L2_CHUNK)) if l2 else 0
    kw = dict(launch_pdl=True) if pdl else {}
    _gemm_kernel[(triton.cdiv(N, bn),)](x, w, y, M, N, K, x.stride(0), w.stride(0), y.stride(0), triton.cdiv(K, bk), BM=max(16, triton.next_power_of_2(M)),
                                        BN=bn, BK=bk, PDL=pdl, PRE=pre, L2_CHUNKS=chunks, CHUNK=L2_CHUNK, num_warps=warps, num_stages=stages, **kw)
    return y

def norm(y: torch.Tensor, h: torch.Tensor, pdl: bool = False) -> torch.Tensor:
    "h [M, K] = y[:, :K] / its rms per row."
    M, K = h.shape
    kw = dict(launch_pdl=True) if pdl else {}
    _norm_kernel[(M,)](y, h, y.stride(0), K, BLOCK=triton.next_power_of_2(K), PDL=pdl, num_warps=8, **kw)
    return h

# the step's weight GEMMs through the PDL GEMM (step_variants' `pdl` variant): (BN, BK, warps, stages) per weight width N
# and rows, from this script's own run; a weight over 65,536 outputs (the lm_head) or over 128 rows stays with cuBLAS
STEP_CONFIGS = {}   # (N, K, BM) -> config, filled by `pick`; unknown shapes take `DEFAULT_CONFIG`
DEFAULT_CONFIG = (32, 128, 4, 4)
PRE_STEP = 1        # weight tiles `pdl_linear` loads before it waits

def pick(N: int, K: int, M: int) -> tuple:
    bm = max(16, triton.next_power_of_2(M))
    return STEP_CONFIGS.get((N, K, bm)) or ((16, 256, 4, 3) if N <= 2048 else DEFAULT_CONFIG)

@torch.library.custom_op('tabench::pdl_linear', mutates_args=())
def pdl_linear(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    "x [M, K] @ w [N, K]^T through the PDL GEMM with its first weight tile loaded before the wait (M <= 128)."
    if x.shape[0] > 128: return _F_LINEAR(x, w)
    y = torch.empty(x.shape[0], w.shape[0], device=x.device, dtype=x.dtype)
    return gemm(x.contiguous(), w, y, pick(w.shape[0], w.shape[1], x.shape[0]), pdl=True, pre=PRE_STEP)
pdl_linear.register_fake(lambda x, w: x.new_empty(x.shape[0], w.shape[0]))

_F_LINEAR = F.linear
def step_linear(x, w, b=None):
    "F.linear, with the decode step's 2-D bf16 CUDA weight GEMMs (no bias, at most 65,536 outputs) through `pdl_linear`."
    if b is None and x.dim() == 2 and x.is_cuda and x.dtype == torch.bfloat16 and w.shape[0] <= 65536: return pdl_linear(x, w)
    return _F_LINEAR(x, w, b)

def patch_linear(on: bool) -> None:
    "Route F.linear (and so nn.Linear) through `step_linear`, or back (over 128 rows `pdl_linear` calls cuBLAS itself)."
    F.linear = step_linear if on else _F_LINEAR

def load_configs(path: str) -> None:
    "STEP_CONFIGS from this script's record: each shape's best configuration at 1, 32 and 128 rows."
    rec = json.load(open(path))
    for r in rec['runs']:
        for name, cfg in r['configs'].items():
            N, K = rec['shapes'][name]
            STEP_CONFIGS[N, K, max(16, triton.next_power_of_2(r['rows']))] = tuple(cfg)

def check(device: str) -> None:
    "The GEMM (every PRE, every configuration) against F.linear on odd shapes, and the norm against its formula; fp32 on CPU (the interpreter mishandles bf16)."
    g, dt = torch.Generator(device=device).manual_seed(0), torch.bfloat16 if device == 'cuda' else torch.float32
    for M, N, K in ((1, 40, 300), (5, 96, 520), (33, 70, 256)):
        x, w = (torch.randn(s, K, generator=g, device=device).to(dt) for s in (M, N))
        ref = F.linear(x.float(), w.float())
        for cfg in CONFIGS if device == 'cpu' else CONFIGS[::2]:    # on CUDA fewer: the layer chains check every variant again
            for pre in (0, 1, 2):
                out = gemm(x, w, torch.empty(M, N, device=device, dtype=dt), cfg, pre=pre)
                err = ((out.float() - ref).abs().max() / ref.abs().max()).item()
                assert err < 2e-2, (M, N, K, cfg, pre, err)
        y = torch.randn(M, N, generator=g, device=device).to(dt)
        h = norm(y, torch.empty(M, N // 2, device=device, dtype=dt)).float()
        v = y[:, :N // 2].float()
        assert torch.allclose(h, v * torch.rsqrt(v.pow(2).mean(-1, keepdim=True) + 1e-6), rtol=2e-2, atol=2e-2)
    print('gemm matches F.linear (configurations x PRE 0-2); norm matches')

def shapes() -> dict[str, tuple[int, int]]:
    "The four weight GEMMs of a full-size Gated DeltaNet layer of the step, (N, K), fused as the step fuses them."
    from ta.patches.bench import decoder_config
    c = decoder_config('2b')
    D, I = c.hidden_size, c.intermediate_size
    gdn = 2 * c.linear_num_key_heads * c.linear_key_head_dim + 2 * c.linear_num_value_heads * c.linear_value_head_dim + 2 * c.linear_num_value_heads
    return {'in_proj': (gdn, D), 'out_proj': (D, c.linear_num_value_heads * c.linear_value_head_dim), 'gate_up': (2 * I, D), 'down': (D, I)}

def graph_us(fn, calls: int = 1) -> float:
    "us per call of fn() (which makes `calls` calls), replayed as one CUDA graph: median of 30 replays after 3."
    from ta.patches.bench import time_steps, summarize
    fn(); torch.cuda.synchronize(); g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g): fn()
    return summarize(time_steps(g.replay, repeats=30, warmup=3, cuda=True))['median_ms'] * 1e3 / calls

def best_configs(shp: dict, sets: list, M: int) -> dict:
    "The fastest configuration per shape at M rows, each GEMM alone (20 calls cycling through the weight copies), no PDL."
    best = {}
    for name, (N, K) in shp.items():
        x, y = torch.randn(M, K, device='cuda', dtype=torch.bfloat16), torch.empty(M, N, device='cuda', dtype=torch.bfloat16)
        us = {}
        for cfg in CONFIGS:
            if cfg[0] > (32 if N <= 2048 else 64 if M < 128 else 128) or (N > 2048 and cfg[0] < 32): continue   # 2048 columns: 16-32 a program fill the SMs
            try: us[cfg] = graph_us(lambda: [gemm(x, s[name], y, cfg) for _, s in zip(range(20), sets * 20)], 20)
            except triton.runtime.errors.OutOfResources: pass
        best[name] = min(us, key=us.get)
        print(f'  {name} at {M} rows: ' + ', '.join(f'{c}: {u:.2f}' for c, u in us.items()), flush=True)
    return best

def chain(shp: dict, sets: list, M: int, variant: str, cfgs: dict, pre: int):
    "The layer chain of `variant` at M rows: returns (run, output) where run() launches LAYERS layers."
    names = list(shp)
    x0 = torch.randn(M, shp[names[0]][1], device='cuda', dtype=torch.bfloat16, generator=torch.Generator(device='cuda').manual_seed(1))   # one input for every variant
    ys = {n: torch.empty(M, N, device='cuda', dtype=torch.bfloat16) for n, (N, K) in shp.items()}
    hs = {n: torch.empty(M, K, device='cuda', dtype=torch.bfloat16) for n, (N, K) in shp.items()}
    pdl = variant != 'cublas' and variant != 'triton'
    opts = dict(pdl=pdl, pre=pre if variant in ('triton_pdl_pre', 'triton_pdl_l2') else 0, l2=variant == 'triton_pdl_l2')
    def run():
        prev = x0
        for l in range(LAYERS):
            s = sets[l % len(sets)]
            for n in names:
                h = norm(prev, hs[n], pdl=pdl)
                prev = torch.mm(h, s[n].t(), out=ys[n]) if variant == 'cublas' else gemm(h, s[n], ys[n], cfgs[n], **opts)
        return prev
    return run, ys[names[-1]]

def main(out: str) -> None:
    from ta.patches.bench import copy_bandwidth, environment
    check('cuda')
    bw, shp = copy_bandwidth(), shapes()
    layer_mb = sum(N * K * 2 for N, K in shp.values()) / 1e6
    g = torch.Generator(device='cuda').manual_seed(0)
    sets = [{n: torch.randn(N, K, device='cuda', dtype=torch.bfloat16, generator=g) * 0.02 for n, (N, K) in shp.items()}
            for _ in range(max(2, math.ceil(STREAM_MB / layer_mb)))]
    rec = dict(env=environment(), copy_tb_per_s=round(bw, 3), layers=LAYERS, weight_sets=len(sets), layer_mb=round(layer_mb, 1),
               floor_us_per_layer=round(layer_mb / bw, 2), shapes=shp, runs=[])
    variants = ('cublas', 'triton', 'triton_pdl', 'triton_pdl_pre', 'triton_pdl_l2')
    for M in ROWS:
        cfgs = best_configs(shp, sets, M)
        ref_run, ref_out = chain(shp, sets, M, 'cublas', cfgs, 0)
        ref_run(); ref = ref_out.float().clone()
        for rnd in range(2):                                    # each variant twice, in turn: a drift of the machine shows
            for v in variants:
                for pre in ((1, 2) if v == 'triton_pdl_pre' else (1,) if v == 'triton_pdl_l2' else (0,)):
                    run, o = chain(shp, sets, M, v, cfgs, pre)
                    try: run(); torch.cuda.synchronize()
                    except triton.runtime.errors.OutOfResources as e:    # stop 58: PRE's tiles beside gate_up's 128 x 128 stages at 128 rows
                        rec['runs'].append(dict(rows=M, round=rnd, variant=v, pre=pre, error=str(e)[:200])); print(rec['runs'][-1], flush=True)
                        continue
                    err = ((o.float() - ref).abs().max() / ref.abs().max()).item()
                    us = graph_us(run, LAYERS)
                    row = dict(rows=M, round=rnd, variant=v, pre=pre, us_per_layer=round(us, 2), x_floor=round(us / rec['floor_us_per_layer'], 3),
                               max_rel_diff=round(err, 5), configs={n: list(c) for n, c in cfgs.items()})
                    rec['runs'].append(row); print(json.dumps(row), flush=True)
                    json.dump(rec, open(out, 'w'), indent=1)
    print('wrote', out)

if __name__ == '__main__':
    if '--check' in sys.argv: check('cuda' if torch.cuda.is_available() else 'cpu')
    else: main(sys.argv[1])
