"""The engine's recurrent state in fp32 against bf16 on trained weights (issue 11, item 4; the H200 run,
`bench/state_dtype_h200.py`, had only random synthetic weights, whose near-ties make any rounding flip tokens): the default
model's kept state (`bench/train_state` then; from stop 47 the embedded default, `ta/checkpoints/default`, whose bf16 checkpoint is it) exported (bf16 weights) and loaded as `ta serve` loads it (its `model_dtype`, fp32), the engine in eager mode on this CPU, greedy
transcripts of the held-out sets `python -m ta.train --evaluate` scores, with each state precision. Beside them the
model's own `generate` path (`ASRModel.transcribe_clips`, fp32 state, another order of the same arithmetic) against the
fp32-state engine: how far two ways of rounding that are both correct drift apart.
Usage: PYTHONPATH=$PWD/.train python bench/state_dtype_trained_cpu.py OUT.json [N]   (N utterances a set, 100)"""
import json, sys, tempfile, time
from pathlib import Path
import torch
from ta.engine import DecodeEngine
from ta.eval import corpus_wer, normalize, row_errors
from ta.model import ASRModel
from ta.settings import DEFAULT_MODEL_DIR
from ta.train import export_checkpoint, flite_test_set, passage_test_set, piper_test_set, restore, test_set

def transcripts(model: ASRModel, clips: list, state_dtype: str | None) -> list[str]:
    "Greedy transcripts of `clips` by the engine with `state_dtype` (32 rows), or by the model's own path (None)."
    if state_dtype is None: return [t for i in range(0, len(clips), 32) for t in model.transcribe_clips(clips[i:i + 32])]
    eng = DecodeEngine(model, max_batch_size=32, state_dtype=state_dtype).setup(progress=lambda *a: None)
    try: return eng.transcribe_clips(clips)
    finally: eng.close()

def main(out: str, n: int = 100):
    torch.set_num_threads(2)
    data, state = Path('.train'), DEFAULT_MODEL_DIR
    trained, meta = restore(state)
    ckpt = export_checkpoint(trained, Path(tempfile.mkdtemp()) / "ckpt")   # bf16 weights in the file, as served
    model = ASRModel.from_pretrained(ckpt, device='cpu')
    sets = {'espeak_held_out': test_set(data, n), 'flite_held_out': flite_test_set(data, n), 'piper': piper_test_set(data, n),
            'espeak_held_out_passages': passage_test_set(data, n)}
    rec = dict(step=meta['step'], weights=str(next(model.decoder.parameters()).dtype), utterances_per_set=n, sets={})
    for name, utts in sets.items():
        clips, refs, t = [u.audio for u in utts], [normalize(u.text) for u in utts], time.perf_counter()
        hyp = {k: transcripts(model, clips, d) for k, d in (('fp32_state', 'float32'), ('bf16_state', 'bfloat16'), ('generate', None))}
        wer = {k: round(corpus_wer([row_errors(r, normalize(h)) for r, h in zip(refs, hs)]), 4) for k, hs in hyp.items()}
        same = lambda a, b: round(sum(x == y for x, y in zip(hyp[a], hyp[b])) / len(refs), 3)
        rec['sets'][name] = dict(wer=wer, identical_bf16_vs_fp32=same('bf16_state', 'fp32_state'),
                                 identical_generate_vs_fp32=same('generate', 'fp32_state'), seconds=round(time.perf_counter() - t, 1),
                                 differing=[dict(ref=u.text, fp32=a, bf16=b) for u, a, b in zip(utts, hyp['fp32_state'], hyp['bf16_state']) if a != b][:3])
        print(name, json.dumps({k: v for k, v in rec['sets'][name].items() if k != 'differing'}), flush=True)
    json.dump(rec, open(out, 'w'), indent=1)

if __name__ == '__main__': main(sys.argv[1], *map(int, sys.argv[2:]))
