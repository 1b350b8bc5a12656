"""Where a batch's time goes in the engine on the H200: encoder + projector, prefill, and one graphed decode step per bucket,
each timed alone (CUDA events, median after warm-up), with the decode step's floor beside it.
Run on the H200 from the repository root (bench/engine_h200.sh stages):
    python bench/engine_stages.py CHECKPOINT AUDIO OUT.json"""
import json, statistics, sys, time
import torch
from ta.audio import decode_audio
from ta.engine import SlotKey, Tier, prefill
from ta.features import clip_features
from ta.patches.bench import copy_bandwidth, decode_floor_bytes, environment, floor_ms, time_steps
from ta.server import Settings, load_for_serving

ckpt, audio_path, out = sys.argv[1:4]
t0 = time.perf_counter()
eng = load_for_serving(Settings(model=ckpt, synthetic_tokens_per_second=3.3))
load_s = time.perf_counter() - t0
feats = clip_features(decode_audio(audio_path))
tb = copy_bandwidth()
rows = []
torch.inference_mode().__enter__()  # the engine's buffers are inference tensors
for B in (1, 8, 32, 64, 128):
    fb = [feats] * B
    enc_ms = statistics.median(time_steps(lambda: eng.model.encode_features(fb), repeats=5, warmup=2))
    embeds, mask = eng.model.embed_prompts(eng.model.encode_features(fb))
    slot = eng.slots[SlotKey(B, Tier.SHORT)]
    budget = eng.budget_for(len(feats))
    run_prefill = lambda: prefill(eng.decoder, slot, embeds, mask, [budget] * B, eng.stop_ids, eng.pad_id, eng.ngram)
    prefill_ms = statistics.median(time_steps(run_prefill, repeats=5, warmup=2))
    run_prefill()  # a fresh batch: its decode steps are then timed by replaying the graph
    step = time_steps(slot.graph.replay, repeats=50, warmup=5)
    floor = decode_floor_bytes(eng.decoder.config, B, slot.cache_len)['total']
    rows.append(dict(batch=B, prompt_tokens=mask.shape[1], encode_ms=round(enc_ms, 2), prefill_ms=round(prefill_ms, 2),
                     decode_step_ms=round(statistics.median(step), 4), decode_step_p90_ms=round(statistics.quantiles(step, n=10)[-1], 4),
                     floor_ms=round(floor_ms(floor, tb), 4), budget_tokens=budget,
                     batch_ms_estimate=round(enc_ms + prefill_ms + (budget - 1) * statistics.median(step), 1)))
    print(rows[-1], flush=True)
rec = dict(env=environment(), checkpoint=ckpt, audio=audio_path, synthetic=True, copy_tb_per_s=round(tb, 3),
           graph_mode=eng.graph_mode.value, setup_s=round(eng.stats.setup_seconds, 1), load_and_setup_s=round(load_s, 1),
           command='bash bench/engine_h200.sh build stages', rows=rows)
open(out, 'w').write(json.dumps(rec, indent=1))
