"""Where `ta serve`'s start-up goes before the engine captures graphs (issue 9): import times of the modules each process
needs, and `ASRModel.from_pretrained` phase by phase. Usage (from the repository root; PYTHONPATH picks the tree measured):
    PYTHONPATH=. python bench/startup_phases.py /tmp/syn2b cpu bench/startup_cpu_after.json
Each import is timed in a fresh interpreter (`python -c 'import X'`, the interpreter's own start included); the phases in this one."""
import json, os, platform, subprocess, sys, time
from pathlib import Path

def import_s(module: str, repeats: int = 3) -> float:
    "Median wall seconds of a fresh `python -c 'import module'` (interpreter start included)."
    runs = []
    for _ in range(repeats):
        t = time.perf_counter(); subprocess.run([sys.executable, '-c', f'import {module}'], check=True, capture_output=True)
        runs.append(time.perf_counter() - t)
    return sorted(runs)[len(runs) // 2]

def phases(ckpt: str, device: str) -> dict:
    "Seconds of each phase of `ASRModel.from_pretrained(ckpt, device)`, timed by wrapping `ta.model`'s helpers."
    import torch, ta.model as M
    times = {}
    def timed(name, f):
        def g(*a, **k):
            s = time.perf_counter(); r = f(*a, **k)
            if device.startswith('cuda'): torch.cuda.synchronize()
            times[name] = times.get(name, 0.0) + time.perf_counter() - s; return r
        return g
    for name in ('read_weights', '_build', 'load_base', '_merge_lora'):
        if hasattr(M, name): setattr(M, name, timed(name, getattr(M, name)))
    M.PreTrainedTokenizerFast.from_pretrained = timed('tokenizer', M.PreTrainedTokenizerFast.from_pretrained)
    s = time.perf_counter(); M.ASRModel.from_pretrained(ckpt, device=device)
    if device.startswith('cuda'): torch.cuda.synchronize()
    total = time.perf_counter() - s
    return {**{k: round(v, 2) for k, v in times.items()}, 'other': round(total - sum(times.values()), 2), 'total': round(total, 2)}

if __name__ == '__main__':
    ckpt, device, out = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    imports = {m: round(import_s(m), 2) for m in ('ta.settings', 'ta.http_workers', 'ta.server')}
    import torch, transformers
    rec = dict(machine=f'{platform.node()}: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, '
                       f'{torch.cuda.get_device_name() if device.startswith("cuda") else "no GPU"}',
               versions=dict(python=platform.python_version(), torch=torch.__version__, transformers=transformers.__version__),
               command=f"PYTHONPATH={os.environ.get('PYTHONPATH', '')} " + ' '.join(['python', *sys.argv]), checkpoint=ckpt, device=device,
               import_s=imports, from_pretrained_s=phases(ckpt, device))
    out.write_text(json.dumps(rec, indent=1) + '\n'); print(json.dumps(rec, indent=1))
