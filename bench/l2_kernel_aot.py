"""Compile `ta.patches.l2`'s prefetch kernel ahead of time for the H200 (sm_90) on a machine without a GPU: does ptxas
accept the inline `cp.async.bulk.prefetch.L2.global`, and does the PTX keep it and the store that pins it? Needs the
triton wheel (it carries ptxas), e.g. into a folder of its own beside the CPU torch:
  pip download triton==3.6.0 --no-deps -d /tmp/tw && pip install --no-deps --target /tmp/tritonpkg /tmp/tw/triton-*.whl
  PYTHONPATH=/tmp/tritonpkg python bench/l2_kernel_aot.py bench/l2_kernel_aot_cpu.json"""
import json, sys
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from ta.patches.l2 import _prefetch_kernel, CHUNK_BYTES, PROGRAM_CHUNKS

src = ASTSource(fn=_prefetch_kernel(), signature={'base': '*bf16', 'n_chunks': 'i32', 'CHUNK': 'constexpr', 'BLOCK': 'constexpr'},
                constexprs={'CHUNK': CHUNK_BYTES, 'BLOCK': PROGRAM_CHUNKS})
k = triton.compile(src, target=GPUTarget('cuda', 90, 32), options=dict(num_warps=1))
lines = [l.strip() for l in k.asm['ptx'].splitlines()]
rec = dict(triton=triton.__version__, target='cuda sm_90', cubin_bytes=len(k.asm['cubin']),
           prefetch_lines=[l for l in lines if 'cp.async.bulk.prefetch.L2' in l], store_lines=[l for l in lines if l.startswith('@') and 'st.global' in l])
json.dump(rec, open(sys.argv[1], 'w'), indent=1); print(json.dumps(rec, indent=1))
