"""What `bench/vtlp_loss_cpu.py` and `bench/spec_augment_loss_cpu.py` share: the embedded default in eval mode and the same
fresh training batches (espeak-ng, flite and festival draws of the training split, augmented as in training, no formant
warp) for each of their variants to score."""
from pathlib import Path
import torch
from ta.settings import DEFAULT_MODEL_DIR
from ta.train import SpeechStream, augmented, restore

def probe(batches: int, seed: int) -> tuple:
    "(model, meta, data, record): the default model, its training meta, `batches` batches of about 60 s as (clips, token ids), and the record's head (step, batches, clips, audio seconds, an empty `losses`)."
    torch.manual_seed(0)
    model, meta = restore(DEFAULT_MODEL_DIR)
    model.eval()
    stream = iter(SpeechStream(Path('.train'), model.tokenizer, batch_seconds=60, seed=seed, vtlp_share=0.0))
    data = [(augmented(b.clips, b.ids, b.seeds, 'cpu'), b.ids) for b in (next(stream) for _ in range(batches))]   # as the step augments them (from stop 48)
    rec = dict(step=meta['step'], batches=batches, clips=sum(len(c) for c, _ in data), audio_s=round(sum(len(x) for c, _ in data for x in c) / 16000, 1), losses={})
    return model, meta, data, rec
