"""Issue 16: does the kept training state (the embedded default, ta/checkpoints/default; bench/train_state before stop 47) hear the voices it trained on better than new ones? WER of
greedy transcripts of 60 clean new sentences of the test split (Revelation, random words, numbers: no training
sentence) in espeak-ng's training voices and 60 in flite's training voices (kal16, awb, rms), beside the held-out
voices' numbers of `python -m ta.train --evaluate`. Runs on a CPU in a few minutes.
Usage: PYTHONPATH=$PWD/.train python bench/train_voices_wer.py OUT.json [STATE]   (needs .train from bash bench/train_data.sh;
STATE: a run's state folder, e.g. .train/run/state, to score before keeping it; default the embedded default)"""
import json, sys
from pathlib import Path
import numpy as np
from ta.corpus import FLITE_VOICES, Flite, IsolatedEspeak, voices
from ta.settings import DEFAULT_MODEL_DIR
from ta.train import held_out_wer, restore, voice_test_set

model, meta = restore(Path(sys.argv[2]) if len(sys.argv) > 2 else DEFAULT_MODEL_DIR)
data, rng, train_voices = Path('.train'), np.random.default_rng(99), voices('train')
with IsolatedEspeak() as tts:
    espeak = voice_test_set(lambda text: tts.say(text, train_voices[rng.integers(len(train_voices))]), 'espeak-ng training voices', data, 60, seed=99)
flite = Flite()
flite_set = voice_test_set(lambda text: flite.say(text, FLITE_VOICES[rng.integers(len(FLITE_VOICES))]), 'flite training voices', data, 60, seed=98)
rec = dict(step=meta['step'], espeak_training_voices=held_out_wer(model, espeak), flite_training_voices=held_out_wer(model, flite_set))
json.dump(rec, open(sys.argv[1], 'w'), indent=1)
print({k: round(v['wer'], 3) if isinstance(v, dict) else v for k, v in rec.items()})
