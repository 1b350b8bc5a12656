"""How inductor places `ta.patches.l2`'s ops in the compiled decode step, on this CPU with the embedded tiny checkpoint:
the step compiled with `ta.engine.L2_PREFETCH_MB` at 0 and at 16 (dynamo guards the value, so each compiles afresh), and
per variant the calls of `prefetch_l2_` and `join_l2_` in the generated code, the kernel launches, the extern GEMMs and
the clones and copies (an anchor declared mutated could cost a copy where inductor does not re-inplace it), and whether
each prefetch follows the GEMM or kernel that writes its anchor. The GPU code differs (Triton kernels, not C++), the
placement of extern ops does not. Usage: python bench/l2_trace_cpu.py OUT.json"""
import json, re, sys
import torch
from torch._inductor.utils import run_and_get_code
import ta.engine as E
from ta.model import ASRModel

model = ASRModel.from_pretrained('ta/checkpoints/tiny', device='cpu')
dec = model.decoder
E.fuse_projections_(dec)
pool = E.new_pool(dec, rows=4, cache_len=64, new_tokens=8, device=torch.device('cpu'))
def before(body: list[str], i: int) -> str:
    "The kernel launch or extern call last before line i of the generated code: an extern op's name, or 'kernel' for a fused kernel."
    for l in reversed(body[:i]):
        if l.startswith(('extern_kernels.', 'torch.ops.')): return l.split('(')[0]
        if re.match(r'cpp_fused\w*\(', l): return 'kernel'
    return 'start'

rec = dict(torch=torch.__version__, layers=len(dec.model.layers), variants={})
for mb in (0.0, 16.0):
    E.L2_PREFETCH_MB = mb
    with torch.inference_mode():
        _, codes = run_and_get_code(torch.compile(E.decode_step), dec, E.rows_view(pool, 4), torch.tensor(model.stop_token_ids), model.pad_token_id, 12)
    body = [l.strip() for l in '\n'.join(codes).splitlines()]
    calls = [i for i, l in enumerate(body) if l.startswith('torch.ops.ta.prefetch_l2_')]
    rec['variants'][str(mb)] = dict(
        prefetch_calls=len(calls), join_calls=sum(l.startswith('torch.ops.ta.join_l2_') for l in body),
        kernel_launches=sum(bool(re.match(r'cpp_fused\w*\(', l)) for l in body), extern_gemms=sum(l.startswith('extern_kernels.') for l in body),
        clones_and_copies=sum(len(re.findall(r'clone|copy_\(', l)) for l in body),
        after=sorted(set(before(body, i) for i in calls)))   # what ran just before each prefetch: the writer of its anchor
print(json.dumps(rec, indent=1)); json.dump(rec, open(sys.argv[1], 'w'), indent=1)
