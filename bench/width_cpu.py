"""How fast would a wider default run on this CPU? (issue 16, nbs/14_train "Next (stop 52)": the issue asks for 20x real
time.) New models of each width (`new_model`, random weights, the default's tokenizer), each written as a bf16
checkpoint and loaded as `ta serve` loads one, transcribe `fixtures/speech_17s.flac` with the server's engine (eager, one
row) with no stop token, so every model runs the same number of decode steps: the row's budget for 17 s of audio, more
than a trained model writes (the trained default writes about 100 for it; this is the slowest case). The trained
default (width 160) is timed the same way beside them. The models take turns, one transcription each, ROUNDS times
after a warm-up each, so a load on the machine falls on all of them alike; the median of each.
Usage: python bench/width_cpu.py OUT.json [WIDTH ...]   (default: 160 224)"""
import json, statistics, sys, tempfile, time
from pathlib import Path
import torch
from ta.audio import decode_audio
from ta.engine import DecodeEngine
from ta.model import ASRModel
from ta.settings import DEFAULT_MODEL_DIR
from ta.train import export_checkpoint, new_model

ROUNDS = 11
torch.set_num_threads(2)
clip = decode_audio(Path('fixtures/speech_17s.flac').read_bytes())
seconds = len(clip) / 16000
widths = list(map(int, sys.argv[2:] or ['160', '224']))
models = {'trained default': ASRModel.from_pretrained(DEFAULT_MODEL_DIR, device='cpu')}
with tempfile.TemporaryDirectory() as tmp:
    for d in widths:
        torch.manual_seed(0)
        models[f'new, width {d}'] = ASRModel.from_pretrained(export_checkpoint(new_model(models['trained default'].tokenizer, d), Path(tmp) / str(d)), device='cpu')
engines = {k: DecodeEngine(m, max_batch_size=1).setup(progress=lambda *a: None) for k, m in models.items()}
times = {k: [] for k in engines}
try:
    for e in engines.values(): e.stop_ids.fill_(-1); e.transcribe_clips([clip])   # no stop token; a warm-up each
    steps0 = {k: e.stats.decode_steps for k, e in engines.items()}
    for _ in range(ROUNDS):
        for k, e in engines.items():
            t0 = time.perf_counter(); e.transcribe_clips([clip]); times[k].append(time.perf_counter() - t0)
    rec = dict(command=' '.join(['bench/width_cpu.py'] + sys.argv[2:]), audio_s=round(seconds, 2), rounds=ROUNDS, threads=2, models={})
    for k, e in engines.items():
        t = statistics.median(times[k])
        rec['models'][k] = dict(params=sum(p.numel() for p in models[k].parameters()), median_s=round(t, 3), rtfx=round(seconds / t, 1),
                                p10_s=round(sorted(times[k])[1], 3), p90_s=round(sorted(times[k])[-2], 3),
                                decode_steps=(e.stats.decode_steps - steps0[k]) // ROUNDS)
        print(k, rec['models'][k], flush=True)
finally:
    for e in engines.values(): e.close()
Path(sys.argv[1]).write_text(json.dumps(rec, indent=1) + '\n')
