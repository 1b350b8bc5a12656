"""CUDA smoke run of the serving path on the embedded checkpoint: load as `ta serve` does (decode patches, fast-kernel
check), batch real speech through the scheduler, and print one JSON line. Run on a GPU machine from the repo root:
    python bench/serve_cuda.py
The speech comes from fixtures/features_ref.npz (16 kHz arrays), so neither ffmpeg nor alsa-utils is needed."""
import json, time
import numpy as np, torch
from ta.service import load_for_serving
from ta.settings import Settings
from ta.pipeline import Scheduler

ref = np.load('fixtures/features_ref.npz')
clips = [ref[f'{n}_audio'] for n in ('espeak', 'alsa', 'odd_length')]
t0 = time.perf_counter(); model = load_for_serving(Settings(device='cuda')); load_s = time.perf_counter() - t0
sched = Scheduler(model, max_batch_size=16)
cuda_texts = [f.result() for f in sched.submit(clips)]
t0 = time.perf_counter(); [f.result() for f in sched.submit(clips * 5)]; batch_s = time.perf_counter() - t0
sched.close()
print(json.dumps(dict(device=torch.cuda.get_device_name(0), patches=sorted(model.decoder._ta_decode_patches), load_s=round(load_s, 2),
                      texts=cuda_texts, batch_of_15_s=round(batch_s, 3), stats=sched.stats.as_dict())))
