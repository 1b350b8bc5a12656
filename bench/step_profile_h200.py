"""Where the engine's decode step spends its time now (issue 11, item 5): the compiled, captured step the server replays
(`ta.engine.decode_step`, fused projections, fla's recurrent step with the [K x 16] tile, fp32 and bf16 state) at
buckets 1, 32 and 128, each beside its floor; a profile of 5 replays per bucket by kernel group and by kernel; and every
weight GEMM shape of the step alone (cuBLAS through F.linear, 20 calls captured as one graph) at the same row counts,
as microseconds and achieved TB/s against the copy bandwidth, so the GEMM group's excess can be split by shape.
Every row sits at the KV column of a 17 s chunk half-way through its new tokens (`LIVE`); before stop 29 every row sat at
column 0, which cost sdpa nothing less (it reads the whole cache) but would flatter a kernel that skips unwritten columns.
Usage (from bench/engine_h200.sh step_profile): python bench/step_profile_h200.py CKPT OUT.json [--fp32-only]
(--fp32-only: the fp32 state's steps and profiles alone, no GEMM shapes: the before/after of step_ab)"""
import json, sys, time
from collections import defaultdict
import torch
import torch.nn.functional as F
from ta.engine import DecodeEngine, _prompt_room
from ta.model import ASRModel
from ta.patches.bench import (time_steps, summarize, copy_bandwidth, decode_floor_bytes, floor_ms, environment,
                              profile_steps, kernel_table, kernel_group)

ckpt, out = sys.argv[1:3]
BUCKETS, TOP = (128, 32, 1), 25
model = ASRModel.from_pretrained(ckpt, device='cuda')
LIVE = _prompt_room(model, 17.0) + int(3.3 * 17 / 2)   # KV column each row writes next: a 17 s chunk's prompt, then half its new tokens at 3.3 a second
bw = copy_bandwidth()
rec = dict(env=environment(), checkpoint=ckpt, copy_tb_per_s=round(bw, 3), live_column=LIVE, steps=[], gemms=[])
save = lambda: json.dump(rec, open(out, 'w'), indent=1)

def engine(dtype: str) -> DecodeEngine:
    "A compiled engine with the decode graphs of `BUCKETS` captured (no encoder or prefill graphs), no row ever stopping."
    eng = DecodeEngine(model, 128, 'compiled', state_dtype=dtype)
    eng.stop_ids.fill_(-1)
    eng.pool.pos.fill_(LIVE)   # every row half-way through a chunk's new tokens: attention reads what rows have written
    pool, t0 = torch.cuda.graph_pool_handle(), time.perf_counter()
    for b in BUCKETS: eng.capture(b, pool)
    print(f'{dtype}: captured {BUCKETS} in {time.perf_counter() - t0:.1f} s', flush=True)
    return eng

def by_kernel(prof, steps: int) -> list[dict]:
    "Device us per step and calls per step of each kernel name, largest first (the first `TOP`)."
    acc = defaultdict(lambda: [0.0, 0])
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            a = acc[e.name]; a[0] += e.time_range.elapsed_us() / steps; a[1] += 1
    rows = [dict(kernel=n[:120], group=kernel_group(n), us_per_step=round(us, 2), calls_per_step=round(c / steps, 1))
            for n, (us, c) in acc.items()]
    return sorted(rows, key=lambda r: -r['us_per_step'])[:TOP]

def measure(eng: DecodeEngine, dtype: str) -> None:
    "Each bucket's median replay ms against its floor, then its profile."
    w = sum(p.numel() * p.element_size() for p in model.decoder.parameters())
    for b in BUCKETS:
        fb = decode_floor_bytes(model.decoder.config, b, eng.pool.cache_len, weight_bytes=w)
        total = fb['total'] - (fb['recurrent_state_rw'] // 2 if dtype == 'bfloat16' else 0)
        s = summarize(time_steps(eng.graphs[b].replay, repeats=50, warmup=5, cuda=True))
        prof = profile_steps(eng.graphs[b].replay, steps=5)
        groups, kernels = kernel_table(prof, 5), by_kernel(prof, 5)
        fl = floor_ms(total, bw)
        rec['steps'].append(dict(state_dtype=dtype, bucket=b, **s, floor_ms=round(fl, 4), x_floor=round(s['median_ms'] / fl, 3),
                                 achieved_tb_per_s=round(total / 1e9 / s['median_ms'], 3), kernel_ms=round(sum(g['ms_per_step'] for g in groups), 4),
                                 groups=groups, top_kernels=kernels))
        print(json.dumps({k: v for k, v in rec['steps'][-1].items() if k not in ('groups', 'top_kernels')}), flush=True)
        for g in groups: print('   ', json.dumps(g))
        save()

def gemm_shapes() -> dict[str, tuple[torch.Tensor, int]]:
    "Each distinct weight the step multiplies by: name -> (weight [N, K] bf16, uses per step)."
    layers, shapes = model.decoder.model.layers, {}
    def add(name, w):
        if name in shapes: shapes[name] = (shapes[name][0], shapes[name][1] + 1)
        else: shapes[name] = (w, 1)
    for layer in layers:
        if hasattr(layer, 'linear_attn'):
            add('gdn in_proj (qkv z b a fused)', layer.linear_attn.fused[0]); add('gdn out_proj', layer.linear_attn.out_proj.weight)
        else:
            add('attn q k v fused', layer.self_attn.fused[0]); add('attn o_proj', layer.self_attn.o_proj.weight)
        add('mlp gate+up fused', layer.mlp.fused[0]); add('mlp down_proj', layer.mlp.down_proj.weight)
    add('lm_head', model.decoder.lm_head.weight)
    return shapes

@torch.inference_mode()
def gemms() -> None:
    "Every GEMM shape alone at each bucket's rows: 20 F.linear calls in one graph, us per call, TB/s of its weight bytes."
    for name, (w, uses) in gemm_shapes().items():
        for m in BUCKETS:
            x = torch.randn(m, w.shape[1], device='cuda', dtype=w.dtype)
            y = F.linear(x, w)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                for _ in range(20): y = F.linear(x, w)
            us = summarize(time_steps(g.replay, repeats=30, warmup=3, cuda=True))['median_ms'] * 1e3 / 20
            nbytes = w.numel() * w.element_size()
            rec['gemms'].append(dict(gemm=name, n=w.shape[0], k=w.shape[1], rows=m, uses_per_step=uses, us=round(us, 2),
                                     floor_us=round(nbytes / bw / 1e6, 2), tb_per_s=round(nbytes / 1e6 / us, 3),
                                     us_per_step=round(us * uses, 1)))
            print(json.dumps(rec['gemms'][-1]), flush=True)
            del g
    save()

fp32 = engine('float32')   # its constructor fuses the projections gemm_shapes reads
if '--fp32-only' not in sys.argv: gemms()
measure(fp32, 'float32'); del fp32
if '--fp32-only' not in sys.argv:
    torch.cuda.empty_cache()
    bf16 = engine('bfloat16'); measure(bf16, 'bfloat16')
save()
print('wrote', out)
