"""The decode step's attention alone (issue 11, item 5): one token per row, the GQA group folded into the query axis
(4 query heads per KV head), against each row's whole KV cache under a [b, 1, 1, C] boolean mask, as
`ta.engine.attention_step` calls it. The step's profile (bench/step_profile_h200.json) puts cuDNN's flash kernel at
32-36 us a layer at 1 and 32 rows and 80 us at 128, where reading the cache takes 0.3, 10 and 39 us at the copy
bandwidth. Each sdpa backend that takes a mask, compiled as the step is and captured 20 times in one CUDA graph:
us per call and the largest difference from the math backend in fp32.
Predicted before measuring: memory-efficient attention at <= 10 us a layer at 1 row and <= 20 us at 32.
Usage: python bench/attention_h200.py CKPT OUT.json"""
import json, sys
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from ta.engine import DecodeEngine
from ta.model import ASRModel
from ta.patches.bench import time_steps, summarize, copy_bandwidth, environment

ckpt, out = sys.argv[1:3]
model = ASRModel.from_pretrained(ckpt, device='cuda')
C = DecodeEngine(model, 1, 'eager').pool.cache_len                       # KV columns per row, as the server sizes them
cfg = model.decoder.config
KV, G, HD = cfg.num_key_value_heads, cfg.num_attention_heads // cfg.num_key_value_heads, cfg.head_dim
bw = copy_bandwidth()
rec = dict(env=environment(), copy_tb_per_s=round(bw, 3), cache_len=C, kv_heads=KV, group=G, head_dim=HD, runs=[])
BACKENDS = {'default (cuDNN chosen)': None, 'efficient': SDPBackend.EFFICIENT_ATTENTION, 'cudnn': SDPBackend.CUDNN_ATTENTION,
            'math': SDPBackend.MATH}

def attend(backend):
    def f(q, k, v, m):
        if backend is None: return F.scaled_dot_product_attention(q, k, v, attn_mask=m)
        with sdpa_kernel([backend]): return F.scaled_dot_product_attention(q, k, v, attn_mask=m)
    return torch.compile(f, dynamic=False)

g = torch.Generator(device='cuda').manual_seed(0)
for b in (1, 32, 128):
    q = torch.randn(b, KV, G, HD, device='cuda', generator=g).bfloat16()
    k, v = (torch.randn(b, KV, C, HD, device='cuda', generator=g).bfloat16() for _ in 'kv')
    pad = torch.randint(0, C // 4, (b,), device='cuda', generator=g); pos = torch.randint(C // 2, C, (b,), device='cuda', generator=g)
    cols = torch.arange(C, device='cuda')
    m = ((cols >= pad[:, None]) & (cols <= pos[:, None]))[:, None, None]
    with sdpa_kernel([SDPBackend.MATH]): ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(), attn_mask=m)
    kv_bytes = 2 * k.numel() * k.element_size()
    for name, backend in BACKENDS.items():
        try:
            fn = attend(backend); o = fn(q, k, v, m); torch.cuda.synchronize()
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                for _ in range(20): fn(q, k, v, m)
            us = summarize(time_steps(graph.replay, repeats=30, warmup=3, cuda=True))['median_ms'] * 1e3 / 20
            r = dict(rows=b, backend=name, us=round(us, 2), floor_us=round(kv_bytes / bw / 1e6, 2),
                     max_diff=round((o.float() - ref).abs().max().item(), 5))
        except Exception as e:
            r = dict(rows=b, backend=name, error=f'{type(e).__name__}: {str(e)[:200]}')
        rec['runs'].append(r); print(json.dumps(r), flush=True)
        json.dump(rec, open(out, 'w'), indent=1)
print('wrote', out)
