"""Run every code cell of a notebook in order in one namespace, `#| gpu` cells included (what `nbdev_test --flags gpu`
runs), for a machine without nbdev: python bench/run_nb.py nbs/07_engine.ipynb [OUT.ipynb]. Skips `#| eval: false` and
export cells. With OUT.ipynb it also writes the notebook with what each run cell printed and the matplotlib figures it
left open, as outputs (written too when a cell fails, up to that cell), so GPU evidence can be committed as executed.
The guard below matters: a process the notebook starts with multiprocessing's `spawn` imports this file again."""
import base64, codeop, contextlib, io, json, os, sys, time

class _Tee(io.TextIOBase):
    "Writes through to `out` and keeps a copy: a cell's printed output, for the executed notebook."
    def __init__(self, out): self.out, self.kept = out, io.StringIO()
    def write(self, s: str) -> int: self.out.write(s); return self.kept.write(s)
    def flush(self): self.out.flush()
    def fileno(self) -> int: return self.out.fileno()   # a subprocess given sys.stdout writes straight through (not kept)
    def isatty(self) -> bool: return self.out.isatty()
    @property
    def encoding(self) -> str: return self.out.encoding

def _figures() -> list[dict]:
    "The open matplotlib figures as PNG outputs, then closed (none when the notebook has not imported pyplot)."
    plt, outs = sys.modules.get('matplotlib.pyplot'), []
    for n in (plt.get_fignums() if plt else []):
        buf = io.BytesIO(); plt.figure(n).savefig(buf, format='png', bbox_inches='tight')
        outs.append({'output_type': 'display_data', 'metadata': {}, 'data': {'image/png': base64.b64encode(buf.getvalue()).decode(), 'text/plain': ['<Figure>']}})
    if plt: plt.close('all')
    return outs

def run(path: str, out: str | None = None):
    path, out = os.path.abspath(path), out and os.path.abspath(out)
    nb, t0 = json.load(open(path)), time.time()
    os.chdir(os.path.dirname(path)); ns = {'__name__': '__main__'}
    compile_cell = codeop.Compile()   # keeps a cell's `from __future__ import annotations` for the cells after it, as IPython does
    try:
        for i, cell in enumerate(nb['cells']):
            src = ''.join(cell['source'])
            if cell['cell_type'] != 'code' or '#| eval: false' in src or 'nbdev_export' in src or src.startswith('#| default_exp'): continue
            tee = _Tee(sys.stdout)
            try:
                with contextlib.redirect_stdout(tee): exec(compile_cell(src, f'{os.path.basename(path)} cell {i}', 'exec'), ns)
            finally:
                printed = tee.kept.getvalue()
                cell['outputs'] = ([{'output_type': 'stream', 'name': 'stdout', 'text': printed.splitlines(True)}] if printed else []) + _figures()
    finally:
        if out: open(out, 'w').write(json.dumps(nb, indent=1, ensure_ascii=False) + '\n')
    print(f'{os.path.basename(path)}: all cells passed in {time.time() - t0:.0f} s')

if __name__ == '__main__': run(*sys.argv[1:3])
