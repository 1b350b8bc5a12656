"""A model of the engine's admissions, to rank admission rules before spending H200 time on them (nbs/10c_engine_bench).
Not a measurement: a discrete-event simulation of one engine with the costs measured on the H200.
- decode step of bucket b: interpolated from the captured compiled step at 1 / 32 / 128 rows (`bench/state_dtype_h200.json`,
  fp32: 2.13 / 3.02 / 4.82 ms); rows packed at the front, the step runs the smallest bucket holding the highest used row;
- an admission of n chunks stalls every row for encode (FIX + 1.05 n ms) and prefill (FIX + 1.5 n ms); the per-chunk
  parts are `encode_seconds` / `prefill_seconds` per chunk at 128 concurrent in `bench/serve_http_v10_w4.json` (1.15
  and 1.62 ms), the fixed part FIX is not measured alone, so two values are tried;
- every chunk is 17.5 s with 58 new tokens (3.3 tokens per second); at most 64 chunks per admission (the prefill sizes);
- bursts: n requests sent at once reach the engine spread uniformly over twice the level's mean upload-decode stage in
  the same record (0.038 / 0.070 / 0.116 s at 32 / 64 / 128), the first at once; steady load: Poisson arrivals;
- the rules with an idle hold (stop 28) also know each request from the moment its body is read, the upload-decode time
  before it reaches the engine (bursts: all at once at 0; steady load: uniform 0-80 ms, twice the 32-client mean): an
  idle pool then waits for announced requests, at most the hold after its oldest waiting chunk arrived.
Usage: python bench/admission_sim.py bench/admission_sim.json (the rules), --levers bench/served_levers_sim.json (the served
targets against the costs of v14, and what each lever would give), --quiet bench/admission_quiet_sim.json (stop 36: the
count rule with a burst's last wave admitted once arrivals stop, against the count rule alone, with v14's costs), or
--quiet-time bench/admission_quiet_time_sim.json (stop 42: that quiet wait counted in steps or in milliseconds, v20's costs),
or --straggler bench/admission_straggler_sim.json (stop 44: a burst's small last wave: the wait, the share, the rows' age)."""
import json, sys
import numpy as np

STEP_MS = ([1, 32, 128], [2.127, 3.015, 4.821])
BUCKETS = (1, 2, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128)
TOKENS, AUDIO_S, ROWS, MAX_ADMIT = 58, 17.5, 128, 64
SPREAD_S = {32: 0.038, 64: 0.070, 128: 0.116}

def run(arrivals, rule, fix_ms: float, announced=None, idle_hold_s: float = 0.0, step_ms=STEP_MS, chunk_ms: float = 2.55) -> tuple[float, list[float]]:
    "Seconds until the last chunk is answered, and each chunk's latency, for chunk arrival times `arrivals` (s) under `rule`; with `idle_hold_s`, an idle pool waits that long at most for requests announced (at times `announced`) but not arrived. `step_ms`: the step curve (rows, ms); `chunk_ms`: encode + prefill per admitted chunk."
    order = np.argsort(arrivals)
    arrivals, announced = np.asarray(arrivals)[order], (np.zeros(len(arrivals)) if announced is None else np.asarray(announced)[order])
    t, i, waiting, rows, lat, steps = 0.0, 0, [], [None] * ROWS, [], 0
    while len(lat) < len(arrivals):
        while i < len(arrivals) and arrivals[i] <= t: waiting.append((arrivals[i], steps)); i += 1
        running = sum(r is not None for r in rows)
        if not running and not waiting: t = arrivals[i]; continue
        free = [k for k, r in enumerate(rows) if r is None][:MAX_ADMIT]
        if waiting and not running and t < waiting[0][0] + idle_hold_s and (announced[i:] <= t).any():
            t = min(arrivals[i], waiting[0][0] + idle_hold_s); continue   # hold the idle pool for an announced request
        oldest = max((r[1] for r in rows if r is not None), default=0)   # steps taken by the oldest running row
        if waiting and free and (not running or rule(waiting, running, len(free), steps, t, oldest)):
            take, waiting = waiting[:len(free)], waiting[len(free):]
            t += (2 * fix_ms + chunk_ms * len(take)) / 1e3
            for k, (arrived, _) in zip(free, take): rows[k] = [arrived, 0]
            continue
        if not running: continue
        hi = max(k for k, r in enumerate(rows) if r is not None) + 1
        t += np.interp(next(b for b in BUCKETS if b >= hi), *step_ms) / 1e3; steps += 1
        for k in range(hi):
            if rows[k] is not None:
                rows[k][1] += 1
                if rows[k][1] >= TOKENS: lat.append(t - rows[k][0]); rows[k] = None
    return t, lat

def count_rule(min_chunks: int, max_wait: int):
    "ta's rule (nbs/07_engine `_admit_now`): admit while rows run once `min_chunks` (or as many as rows are free) wait, or the oldest has waited `max_wait` steps."
    return lambda w, running, free, steps, *_: len(w) >= min(free, min_chunks) or steps - w[0][1] >= max_wait

def cost_rule(k: float):
    "v9's rule: admit once the steps the waiting chunks have waited add up to `k` per running row (or they fill the free rows)."
    return lambda w, running, free, steps, *_: sum(steps - s for _, s in w) >= k * running or len(w) >= free

RULES = {'count 32 chunks / 32 steps (ta)': count_rule(32, 32), 'count 32 chunks / 8 steps': count_rule(32, 8),
         'admit at once': count_rule(1, 0), 'cost, 3 steps a row (v9)': cost_rule(3)}
HOLDS = {'ta + idle hold 0 ms (announced, no hold)': 0.0, 'ta + idle hold 50 ms': 0.05, 'ta + idle hold 100 ms': 0.1, 'ta + idle hold 200 ms': 0.2}

def _row(name: str, fix: float, rng, rule, hold_s: float = 0.0) -> dict:
    "One rule's burst RTFx (median of 20 rounds at each level) and steady-load latencies (5 s of Poisson arrivals)."
    row = dict(rule=name, fixed_ms_per_stage=fix)
    for n in SPREAD_S:   # bursts: every request announced at 0 (all sent at once)
        walls = [run(np.r_[0.0, rng.uniform(0, 2 * SPREAD_S[n], n - 1)], rule, fix, None, hold_s)[0] for _ in range(20)]
        row[f'burst_{n}_rtfx'] = round(AUDIO_S * n / float(np.median(walls)))
    for rate in (60, 120, 180):
        arr = np.cumsum(rng.exponential(1 / rate, 5 * rate))
        announced = arr - rng.uniform(0, 0.08, len(arr)) if hold_s else None   # body read, then decoded
        t, lat = run(arr, rule, fix, announced, hold_s)
        row[f'steady_{rate}_per_s_p50_s'] = round(float(np.median(lat)), 3)
        row[f'steady_{rate}_per_s_p99_s'] = round(float(np.quantile(lat, 0.99)), 3)
    print(json.dumps(row), flush=True)
    return row

def simulate(seed: int = 0) -> dict:
    rng, rec = np.random.default_rng(seed), dict(assumptions=__doc__, runs=[])
    for fix in (8.0, 15.0):
        rec['runs'] += [_row(name, fix, rng, rule) for name, rule in RULES.items()]
    hold_rng = np.random.default_rng([seed, 1])   # its own draws: the rows above stay those of earlier records
    for fix in (8.0, 15.0):
        rec['runs'] += [_row(name, fix, hold_rng, count_rule(32, 32), hold) for name, hold in HOLDS.items()]
    return rec

V14 = dict(step_ms=([1, 32, 128], [1.723, 2.254, 3.565]),     # the served step now (bench/step_gdn_fused_before.json)
           chunk_ms=round((0.319 + 0.4307) / 256 * 1e3, 2),      # encode + prefill seconds per chunk at 128 clients and
           spread_s={32: 0.0368, 64: 0.0725, 128: 0.1247})       # the mean upload-decode stage: bench/serve_http_v14_warm_w4.json
V14_SERVED = {32: 1472, 64: 1997, 128: 2920}                     # its served RTFx, same record
ROUNDS = 100                                                     # bursts per lever and level: 20 left 5-10% between neighbours
LEVERS = {'v14 costs (check against the served record)': {},
          'decode step at the decode-floor issue targets (1.2 / 1.6 / 2.7 ms)': dict(step_ms=([1, 32, 128], [1.2, 1.6, 2.7])),
          'encode + prefill 30% cheaper a chunk': dict(chunk_ms=round(V14['chunk_ms'] * 0.7, 2)),
          'upload-decode spread halved': dict(spread_s={n: s / 2 for n, s in V14['spread_s'].items()}),
          'all three': dict(step_ms=([1, 32, 128], [1.2, 1.6, 2.7]), chunk_ms=round(V14['chunk_ms'] * 0.7, 2),
                            spread_s={n: s / 2 for n, s in V14['spread_s'].items()})}
LEVERS |= {f'{k}, the admission wait 45 steps (72 ms at 1.6 ms, as 32 of v14)': dict(v, max_wait=45)   # the count rule's
           for k, v in LEVERS.items() if 'step_ms' in v}                                                   # wait is in steps

def levers(seed: int = 0) -> dict:
    "Burst RTFx at 32 / 64 / 128 requests (median of `ROUNDS` rounds, ta's count rule) with v14's costs and with each lever applied alone, then all: which of them the served targets (2,000 / 2,800 / 3,500) need."
    rec = dict(assumptions=__doc__, costs=V14, served=V14_SERVED, runs=[])
    for fix in (8.0, 15.0):
        rng = np.random.default_rng(seed)   # the same arrivals for every lever
        for name, change in LEVERS.items():
            c = {**V14, 'max_wait': 32, **change}
            row = dict(lever=name, fixed_ms_per_stage=fix, **{k: v for k, v in change.items() if k != 'spread_s'})
            for n, spread in c['spread_s'].items():
                walls = [run(np.r_[0.0, rng.uniform(0, 2 * spread, n - 1)], count_rule(32, c['max_wait']), fix, step_ms=c['step_ms'],
                             chunk_ms=c['chunk_ms'])[0] for _ in range(ROUNDS)]
                row[f'burst_{n}_rtfx'] = round(AUDIO_S * n / float(np.median(walls)))
            print(json.dumps(row), flush=True); rec['runs'].append(row)
    return rec

def quiet_rule(min_chunks: int, max_wait: int, quiet: int, share: float):
    "The count rule, or (nbs/07_engine from stop 36 to 41: `ADMIT_QUIET_STEPS`, `ADMIT_QUIET_SHARE`) the newest waiting chunk has waited `quiet` steps and the waiting chunks are at least `share` of the running rows."
    count = count_rule(min_chunks, max_wait)
    return lambda w, running, free, steps, *_: count(w, running, free, steps) or (steps - w[-1][1] >= quiet and len(w) >= share * running)

QUIET = {'count 32 chunks / 32 steps (ta)': count_rule(32, 32), 'quiet 8 steps, any share': quiet_rule(32, 32, 8, 0.0),
         'quiet 8 steps, half the running rows': quiet_rule(32, 32, 8, 0.5), 'quiet 4 steps, half the running rows': quiet_rule(32, 32, 4, 0.5),
         'quiet 8 steps, a quarter of the running rows': quiet_rule(32, 32, 8, 0.25)}

def rule_table(rules: dict, costs: dict, seed: int, rounds: int) -> list[dict]:
    "Each of `rules` with `costs` (`V14`, `V20`): burst RTFx at 32 / 64 / 128 (median of `rounds`, the same arrivals for every rule) and steady-load latency, with 8 and 15 ms fixed a stage."
    runs = []
    for fix in (8.0, 15.0):
        for name, rule in rules.items():
            rng, row = np.random.default_rng(seed), dict(rule=name, fixed_ms_per_stage=fix)
            for n, spread in costs['spread_s'].items():
                walls = [run(np.r_[0.0, rng.uniform(0, 2 * spread, n - 1)], rule, fix, step_ms=costs['step_ms'], chunk_ms=costs['chunk_ms'])[0]
                         for _ in range(rounds)]
                row[f'burst_{n}_rtfx'] = round(AUDIO_S * n / float(np.median(walls)))
                row[f'burst_{n}_rtfx_pooled'] = round(AUDIO_S * n * rounds / float(np.sum(walls)))   # all rounds' audio over their wall time
            for rate in (60, 120, 180):
                _, lat = run(np.cumsum(rng.exponential(1 / rate, 5 * rate)), rule, fix, step_ms=costs['step_ms'], chunk_ms=costs['chunk_ms'])
                row[f'steady_{rate}_per_s_p50_s'] = round(float(np.median(lat)), 3)
                row[f'steady_{rate}_per_s_p99_s'] = round(float(np.quantile(lat, 0.99)), 3)
            print(json.dumps(row), flush=True); runs.append(row)
    return runs

def quiet(seed: int = 0, rounds: int = 60) -> dict:
    "Stop 36: each rule of `QUIET` with v14's costs (`rule_table`)."
    return dict(assumptions=__doc__, costs=V14, runs=rule_table(QUIET, V14, seed, rounds))

def quiet_time_rule(min_chunks: int, max_wait: int, quiet_s: float, share: float):
    "The count rule, or (nbs/07_engine `ADMIT_QUIET_SECONDS`) no chunk has arrived for `quiet_s` seconds and the waiting chunks are at least `share` of the running rows."
    count = count_rule(min_chunks, max_wait)
    return lambda w, running, free, steps, t, *_: count(w, running, free, steps) or (t - w[-1][0] >= quiet_s and len(w) >= share * running)

V20 = dict(step_ms=([1, 32, 128], [1.74, 2.3, 3.6]),   # the served step (the decode-floor issue's table, stop 38)
           chunk_ms=2.45,                               # encode + prefill seconds per chunk at 128 clients: bench/serve_http_v20_after_w4.json
           spread_s={32: 0.014, 64: 0.022, 128: 0.040})  # the mean upload-decode stage, same record
V20_SERVED = {32: 1863, 64: 2651, 128: 3405}            # its served RTFx, same record
QUIET_TIME = {'quiet 8 steps (ta, stop 36)': quiet_rule(32, 32, 8, 0.5), 'quiet 2 steps': quiet_rule(32, 32, 2, 0.5),
              **{f'quiet {ms} ms': quiet_time_rule(32, 32, ms / 1e3, 0.5) for ms in (2, 5, 10, 20)}}

def quiet_time(seed: int = 0, rounds: int = 100) -> dict:
    "Stop 42: the quiet rule counted in steps against counted in time, with v20's costs (`rule_table`)."
    return dict(assumptions=__doc__, costs=V20, served=V20_SERVED, runs=rule_table(QUIET_TIME, V20, seed, rounds))

V21_SERVED = {32: 2054, 64: 2691, 128: 3272}   # served RTFx of the 5 ms rule, median rounds: bench/serve_http_v21_after1_w4.json
def waited_rule(k: float):
    "The 5 ms rule (ta's), or the steps the waiting chunks have waited add up to `k` per running row (v9's balance: what the wait has cost them against what an admission's stall costs the running rows)."
    quiet5 = quiet_time_rule(32, 32, 0.005, 0.5)
    return lambda w, running, free, steps, t, *_: quiet5(w, running, free, steps, t) or sum(steps - s for _, s in w) >= k * running

def young_rule(young: int):
    "The 5 ms rule (ta's), or every running row has taken fewer than `young` steps: a wave that came in while the rows were being admitted (a burst's tail) joins them, and they end together."
    quiet5 = quiet_time_rule(32, 32, 0.005, 0.5)
    return lambda w, running, free, steps, t, oldest: quiet5(w, running, free, steps, t) or (oldest < young and t - w[-1][0] >= 0.005)

STRAGGLER = {f"quiet 5 ms, share {share}, wait {wait} steps{' (ta)' if (share, wait) == (0.5, 32) else ''}": quiet_time_rule(32, wait, 0.005, share)
             for share in (0.5, 0.25) for wait in (32, 16, 8)}
STRAGGLER |= {f'quiet 5 ms (ta), or waited {k} steps a running row': waited_rule(k) for k in (2, 4, 8)}
STRAGGLER |= {f'quiet 5 ms (ta), or quiet 5 ms with every running row under {y} steps old': young_rule(y) for y in (4, 8, 16)}

def straggler(seed: int = 0, rounds: int = 100) -> dict:
    "Stop 44: a burst's small last wave (fewer than `ADMIT_QUIET_SHARE` of the running rows) waits `ADMIT_MAX_WAIT` steps; the 5 ms rule with a shorter wait, a smaller share, v9's balance, or young running rows (`ADMIT_YOUNG_STEPS`), v20's costs (`rule_table`)."
    return dict(assumptions=__doc__, costs=V20, served=V21_SERVED, runs=rule_table(STRAGGLER, V20, seed, rounds))

if __name__ == '__main__':   # python bench/admission_sim.py bench/admission_sim.json; --levers ...; --quiet bench/admission_quiet_sim.json; --quiet-time bench/admission_quiet_time_sim.json
    if len(sys.argv) < 2 or sys.argv[-1].startswith('-'): sys.exit(__doc__)   # no output file named '--help'
    json.dump({'--levers': levers, '--quiet': quiet, '--quiet-time': quiet_time, '--straggler': straggler}.get(sys.argv[1], simulate)(), open(sys.argv[-1], 'w'), indent=1)
