"""Where a training step of the default model spends its time (nbs/14_train): one batch of `--batch-seconds` of
synthetic audio, 3 warm-up steps, then `--steps` steps under torch.profiler. Prints the mean step time and the
profiler's key_averages sorted by device time, and writes both to --out as JSON.
Run on the H200 inside a training call (bench/train_h200.sh does, before training):
    python3 bench/train_profile_h200.py --state .train/run/state --out $OUT/train_profile.json"""
import argparse, json, time
from pathlib import Path
import torch
from torch.profiler import profile, ProfilerActivity
from ta.train import restore, new_model, build_tokenizer, SpeechStream, _step, augmented, DEFAULT_VOCAB
from ta.model import torch_references

p = argparse.ArgumentParser()
p.add_argument('--state', type=Path, default=Path('.train/run/state'))
p.add_argument('--data', type=Path, default=Path('.train'))
p.add_argument('--batch-seconds', type=float, default=900)
p.add_argument('--steps', type=int, default=5)
p.add_argument('--out', type=Path, required=True)
a = p.parse_args()
device = 'cuda' if torch.cuda.is_available() else 'cpu'
model = (restore(a.state)[0] if (a.state / 'meta.json').exists() else new_model(build_tokenizer(DEFAULT_VOCAB))).to(device).train()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=device == 'cuda')
b = next(iter(SpeechStream(a.data, model.tokenizer, batch_seconds=a.batch_seconds, group=1)))
clips = b.clips
step = lambda: _step(model, opt, b.clips, b.ids, 1e-4, b.warps, b.masks, b.seeds)   # as ta.train's loop: augmented on the device (from stop 48)
sync = torch.cuda.synchronize if device == 'cuda' else (lambda: None)
references = torch_references(model); references.__enter__()   # the torch Gated DeltaNet, as ta.train runs it
for _ in range(3): step()
sync(); t = time.perf_counter()
for _ in range(a.steps): step()
sync(); step_s = (time.perf_counter() - t) / a.steps
t = time.perf_counter()
for _ in range(a.steps): augmented(b.clips, b.ids, b.seeds, device)
sync(); augment_s = (time.perf_counter() - t) / a.steps   # of it: the batch's augmentation alone
acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == 'cuda' else [])
with profile(activities=acts) as prof:
    for _ in range(a.steps): step()
    sync()
key = 'self_cuda_time_total' if device == 'cuda' else 'self_cpu_time_total'
table = prof.key_averages().table(sort_by=key, row_limit=30)
print(f'{len(clips)} clips, {sum(len(c) for c in clips) / 16000:.0f} s of audio: {1000 * step_s:.1f} ms a step, {1000 * augment_s:.1f} ms of it augmenting'); print(table)
a.out.write_text(json.dumps(dict(device=torch.cuda.get_device_name() if device == 'cuda' else 'cpu', clips=len(clips),
                                 audio_s=sum(len(c) for c in clips) / 16000, step_ms=1000 * step_s, augment_ms=1000 * augment_s, table=table), indent=1))
