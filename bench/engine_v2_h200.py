"""Engine v2 on the H200, in one process: set-up seconds and GPU memory, the decode step (graph replay) per bucket beside
its floor, and the engine in-process at 1/32/64/128 concurrent requests (RTFx, latency, GPU ms per chunk per stage).
Usage (from bench/engine_h200.sh): python bench/engine_v2_h200.py CKPT AUDIO TOKENS_PER_SECOND MODES OUT.json"""
import json, statistics, sys, time
import torch
from ta.audio import decode_audio, audio_seconds
from ta.bench import offline_level, level_record, stats_diff
from ta.engine import DecodeEngine
from ta.model import ASRModel
from ta.patches.bench import environment, copy_bandwidth, decode_floor_bytes, floor_ms
from ta.pipeline import split_chunks

ckpt, audio, tps, modes, out = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4].split(','), sys.argv[5]
LEVELS, ROUNDS, STEP_BUCKETS, REPEATS = (1, 32, 64, 128), 3, (1, 32, 128), 50

def step_ms(eng: DecodeEngine, b: int) -> float:
    "Median ms of bucket b's graph replay over REPEATS, after 5 warm-up replays (CUDA events)."
    g, times = eng.graphs[b], []
    for i in range(5 + REPEATS):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); g.replay(); e.record(); e.synchronize()
        if i >= 5: times.append(s.elapsed_time(e))
    return statistics.median(times)

x = decode_audio(audio); chunks, secs = split_chunks(x), audio_seconds(x)
model = ASRModel.from_pretrained(ckpt, device='cuda')
bw = copy_bandwidth()
wbytes = sum(p.numel() * p.element_size() for p in model.decoder.parameters())
rec = dict(env=environment(), checkpoint=ckpt, audio=audio, audio_seconds=secs, chunks_per_request=len(chunks),
           tokens_per_second=tps, synthetic=True, copy_tb_per_s=round(bw, 3), runs=[])
for mode in modes:
    torch.cuda.reset_peak_memory_stats()
    t = time.perf_counter(); eng = DecodeEngine(model, 128, mode, tokens_per_second=tps).setup(print); setup_s = time.perf_counter() - t
    run = dict(mode=mode, setup_s=round(setup_s, 1), gpu_mem_reserved_gib=round(torch.cuda.memory_reserved() / 2**30, 2),
               gpu_mem_peak_allocated_gib=round(torch.cuda.max_memory_allocated() / 2**30, 2), levels=[], steps=[])
    offline_level(eng, chunks, 4)                                            # warm-up: first admissions
    for n in LEVELS:
        before = {'engine': eng.stats.as_dict()}
        rounds = [offline_level(eng, chunks, n) for _ in range(ROUNDS)]
        l = level_record(n, rounds, secs, stats_diff(before, {'engine': eng.stats.as_dict()}))
        e = l['stats']['engine']; k = max(1, e['chunks'])
        l['gpu_ms_per_chunk'] = {s: round(1e3 * e[f'{s}_seconds'] / k, 3) for s in ('encode', 'prefill', 'decode')}
        print(json.dumps({x: l[x] for x in ('level', 'ok', 'failed', 'rtfx', 'p50_s', 'max_s', 'gpu_ms_per_chunk')}), flush=True)
        run['levels'].append(l)
    for b in STEP_BUCKETS:
        fb = decode_floor_bytes(model.decoder.config, b, eng.pool.cache_len, weight_bytes=wbytes)['total']
        ms = step_ms(eng, b)
        run['steps'].append(dict(bucket=b, step_ms=round(ms, 3), floor_ms=round(floor_ms(fb, bw), 3),
                                 x_floor=round(ms / floor_ms(fb, bw), 2), achieved_tb_per_s=round(fb / 1e9 / ms, 3)))
        print(json.dumps(run['steps'][-1]), flush=True)
    eng.close(); rec['runs'].append(run)
    json.dump(rec, open(out, 'w'), indent=1)
