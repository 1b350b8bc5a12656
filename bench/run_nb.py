"""Run every code cell of a notebook in order in one namespace, `#| gpu` cells included (what `nbdev_test --flags gpu`
runs), for a machine without nbdev: python bench/run_nb.py nbs/09_engine.ipynb. Skips `#| eval: false` and export cells.
The guard below matters: a process the notebook starts with multiprocessing's `spawn` imports this file again."""
import json, os, sys, time

def run(path: str):
    path = os.path.abspath(path); os.chdir(os.path.dirname(path))
    ns, t0 = {'__name__': '__main__'}, time.time()
    for i, cell in enumerate(json.load(open(path))['cells']):
        src = ''.join(cell['source'])
        if cell['cell_type'] != 'code' or '#| eval: false' in src or 'nbdev_export' in src or src.startswith('#| default_exp'): continue
        exec(compile(src, f'{os.path.basename(path)} cell {i}', 'exec'), ns)
    print(f'{os.path.basename(path)}: all cells passed in {time.time() - t0:.0f} s')

if __name__ == '__main__': run(sys.argv[1])
