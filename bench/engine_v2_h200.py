"""Engine v2 on the H200, in one process: set-up seconds and GPU memory; the engine at 1/32/64/128 concurrent requests
(RTFx, latency, GPU ms per chunk per stage); the decode step (graph replay) per bucket beside its floor; prefill per size
(transformers' forward as engine v2 first ran it, ta's prefill eager, its CUDA graph); fairness (10 s requests while a
60-minute recording is transcribed); a mixed workload of 1-60 s requests arriving at random.
Usage (from bench/engine_h200.sh): python bench/engine_v2_h200.py CKPT AUDIO TOKENS_PER_SECOND MODES OUT.json"""
import inspect, json, statistics, sys, threading, time
import numpy as np
import torch
from transformers import StaticCache
from ta.audio import decode_audio, audio_seconds, SAMPLE_RATE
from ta.bench import offline_level, level_record, stats_diff, latency_summary
from ta.engine import DecodeEngine, prefill
from ta.model import ASRModel
from ta.patches.bench import environment, copy_bandwidth, decode_floor_bytes, floor_ms
from ta.pipeline import split_chunks, join_texts

ckpt, audio, tps, modes, out = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4].split(','), sys.argv[5]
LEVELS, ROUNDS, STEP_BUCKETS, REPEATS = (1, 32, 64, 128), 3, (1, 32, 128), 50

def median_ms(fn, repeats: int = REPEATS, warmup: int = 5) -> float:
    "Median wall ms of fn() followed by a device synchronize, after `warmup` calls."
    times = []
    for i in range(warmup + repeats):
        torch.cuda.synchronize(); t = time.perf_counter(); fn(); torch.cuda.synchronize()
        if i >= warmup: times.append(1e3 * (time.perf_counter() - t))
    return statistics.median(times)

@torch.inference_mode()
def prefill_ms(eng: DecodeEngine, b: int) -> dict:
    "Median ms of a b-prompt prefill at the engine's fixed prompt room, three ways; all write only the spare row."
    ids = torch.full((b, eng.prompt_room), eng.pad_id, device='cuda')
    embeds, mask = eng.decoder.get_input_embeddings()(ids), torch.ones_like(ids)
    rows, budgets = torch.full((b,), eng.spare, device='cuda'), torch.ones(b, dtype=torch.long, device='cuda')
    pos = torch.arange(eng.prompt_room, device='cuda')[None].expand(b, -1)
    kw = 'cache' if 'cache' in inspect.signature(eng.decoder.forward).parameters else 'past_key_values'  # renamed in 5.24
    def hf():  # engine v2 as first built: transformers' forward into a fresh static cache (its copy into rows not counted)
        eng.decoder(inputs_embeds=embeds, attention_mask=mask, position_ids=pos, use_cache=True, logits_to_keep=1,
                    **{kw: StaticCache(config=eng.decoder.config, max_cache_len=eng.prompt_room)})
    return dict(rows=b, transformers_ms=round(median_ms(hf, 10, 2), 3),
                ta_eager_ms=round(median_ms(lambda: prefill(eng.decoder, eng.pool, rows, embeds, mask, budgets, eng.stop_ids), 10, 2), 3),
                ta_graph_ms=round(median_ms(eng.prefill_graphs[b].graph.replay, 20, 3), 3))

def timed_submit(eng: DecodeEngine, chunks: list, t0: float, done: list) -> None:
    "Submit one request's chunks; append (submit s, answered s, text) to `done` when its last chunk is answered."
    t, futs, left = time.perf_counter() - t0, eng.submit(chunks), [len(chunks)]
    def one(_):
        with lock:
            left[0] -= 1
            if left[0] == 0: done.append((t, time.perf_counter() - t0, join_texts([f.result() for f in futs])))
    for f in futs: f.add_done_callback(one)
lock = threading.Lock()

def wait_for(done: list, n: int, timeout_s: float = 300) -> None:
    end = time.time() + timeout_s
    while len(done) < n and time.time() < end: time.sleep(0.005)

def fairness(eng: DecodeEngine, x: np.ndarray, shorts: int = 20, gap_s: float = 0.25) -> dict:
    "Latency of 10 s requests alone, then arriving every `gap_s` while a 60-minute recording (one request) is transcribed."
    short = split_chunks(x[:10 * SAMPLE_RATE])
    alone = []
    for _ in range(5): t = time.perf_counter(); eng.transcribe_clips(short); alone.append(time.perf_counter() - t)
    long = split_chunks(np.tile(x, int(np.ceil(3600 / audio_seconds(x)))))
    t0, long_done, short_done = time.perf_counter(), [], []
    timed_submit(eng, long, t0, long_done)
    for _ in range(shorts): time.sleep(gap_s); timed_submit(eng, short, t0, short_done)
    wait_for(short_done, shorts); wait_for(long_done, 1)
    lat = [b - a for a, b, _ in short_done]
    return dict(short_alone=latency_summary(alone[1:]), short_during_long=latency_summary(lat),
                short_p99_s=round(float(np.percentile(lat, 99)), 4), long_chunks=len(long),
                long_wall_s=round(long_done[0][1], 3) if long_done else None, shorts_answered_before_long_ended=sum(
                    b < long_done[0][1] for _, b, _ in short_done) if long_done else None)

def gil(eng: DecodeEngine, chunks: list, interval_s: float, n: int = 128) -> dict:
    "The engine at n concurrent while another thread runs pure Python (as request threads do), at a GIL switch interval."
    old, stop = sys.getswitchinterval(), threading.Event()
    def busy():
        while not stop.is_set(): sum(range(2000))
    sys.setswitchinterval(interval_s); t = threading.Thread(target=busy); t.start()
    before = {'engine': eng.stats.as_dict()}
    try: l = level_record(n, [offline_level(eng, chunks, n) for _ in range(2)], secs, stats_diff(before, {'engine': eng.stats.as_dict()}))
    finally: stop.set(); t.join(); sys.setswitchinterval(old)
    e = l['stats']['engine']; k = max(1, e['chunks'])
    return dict(switch_interval_s=interval_s, level=n, rtfx=round(l['rtfx'], 1), p50_s=l['p50_s'], decode_ms_per_step=round(1e3 * e['decode_seconds'] / max(1, e['decode_steps']), 3),
                gpu_ms_per_chunk={s: round(1e3 * e[f'{s}_seconds'] / k, 3) for s in ('encode', 'prefill', 'decode')})

def mixed(eng: DecodeEngine, x: np.ndarray, rate_per_s: float, n: int = 200, seed: int = 0) -> dict:
    "n requests of 1-60 s (cut from the tiled recording) arriving as a Poisson process at `rate_per_s`: RTFx and latency."
    rng, tiled = np.random.default_rng(seed), np.tile(x, int(np.ceil(120 / audio_seconds(x))))
    lens = rng.uniform(1, 60, n); starts = rng.uniform(0, len(tiled) / SAMPLE_RATE - 60, n)
    reqs = [split_chunks(tiled[int(s * SAMPLE_RATE):int((s + l) * SAMPLE_RATE)]) for s, l in zip(starts, lens)]
    gaps, done = rng.exponential(1 / rate_per_s, n), []
    before, t0 = eng.stats.as_dict(), time.perf_counter()
    for g, r in zip(gaps, reqs): time.sleep(g); timed_submit(eng, r, t0, done)
    wait_for(done, n)
    wall = max(b for _, b, _ in done)
    e = stats_diff(before, eng.stats.as_dict())
    return dict(rate_per_s=rate_per_s, requests=n, answered=len(done), audio_s=round(float(lens.sum()), 1), wall_s=round(wall, 3),
                rtfx=round(float(lens.sum()) / wall, 1), latency=latency_summary([b - a for a, b, _ in done]),
                latency_per_audio_s=round(statistics.median([(b - a) / l for (a, b, _), l in zip(sorted(done), lens)]), 4),
                mean_active_rows=e['mean_active_rows'], padding_share=e['padding_share'], mean_chunks_per_admission=e['mean_chunks_per_admission'])

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
               gpu_mem_peak_allocated_gib=round(torch.cuda.max_memory_allocated() / 2**30, 2), levels=[], steps=[], prefill=[])
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
        ms = median_ms(eng.graphs[b].replay)
        run['steps'].append(dict(bucket=b, step_ms=round(ms, 3), floor_ms=round(floor_ms(fb, bw), 3),
                                 x_floor=round(ms / floor_ms(fb, bw), 2), achieved_tb_per_s=round(fb / 1e9 / ms, 3)))
        print(json.dumps(run['steps'][-1]), flush=True)
    for b in sorted(eng.prefill_graphs):
        run['prefill'].append(prefill_ms(eng, b)); print(json.dumps(run['prefill'][-1]), flush=True)
    run['gil'] = [gil(eng, chunks, i) for i in (0.005, 0.0005)]; print(json.dumps(run['gil']), flush=True)
    run['fairness'] = fairness(eng, x); print(json.dumps(run['fairness']), flush=True)
    run['mixed'] = [mixed(eng, x, r) for r in (20, 60)]; print(json.dumps(run['mixed']), flush=True)
    eng.close(); rec['runs'].append(run)
    json.dump(rec, open(out, 'w'), indent=1)
