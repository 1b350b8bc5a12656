"""What SpecAugment's masks do to the trained default model (nbs/13_corpus "Masks over time and frequency"), on this CPU:
the embedded default (`ta/checkpoints/default`, step 11,433) scores the same training utterances (fresh espeak-ng, flite
and festival draws of the training split, augmented as in training, no formant warp) without masks, then with every
clip masked (`spec_augment`) under each policy of `POLICIES` (the constants of `ta.corpus` set for the run: `ld` is
Park et al.'s LibriSpeech LD policy, as `ta.corpus` first had it), each with `DRAWS` independent sets of draws: the
decoder's cross-entropy and the CTC loss. If the loss barely moves, the masks teach nothing; if it explodes, the masked
clips are out of reach. Prediction, before the first run (the `ld` policy only): cross-entropy up by 10-30% and CTC by
15-40% with every clip masked. It rose 17-fold (0.20 to 3.4 nats), so the run was extended to the other policies.
Usage: PYTHONPATH=$PWD/.train python bench/spec_augment_loss_cpu.py OUT.json [BATCHES]   (needs .train from bench/train_data.sh)"""
import json, sys
import numpy as np
import torch
import ta.corpus
from loss_probe import probe
from ta.corpus import spec_augment_draws
from ta.train import losses

out, batches = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 4
DRAWS = 3
POLICIES = {   # FREQ_MASKS, FREQ_MASK_BINS, TIME_MASKS, TIME_MASK_STEPS, TIME_MASK_SHARE
    'ld': (2, 27, 2, 50, 0.2), 'ld_bands_only': (2, 27, 0, 50, 0.2), 'ld_spans_only': (0, 27, 2, 50, 0.2),
    'half': (2, 13, 2, 25, 0.1), 'one_each_small': (1, 8, 1, 10, 0.1)}
model, meta, data, rec = probe(batches, seed=47)
rng = np.random.default_rng(47)
def scored(masked: bool) -> dict:
    "Mean cross-entropy and CTC over the batches, every clip masked by fresh draws under the policy set now, or none."
    ce, ctc = zip(*[losses(model, clips, ids, None, spec_augment_draws(rng, len(clips), share=1.0) if masked else None) for clips, ids in data])
    return dict(ce=round(float(torch.stack(ce).mean()), 4), ctc=round(float(torch.stack(ctc).mean()), 4))

with torch.no_grad():
    rec['losses']['none'] = scored(False); print('none', rec['losses']['none'], flush=True)
    for name, (fm, fb, tm, ts, tshare) in POLICIES.items():
        ta.corpus.FREQ_MASKS, ta.corpus.FREQ_MASK_BINS, ta.corpus.TIME_MASKS, ta.corpus.TIME_MASK_STEPS, ta.corpus.TIME_MASK_SHARE = fm, fb, tm, ts, tshare
        rec['losses'][name] = dict(policy=dict(freq_masks=fm, freq_mask_bins=fb, time_masks=tm, time_mask_steps=ts, time_mask_share=tshare),
                                   draws=[scored(True) for _ in range(DRAWS)])
        print(name, rec['losses'][name], flush=True)
json.dump(rec, open(out, 'w'), indent=1)
