"""The training loader's rate on this CPU: seconds of audio (augmented on the device from stop 48: `augmented`) `SpeechStream` makes per wall-clock second in one
process and the synthesisers' children it waits on (one at a time), its draws fixed by the seed (nbs/14_train). Alternates the given trees' `ta` (each a folder holding `ta/`), so
two versions of the loader meet the same draws on the same machine at the same time.
Usage: PYTHONPATH=$PWD/.train python bench/loader_cpu.py OUT.json TREE [TREE ...]   (e.g. /tmp/before .)"""
import json, os, statistics, subprocess, sys

ONE = r'''
import sys, time, torch
from pathlib import Path
from transformers import PreTrainedTokenizerFast
import ta
from ta.train import SpeechStream
print(ta.__file__)   # -P: the working directory is not on sys.path, so this is the tree's ta
torch.set_num_threads(1)
it = iter(SpeechStream(Path('.train'), PreTrainedTokenizerFast(tokenizer_file='ta/checkpoints/default/tokenizer.json'), batch_seconds=60, seed=3))
next(it)   # the children start (espeak-ng's, festival's)
t, audio = time.perf_counter(), 0.0
for _ in range(16): audio += sum(len(c) for c in next(it)[0]) / 16000
print(audio, time.perf_counter() - t)
'''

def rate(tree: str) -> tuple[float, float]:
    "Seconds of audio and wall-clock seconds for 16 batches of 60 s with `tree`'s ta."
    tree = os.path.abspath(tree)
    env = {'PYTHONPATH': ':'.join([tree] + [p for p in sys.path if p]), 'PATH': '/usr/bin:/bin'}
    where, audio, wall = subprocess.run([sys.executable, '-P', '-c', ONE], capture_output=True, text=True, check=True, env=env).stdout.split()
    assert where.startswith(tree + '/'), f'{tree} asked for, {where} imported'
    return float(audio), float(wall)

if __name__ == '__main__':
    out, trees, runs = sys.argv[1], sys.argv[2:], {}
    for _ in range(3):
        for tree in trees: runs.setdefault(tree, []).append(rate(tree))
    rec = {tree: dict(audio_s=rs[0][0], wall_s=[round(c, 2) for _, c in rs], x_real_time=round(statistics.median(a / c for a, c in rs)))
           for tree, rs in runs.items()}
    print(json.dumps(rec, indent=1)); json.dump(dict(command=' '.join(sys.argv), runs=rec), open(out, 'w'), indent=1)
