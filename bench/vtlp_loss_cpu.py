"""What the formant warp does to the trained default model (nbs/13_corpus "Vocal tract length"), on this CPU: the kept
state (`bench/train_state` in stop 46; the embedded default, `ta/checkpoints/default`, from stop 47) scores the same training utterances (fresh espeak-ng, flite and festival draws of the
training split, augmented as in training) with every clip's formants moved by one factor, for factors from 0.85 to
1.25: the decoder's cross-entropy and the CTC loss per factor, the same utterances and augmentation for each. 1.0 is
what it trained on. If the loss barely moves, the warp teaches nothing new; if it explodes, the warped clips are out of
reach. Prediction, before the run: cross-entropy up by 10-40% at 0.9 and at 1.2, more at 1.25 than at 1.2.
Usage: PYTHONPATH=$PWD/.train python bench/vtlp_loss_cpu.py OUT.json [BATCHES]   (needs .train from bench/train_data.sh)"""
import json, sys
import torch
from loss_probe import probe
from ta.train import losses

out, batches = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 4
FACTORS = (0.85, 0.9, 1.0, 1.1, 1.2, 1.25)
model, meta, data, rec = probe(batches, seed=46)
with torch.no_grad():
    for a in FACTORS:
        ce, ctc = zip(*[losses(model, clips, ids, [a] * len(clips)) for clips, ids in data])
        rec['losses'][str(a)] = dict(ce=round(float(torch.stack(ce).mean()), 4), ctc=round(float(torch.stack(ctc).mean()), 4))
        print(a, rec['losses'][str(a)], flush=True)
json.dump(rec, open(out, 'w'), indent=1)
