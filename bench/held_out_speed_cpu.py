"""Is a held-out voice's WER about its speaking rate and pitch? (issue 16, nbs/14_train "Next (stop 51)".) The embedded
default on this CPU (the server's engine, eager, 32 rows) on 100 utterances each of piper's voice and flite's `slt` and 50
clean ones of the espeak-ng accent, each played at 0.8-1.2x speed (`change_speed`: tempo, pitch and formants together,
as training's `speed_perturb` does over 0.85-1.15). A voice whose best factor is far from 1.0 would be missing a rate or
pitch from the training data. Needs .train (bench/train_data.sh).
Usage: PYTHONPATH=$PWD/.train python bench/held_out_speed_cpu.py OUT.json"""
import json, sys
from pathlib import Path
import torch
from ta.corpus import change_speed
from ta.engine import DecodeEngine
from ta.eval import corpus_wer, normalize, row_errors
from ta.model import ASRModel
from ta.settings import DEFAULT_MODEL_DIR
from ta.train import flite_test_set, piper_test_set, test_set

FACTORS = (0.8, 0.9, 1.0, 1.1, 1.2)
torch.set_num_threads(2)
data = Path('.train')
model = ASRModel.from_pretrained(DEFAULT_MODEL_DIR, device='cpu')
eng = DecodeEngine(model, max_batch_size=32).setup(progress=lambda *a: None)
sets = {'piper': piper_test_set(data, 100), 'flite_held_out': flite_test_set(data, 100), 'espeak_held_out_clean': test_set(data, 100)[0::2]}
rec = dict(command=' '.join(['bench/held_out_speed_cpu.py'] + sys.argv[1:]), step=json.loads((DEFAULT_MODEL_DIR / 'training.json').read_text())['step'],
           factors=FACTORS, wer={})
try:
    for name, utts in sets.items():
        refs = [normalize(u.text) for u in utts]
        rec['wer'][name] = {}
        for f in FACTORS:
            hyps = eng.transcribe_clips([u.audio if f == 1.0 else change_speed(torch.from_numpy(u.audio), f).numpy() for u in utts])
            rec['wer'][name][str(f)] = round(corpus_wer([row_errors(r, normalize(h)) for r, h in zip(refs, hyps)]), 4)
        print(name, rec['wer'][name], flush=True)
finally: eng.close()
Path(sys.argv[1]).write_text(json.dumps(rec, indent=1) + '\n')
