"""The engine's decode step in variants, side by side in one process (issue 11): each variant a compiled engine (dynamo
reset first, so each compiles with its own settings) with the decode graphs of buckets 1, 32 and 128 captured (no
encoder or prefill graphs, no row ever stopping, every row at the KV column of a 17 s chunk half-way through its new
tokens, as bench/step_profile_h200.py). A variant is `base` or parts joined by `+`:
  cdt       inductor's coordinate-descent tuning of its Triton kernels (the step's 158 small kernels, 0.31 ms at 32
            rows); predicted -1 to -3% at 32 rows
  cublaslt  `torch.backends.cuda.preferred_blas_library('cublaslt')`: cuBLASLt's heuristics pick the GEMM kernels
            (the down projection's split-K and its reduce kernel, 12.4 us at 32 rows against 5.9 at the floor, are
            cuBLAS's choice); predicted within 3% either way
  combo     inductor's combo kernels (`combo_kernels`): independent small kernels of one graph launched as one (horizontal
            fusion); stop 52's prediction: the step's ~158 small kernels fall by a quarter to a third, -2 to -5% at 1 and
            32 rows (2 us each, ~0.1 ms), within 2% at 128 rows; the compile may refuse our Triton kernels' neighbours
  aggr      inductor's `aggressive_fusion` (fuses kernels that share no read); stop 52's prediction: within 2% either way
  pdl       stop 58: every weight GEMM but the lm_head through bench/pdl_gemm_h200.py's Triton GEMM, launched with
            programmatic dependent launch, its first weight tile loaded before it waits, and inductor's kernels with PDL
            (`triton.enable_pdl`) so the GEMM may launch while the kernel before it finishes (configurations from
            $PDL_RECORD, that script's record, when it exists)
  gpdl      the same GEMMs without inductor's PDL (the GEMM then launches only when the kernel before it ends)
A variant that fails to compile or capture is recorded with its error and the others go on.
Per variant and bucket: the median of 50 replays after 5 (ms) beside the floor, the kernels a replay runs by group,
and the tokens 8 replays write from the same start against the first variant's (another compile may round
differently, so agreement is reported, not assumed). The variants run in order, then again (ROUNDS),
so a drift of the machine shows.
Usage (bench/engine_h200.sh step_variants): python bench/step_variants_h200.py CKPT OUT.json [VARIANT ...]
(default: base cdt cublaslt; stop 52: base combo aggr; stop 49's l2=MB variants ran at commit 107d287, which had the L2 prefetch)"""
import gc, json, os, sys, time
import torch
from ta.engine import DecodeEngine, _prompt_room
from ta.model import ASRModel
import pdl_gemm_h200 as pdl
from ta.patches.bench import time_steps, summarize, copy_bandwidth, decode_floor_bytes, floor_ms, environment, profile_steps, kernel_table

BUCKETS, REPLAYS = (1, 32, 128), 8
ckpt, out, variants = sys.argv[1], sys.argv[2], sys.argv[3:] or ['base', 'cdt', 'cublaslt']
ROUNDS = 2
model = ASRModel.from_pretrained(ckpt, device='cuda')
LIVE = _prompt_room(model, 17.0) + int(3.3 * 17 / 2)
bw = copy_bandwidth()
rec = dict(env=environment(), checkpoint=ckpt, copy_tb_per_s=round(bw, 3), live_column=LIVE, runs=[])
weights = sum(p.numel() * p.element_size() for p in model.decoder.parameters())
reference: dict[int, torch.Tensor] = {}
DEFAULT_BLAS = torch.backends.cuda.preferred_blas_library()   # what the served step uses: every variant but cublaslt keeps it
rec['default_blas'] = str(DEFAULT_BLAS)

def apply(variant: str) -> None:
    "Set what `variant` names (nothing else: every part starts from the default)."
    torch._inductor.config.coordinate_descent_tuning = False
    torch._inductor.config.combo_kernels = False
    torch._inductor.config.aggressive_fusion = False
    torch.backends.cuda.preferred_blas_library(DEFAULT_BLAS)
    torch._inductor.config.triton.enable_pdl = False      # torch 2.11 has it (stop 38's TORCHINDUCTOR_ENABLE_PDL)
    pdl.patch_linear(False)
    for part in variant.split('+'):
        if part == 'cdt': torch._inductor.config.coordinate_descent_tuning = True
        elif part == 'cublaslt': torch.backends.cuda.preferred_blas_library('cublaslt')
        elif part == 'combo': torch._inductor.config.combo_kernels = True
        elif part == 'aggr': torch._inductor.config.aggressive_fusion = True
        elif part in ('pdl', 'gpdl'): pdl.patch_linear(True); torch._inductor.config.triton.enable_pdl = part == 'pdl'
        elif part != 'base': raise SystemExit(f'unknown variant part {part!r}: base, cdt, cublaslt, combo, aggr, pdl, gpdl')

def run(variant: str, rnd: int) -> None:
    "Build, capture and time one variant; its tokens against the first variant's."
    apply(variant); torch._dynamo.reset()
    eng, t0 = DecodeEngine(model, 128, 'compiled'), time.perf_counter()
    eng.stop_ids.fill_(-1)
    pool = torch.cuda.graph_pool_handle()
    for b in BUCKETS: eng.capture(b, pool)
    print(f'{variant}: captured {BUCKETS} in {time.perf_counter() - t0:.1f} s', flush=True)
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
        r = dict(variant=variant, round=rnd, bucket=b, **s, floor_ms=round(fl, 4), x_floor=round(s['median_ms'] / fl, 3),
                 kernels_per_step=sum(g['kernels_per_step'] for g in groups), groups=groups,
                 tokens_agree=round((toks == reference[b]).float().mean().item(), 4))
        rec['runs'].append(r)
        print(json.dumps({k: v for k, v in r.items() if k != 'groups'}), flush=True)
        json.dump(rec, open(out, 'w'), indent=1)
    del eng; gc.collect(); torch.cuda.empty_cache()

def attempt(variant: str, rnd: int) -> None:
    "`run`, with a failure recorded (the variant's error, then the next variant) rather than ending the call."
    try: run(variant, rnd)
    except Exception as e:
        rec['runs'].append(dict(variant=variant, round=rnd, error=f'{type(e).__name__}: {str(e)[:400]}'))
        print(variant, 'failed:', rec['runs'][-1]['error'], flush=True)
        json.dump(rec, open(out, 'w'), indent=1); gc.collect(); torch.cuda.empty_cache()

if os.path.exists(p := os.environ.get('PDL_RECORD', '')): pdl.load_configs(p); rec['pdl_configs'] = {str(k): v for k, v in pdl.STEP_CONFIGS.items()}
for v in variants: apply(v)   # an unknown part stops the run before anything compiles
for rnd in range(ROUNDS):
    for v in variants: attempt(v, rnd)
print('wrote', out)
