"""Fairness on the H200 (issue 9): the engine with its reserve of decode rows that no one request may take
(`DecodeEngine(reserve_rows=...)`) off and on, in one process: one compiled engine per setting, the first closed and freed
before the next is built. Per setting: a 10 s request alone (5 in a row); 10 s requests every 0.25 s while a 60-minute
recording (one request) is transcribed, ROUNDS times (p50 / p90 / p99 over all of them, and over those sent while the long
one ran); the 60-minute recording alone (wall s, decode steps, most rows it held); the 128-concurrent offline level
(`ta.bench.offline_level`, 2 rounds) for the throughput cost. The JSON is rewritten after each setting.
Usage (from bench/engine_h200.sh): python bench/fairness_h200.py CKPT AUDIO TOKENS_PER_SECOND OUT.json [RESERVES]
RESERVES: comma-separated `reserve_rows` values, 'default' for the engine's rule (`fair_reserve`: 4 of 128); default 0,default."""
import gc, json, sys, threading, time
import numpy as np
import torch
from ta.audio import decode_audio, audio_seconds, SAMPLE_RATE
from ta.bench import offline_level, level_record, stats_diff, latency_summary
from ta.engine import DecodeEngine
from ta.model import ASRModel
from ta.patches.bench import environment
from ta.pipeline import split_chunks

ROWS, SHORT_S, LONG_S = 128, 10, 3600          # decode rows; a short request's and the long recording's seconds of audio
SHORTS, GAP_S, ROUNDS = 20, 0.25, 3            # per round: 20 short requests, one every 0.25 s after the long one is sent
LEVEL, LEVEL_ROUNDS, QS = 128, 2, (50, 90, 99)  # the offline level (concurrent requests, rounds); latency percentiles

def timed_request(eng: DecodeEngine, chunks: list, t0: float, done: list, lock: threading.Lock) -> None:
    "Submit one request's chunks; once its last is answered append (sent s, answered s, ok) to `done`, seconds since t0."
    sent, futs, left = time.perf_counter() - t0, eng.submit(chunks), [len(chunks)]
    def one(_):
        with lock:
            left[0] -= 1
            if left[0] == 0: done.append((sent, time.perf_counter() - t0, all(f.exception() is None for f in futs)))
    for f in futs: f.add_done_callback(one)

def wait_for(done: list, n: int, timeout_s: float = 300) -> None:
    "Poll until `done` holds n entries or timeout_s passed."
    end = time.time() + timeout_s
    while len(done) < n and time.time() < end: time.sleep(0.005)

def fairness_round(eng: DecodeEngine, short: list, long: list) -> dict:
    "The long request, then SHORTS short ones GAP_S apart: each short one's latency (s), whether it was sent before the long one ended, failures."
    lock, long_done, short_done = threading.Lock(), [], []
    t0 = time.perf_counter()
    timed_request(eng, long, t0, long_done, lock)
    for _ in range(SHORTS): time.sleep(GAP_S); timed_request(eng, short, t0, short_done, lock)
    wait_for(short_done, SHORTS); wait_for(long_done, 1)
    end = long_done[0][1] if long_done else float('inf')
    answered = short_done + long_done
    return dict(latencies_s=[round(b - a, 6) for a, b, _ in sorted(short_done)], during=[a < end for a, _, _ in sorted(short_done)],
                long_wall_s=round(end, 3), failed=sum(not ok for *_, ok in answered) + SHORTS + 1 - len(answered))   # unanswered count too

def long_recording(x: np.ndarray) -> np.ndarray:
    "x [samples] 16 kHz tiled to at least LONG_S seconds."
    return np.tile(x, int(np.ceil(LONG_S / audio_seconds(x))))

def fairness(eng: DecodeEngine, x: np.ndarray) -> dict:
    "10 s requests alone, then ROUNDS rounds of them during a 60-minute recording: latency percentiles over all and over those sent during it."
    short, long = split_chunks(x[:SHORT_S * SAMPLE_RATE]), split_chunks(long_recording(x))
    alone = []
    for _ in range(5): t = time.perf_counter(); eng.transcribe_clips(short); alone.append(time.perf_counter() - t)
    rounds = [fairness_round(eng, short, long) for _ in range(ROUNDS)]
    lat = [l for r in rounds for l in r['latencies_s']]
    during = [l for r in rounds for l, d in zip(r['latencies_s'], r['during']) if d]
    return dict(short_chunks=len(short), long_chunks=len(long), short_alone=latency_summary(alone[1:], QS),
                short_during_long=latency_summary(lat, QS), short_sent_before_long_ended=latency_summary(during, QS),
                sent_before_long_ended=len(during), long_wall_s=[r['long_wall_s'] for r in rounds],
                failed=sum(r['failed'] for r in rounds), rounds=rounds)

def long_alone(eng: DecodeEngine, x: np.ndarray) -> dict:
    "The 60-minute recording alone, as one request: wall s, decode steps, mean running rows, and the most rows it held after a step."
    y, peak = long_recording(x), [0]
    chunks = split_chunks(y)
    def hold(e): peak[0] = max(peak[0], e.running)   # only this request runs: its rows are the running rows
    before, eng.on_step = eng.stats.as_dict(), hold
    t = time.perf_counter(); eng.transcribe_clips(chunks); wall = time.perf_counter() - t
    eng.on_step = None
    e = stats_diff(before, eng.stats.as_dict())
    return dict(chunks=len(chunks), wall_s=round(wall, 3), rtfx=round(audio_seconds(y) / wall, 1),
                decode_steps=e['decode_steps'], admissions=e['admissions'], mean_active_rows=e['mean_active_rows'], most_rows_held=peak[0],
                steps_by_bucket=e['steps_by_bucket'])

def offline(eng: DecodeEngine, x: np.ndarray) -> dict:
    "The LEVEL-concurrent offline level, LEVEL_ROUNDS rounds (after a 4-request warm-up): RTFx, latency, engine stats."
    chunks, secs = split_chunks(x), audio_seconds(x)
    offline_level(eng, chunks, 4)
    before = {'engine': eng.stats.as_dict()}
    l = level_record(LEVEL, [offline_level(eng, chunks, LEVEL) for _ in range(LEVEL_ROUNDS)], secs, stats_diff(before, {'engine': eng.stats.as_dict()}))
    return {k: l[k] for k in ('level', 'rounds', 'ok', 'failed', 'wall_s', 'rtfx', 'p50_s', 'p90_s', 'max_s', 'per_round', 'stats')}

def run_setting(model: ASRModel, x: np.ndarray, tps: float, reserve: int | None) -> dict:
    "One compiled engine with `reserve_rows=reserve` (None: the default rule): set-up, the three measurements; closed and freed after."
    torch.cuda.reset_peak_memory_stats()
    t = time.perf_counter(); eng = DecodeEngine(model, ROWS, 'compiled', tokens_per_second=tps, reserve_rows=reserve).setup(print)
    run = dict(reserve_rows=eng.reserve_rows, row_cap=eng.row_cap, setup_s=round(time.perf_counter() - t, 1),
               gpu_mem_reserved_gib=round(torch.cuda.memory_reserved() / 2**30, 2))
    try:
        run['offline'] = offline(eng, x); print(json.dumps({k: run['offline'][k] for k in ('level', 'ok', 'failed', 'rtfx', 'p50_s')}), flush=True)
        run['long_alone'] = long_alone(eng, x); print(json.dumps(run['long_alone']), flush=True)
        run['fairness'] = fairness(eng, x)
        print(json.dumps({k: v for k, v in run['fairness'].items() if k != 'rounds'}), flush=True)
    finally:
        eng.close(); del eng; gc.collect(); torch.cuda.empty_cache()
    run['gpu_mem_reserved_after_close_gib'] = round(torch.cuda.memory_reserved() / 2**30, 2)
    return run

if __name__ == '__main__':
    ckpt, audio, tps, out = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
    reserves = [None if r == 'default' else int(r) for r in (sys.argv[5] if len(sys.argv) > 5 else '0,default').split(',')]
    x = decode_audio(audio)
    model = ASRModel.from_pretrained(ckpt, device='cuda')
    rec = dict(env=environment(), checkpoint=ckpt, audio=audio, audio_seconds=audio_seconds(x), tokens_per_second=tps, synthetic=True,
               rows=ROWS, short_s=SHORT_S, long_s=LONG_S, shorts_per_round=SHORTS, gap_s=GAP_S, rounds=ROUNDS, runs=[])
    for r in reserves:
        rec['runs'].append(run_setting(model, x, tps, r))
        json.dump(rec, open(out, 'w'), indent=1)
