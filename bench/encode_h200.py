"""The engine's encoder stage on the H200, sub-stage by sub-stage (engine v6, nbs/10c_engine_bench). For admissions of
16 and 64 chunks of the real recording (AUDIO, decoded once and repeated), each sub-stage is timed separately as the
median of REPEATS calls after WARMUP, each call between two `torch.cuda.synchronize`:
  (a) features as the worker computes them at admission since v6b: `batch_clip_features` of clips already on the
      device (copied at submit by `DecodeEngine._job`, as `submit` does), padding and STFT on the device; beside it the
      same from numpy clips (each copied on the worker, as no engine does now), and the submit-time copy per chunk
      (`_job`: staging in page-locked memory, the copy on the engine's copy stream), which runs on the request's (or
      link's) thread, not the worker: once timed to the end of the transfer, once to when `_job` returns;
  (b) encoder + projector as a CUDA graph of the eager pass (`capture_encoder` as the engine captured it before v6,
      and still does in GRAPH mode);
  (c) the same graph of the inductor-compiled pass, as the engine now captures it in COMPILED mode (default mode, rows
      dynamic: compiled once, at the largest size); then, while the time budget lasts, a compile specialised to the
      smallest size (dynamic=False) and mode='max-autotune-no-cudagraphs';
  (d) `_prompt_batch` (host-side prompt ids, embedding lookup, gather); (e) the prefill graph;
and the whole stage as the engine's `encode_seconds` counts it (`_prompts`: features, encoder graph, prompts) with (b)
and with (c). (c)'s audio tokens are compared with (b)'s, and both with an fp32 run of the encoder. Prints progress and
a table, and rewrites the JSON after every part (a timeout keeps what was done). Runs in inference mode, as the
engine's worker does.
Usage (from bench/engine_h200.sh, the repository root on PYTHONPATH):
  python bench/encode_h200.py CKPT AUDIO OUT.json [--sizes 16,64] [--budget-s 230]"""
import argparse, copy, json, statistics, time
from unittest import mock
import torch
from torch._dynamo.utils import counters
from torch.utils.flop_counter import FlopCounterMode
from ta.audio import decode_audio, audio_seconds
from ta.engine import (DecodeEngine, GraphMode, EncoderGraph, capture_encoder, encode_with, _encode, MAX_FRAMES,
                       MIN_COMPILED_ROWS, PREFILL_BUCKETS, SYNTHETIC_TOKENS_PER_SECOND, token_budget)
from ta.features import batch_clip_features, FEATURE_DIM
from ta.model import ASRModel
from ta.patches.bench import environment, print_table, kernel_table, profile_steps

REPEATS, WARMUP = 20, 3
VARIANTS = ('eager_graph', 'compiled_graph', 'compiled_static_graph', 'compiled_max_autotune_graph')
T0 = time.perf_counter()

def elapsed() -> float: return time.perf_counter() - T0
def log(msg: str) -> None: print(f'[{elapsed():6.1f} s] {msg}', flush=True)

def median_ms(fn, repeats: int = REPEATS, warmup: int = WARMUP) -> float:
    "Median wall ms of fn() between two device synchronizes, after `warmup` calls."
    times = []
    for i in range(warmup + repeats):
        torch.cuda.synchronize(); t = time.perf_counter(); fn(); torch.cuda.synchronize()
        if i >= warmup: times.append(1e3 * (time.perf_counter() - t))
    return round(statistics.median(times), 3)

def median_host_ms(fn, repeats: int = REPEATS, warmup: int = WARMUP) -> float:
    "Median wall ms until fn() returns (what its calling thread spends), the device synchronized before each call, not after."
    times = []
    for i in range(warmup + repeats):
        torch.cuda.synchronize(); t = time.perf_counter(); fn()
        if i >= warmup: times.append(1e3 * (time.perf_counter() - t))
    torch.cuda.synchronize()
    return round(statistics.median(times), 3)

def real_tokens(frames: torch.Tensor, n_audio: torch.Tensor) -> torch.Tensor:
    "The real audio tokens of each chunk of frames [n', A, D] (n_audio: long [n], `encode_with`'s counts), concatenated: fp32 [sum n_audio, D]."
    return torch.cat([f[:k] for f, k in zip(frames, n_audio.tolist())]).float()

def agreement(new: torch.Tensor, ref: torch.Tensor) -> dict:
    "How far `new` is from `ref` (same shape): max |diff| over max |ref|, RMS of the difference over RMS of ref."
    rms = lambda t: t.pow(2).mean().sqrt().item()
    d = (new - ref).abs().max().item()
    return dict(max_abs_diff=round(d, 5), ref_max_abs=round(ref.abs().max().item(), 4), max_diff_over_ref_max=round(d / ref.abs().max().item(), 5),
                rms_diff_over_ref_rms=round(rms(new - ref) / rms(ref), 5))

def top_kernels(prof, steps: int, k: int = 12) -> list[dict]:
    "The k CUDA kernels with the most device time per step, from a finished profiler."
    rows = {}
    for e in prof.events():
        if e.device_type != torch.autograd.DeviceType.CUDA: continue
        r = rows.setdefault(e.name[:90], [0.0, 0.0]); r[0] += e.time_range.elapsed_us() / 1e3 / steps; r[1] += 1 / steps
    return [dict(kernel=n, ms=round(ms, 3), calls=round(c, 1)) for n, (ms, c) in sorted(rows.items(), key=lambda x: -x[1][0])[:k]]

def gflop_per_chunk(model: ASRModel) -> dict:
    "GFLOP of encoder + projector for one chunk padded to 18 s, and of the fp32 projector alone (FlopCounterMode)."
    feats, mask = torch.zeros(1, MAX_FRAMES, FEATURE_DIM, device='cuda'), torch.ones(1, MAX_FRAMES, dtype=torch.long, device='cuda')
    with FlopCounterMode(display=False) as fc: frames, _ = _encode(model, feats, mask)
    with FlopCounterMode(display=False) as fp: model.projector(torch.zeros(*frames.shape[:2], model.config.encoder_dim, device='cuda'))
    return dict(total=round(fc.get_total_flops() / 1e9, 2), projector_fp32=round(fp.get_total_flops() / 1e9, 2))

class Run:
    "The model, each size's features, the record and where it goes."
    def __init__(self, model: ASRModel, inputs: dict, rec: dict, out: str): self.model, self.inputs, self.rec, self.out = model, inputs, rec, out
    def save(self) -> None: json.dump(self.rec, open(self.out, 'w'), indent=1)

    def capture(self, name: str, rows: int, encode, mempool) -> tuple[EncoderGraph, dict]:
        "`capture_encoder`, timed (a compile included), with the number of graphs dynamo compiled for it."
        g0, t = counters['stats']['unique_graphs'], time.perf_counter()
        eg = capture_encoder(self.model, rows, mempool, encode); torch.cuda.synchronize()
        info = dict(rows=rows, capture_s=round(time.perf_counter() - t, 1), graphs_compiled=counters['stats']['unique_graphs'] - g0)
        log(f'{name}: captured for {rows} rows in {info["capture_s"]} s, {info["graphs_compiled"]} graph(s) compiled')
        return eg, info

    def encoder_variant(self, key: str, encode, sizes: list[int]) -> dict[int, EncoderGraph]:
        "Capture `encode` for each size (largest first) into one memory pool; time its replay and `encode_with`; record."
        pool, graphs = torch.cuda.graph_pool_handle(), {}
        for n in sizes:
            graphs[n], info = self.capture(key, n, encode, pool)
            feats, lengths = self.inputs[n]
            r = dict(**info, replay_ms=median_ms(graphs[n].graph.replay),
                     encode_with_ms=median_ms(lambda: encode_with(graphs[n], self.model, feats, lengths)))
            self.rec['per_size'][n][key] = r; self.save()
            log(f'{key} @ {n}: replay {r["replay_ms"]} ms ({r["replay_ms"] / n:.3f} ms per chunk), encode_with {r["encode_with_ms"]} ms')
        return graphs

    def compare(self, key: str, graphs: dict[int, EncoderGraph], eager: dict[int, EncoderGraph]) -> None:
        "The real audio tokens of `key`'s graphs against the eager graph's, on the same features."
        for n, g in graphs.items():
            feats, lengths = self.inputs[n]
            ref, n_audio = encode_with(eager[n], self.model, feats, lengths); ref = real_tokens(ref, n_audio)
            new, n_new = encode_with(g, self.model, feats, lengths)
            assert n_new.tolist() == n_audio.tolist(), (n_new, n_audio)
            self.rec['per_size'][n][key]['vs_eager_graph'] = a = agreement(real_tokens(new, n_audio), ref)
            log(f'{key} @ {n} against the eager graph: {a}')
        self.save()

    def vs_fp32(self, graphs: dict[str, dict[int, EncoderGraph]], n: int) -> dict:
        "Each variant's real audio tokens for 2 chunks against the encoder run in fp32: bf16 rounding as a yardstick."
        feats, lengths = self.inputs[n]
        enc32 = copy.deepcopy(self.model.encoder).float()
        out = enc32(feats[:2], attention_mask=(torch.arange(feats.shape[1], device='cuda') < lengths[:2, None]).long())
        ref = real_tokens(self.model.projector(out.last_hidden_state), out.attention_mask.sum(1).tolist())
        return {k: agreement(real_tokens(*encode_with(g[n], self.model, feats[:2], lengths[:2])), ref) for k, g in graphs.items()}

def table(rec: dict, sizes: list[int]) -> list[dict]:
    "One row per size in ms per admission, one in ms per chunk."
    rows = []
    for n in sizes:
        r = rec['per_size'][n]
        row = dict(chunks=n, unit='ms/admission', features=r['features_ms'], submit_copy=round(r['submit_copy_ms_per_chunk'] * n, 3), **{v: r[v]['replay_ms'] if v in r else '' for v in VARIANTS},
                   prompt_batch=r['prompt_batch_ms'], prefill_graph=r['prefill_graph_ms'],
                   stage_eager=r['stage_ms_eager_graph'], stage_compiled=r['stage_ms_compiled_graph'])
        rows += [row, {k: round(v / n, 3) if isinstance(v, float) else v for k, v in row.items()} | dict(unit='ms/chunk')]
    return rows

@torch.inference_mode()
def main(args) -> None:
    global T0
    sizes = sorted({int(s) for s in args.sizes.split(',')}, reverse=True)   # largest first, as the engine captures
    if bad := set(sizes) - set(PREFILL_BUCKETS): raise SystemExit(f'--sizes must be prefill sizes {PREFILL_BUCKETS}, not {sorted(bad)}')
    t = time.perf_counter(); model = ASRModel.from_pretrained(args.ckpt, device='cuda'); load_s = time.perf_counter() - t
    T0 = time.perf_counter()                                            # the budget starts after the model build
    x = decode_audio(args.audio); secs = audio_seconds(x)
    eng = DecodeEngine(model, max(sizes), GraphMode.GRAPH)              # for its prompt room, `_prompt_batch`, prefill graphs
    budget = token_budget(secs, SYNTHETIC_TOKENS_PER_SECOND, eng.new_tokens)
    rec = dict(env=environment(), checkpoint=args.ckpt, audio=args.audio, audio_seconds=round(secs, 4), sizes=sizes,
               repeats=REPEATS, warmup=WARMUP, model_load_s=round(load_s, 1), prompt_room=eng.prompt_room,
               gflop_per_chunk=gflop_per_chunk(model), per_size={n: {} for n in sizes}, skipped=[])
    log(f'model loaded in {load_s:.1f} s; {secs:.2f} s of audio per chunk; encoder + projector {rec["gflop_per_chunk"]} GFLOP per 18 s chunk')
    clips, inputs = {n: [x] * n for n in sizes}, {}
    jobs = {n: [eng._job(x) for _ in range(n)] for n in sizes}         # as `submit` queues them: audio copied to the device
    run = Run(model, inputs, rec, args.out)
    for n in sizes:                                                     # (a) features
        on_device = [j.audio for j in jobs[n]]; torch.cuda.synchronize()
        feats, lengths = batch_clip_features(on_device, 'cuda')
        inputs[n] = (feats, torch.tensor(lengths, device='cuda'))
        r = rec['per_size'][n]
        r.update(features_ms=median_ms(lambda: batch_clip_features(on_device, 'cuda')),
                 features_from_host_ms=median_ms(lambda: batch_clip_features(clips[n], 'cuda')))
        log(f'(a) features for {n} chunks already on the device: {r["features_ms"]} ms ({r["features_ms"] / n:.3f} ms per chunk); '
            f'from numpy clips: {r["features_from_host_ms"]} ms')
    r = rec['per_size'][sizes[0]]
    r.update(submit_copy_ms_per_chunk=median_ms(lambda: eng._job(x)), submit_copy_thread_ms_per_chunk=median_host_ms(lambda: eng._job(x)))
    for n in sizes[1:]: rec['per_size'][n].update({k: r[k] for k in ('submit_copy_ms_per_chunk', 'submit_copy_thread_ms_per_chunk')})
    log(f'(a) submit-time copy of one {secs:.2f} s chunk ({len(x) * 4 / 1e6:.2f} MB), on the request thread: {r["submit_copy_ms_per_chunk"]} ms '
        f'to the end of the transfer, {r["submit_copy_thread_ms_per_chunk"]} ms until `_job` returns')
    run.save()

    eager = run.encoder_variant('eager_graph', _encode, sizes)                       # (b)
    compiled_fn = torch.compile(_encode)                                             # (c): as DecodeEngine in COMPILED mode
    compiled = run.encoder_variant('compiled_graph', compiled_fn, sizes)
    rec['engine_encoder_compile_s'] = rec['per_size'][sizes[0]]['compiled_graph']['capture_s']
    run.compare('compiled_graph', compiled, eager)
    rec['vs_fp32'] = run.vs_fp32({'eager_graph': eager, 'compiled_graph': compiled}, sizes[-1])
    own = rec['vs_fp32']['eager_graph']['rms_diff_over_ref_rms']                     # eager bf16's own distance to fp32
    rec['compiled_within_bf16_tolerance'] = max(rec['per_size'][n]['compiled_graph']['vs_eager_graph']['rms_diff_over_ref_rms'] for n in sizes) <= 2 * own
    log(f'against fp32 (2 chunks): {rec["vs_fp32"]}; compiled within bf16 tolerance (RMS difference to eager at most twice '
        f'eager\'s own to fp32): {rec["compiled_within_bf16_tolerance"]}')
    run.save()

    lone = {}                                                           # one chunk: eager graph of 1 row, compiled of MIN_COMPILED_ROWS
    for key, fn, rows in (('eager_graph', _encode, 1), ('compiled_graph', compiled_fn, MIN_COMPILED_ROWS)):
        g, info = run.capture(f'{key} (lone chunk)', rows, fn, torch.cuda.graph_pool_handle())
        feats, lengths = inputs[sizes[-1]]
        lone[key] = dict(**info, encode_with_ms=median_ms(lambda: encode_with(g, model, feats[:1], lengths[:1])))
    rec['lone_chunk'] = lone; log(f'one chunk: {lone}'); run.save()

    rec['kernels'] = {}                                                 # where a replay's time goes, at the largest size
    for key, graphs in (('eager_graph', eager), ('compiled_graph', compiled)):
        prof = profile_steps(graphs[sizes[0]].graph.replay, steps=3)
        rec['kernels'][key] = k = dict(rows=sizes[0], groups=kernel_table(prof, 3), top=top_kernels(prof, 3))
        if k['groups']: print_table(k['groups'], f'{key}, {sizes[0]} rows: device ms per replay by kernel group')
    run.save()

    mempool = torch.cuda.graph_pool_handle()
    for n in sizes:                                                     # (d) prompts, (e) prefill, and the whole stage
        feats, lengths = inputs[n]
        frames, n_audio = encode_with(compiled[n], model, feats, lengths)
        r = rec['per_size'][n]
        r['prompt_batch_ms'] = median_ms(lambda: eng._prompt_batch(frames, n_audio))
        embeds, mask = eng._prompt_batch(frames, n_audio)
        t = time.perf_counter(); eng.capture_prefill(n, mempool); torch.cuda.synchronize(); r['prefill_capture_s'] = round(time.perf_counter() - t, 1)
        r['prefill_graph_ms'] = median_ms(eng.prefill_graphs[n].graph.replay)
        r['prefill_ms'] = median_ms(lambda: eng._prefill(list(range(n)), embeds, mask, [budget] * n))
        for key, graphs in (('eager_graph', eager), ('compiled_graph', compiled)):
            eng.encoder_graphs = {n: graphs[n]}
            r[f'stage_ms_{key}'] = median_ms(lambda: eng._prompts(jobs[n]))
        log(f'@ {n}: prompt_batch {r["prompt_batch_ms"]} ms, prefill graph {r["prefill_graph_ms"]} ms ({r["prefill_ms"]} with its inputs), '
            f'encode stage (_prompts) {r["stage_ms_eager_graph"]} ms with the eager graph, {r["stage_ms_compiled_graph"]} ms compiled')
        run.save()

    # optional compiles while the budget lasts: one specialised to the smallest size (the engine's is dynamic), then max-autotune
    if elapsed() < args.budget_s - 60:
        with mock.patch.object(torch._dynamo, 'maybe_mark_dynamic', lambda *a, **k: None):   # capture_encoder's mark off: static rows
            run.compare('compiled_static_graph', run.encoder_variant('compiled_static_graph', torch.compile(_encode, dynamic=False), sizes[-1:]), eager)
    else: rec['skipped'].append('compiled_static_graph'); log('skipped the static compile: out of budget')
    if elapsed() < args.budget_s - 120:
        autotuned = run.encoder_variant('compiled_max_autotune_graph', torch.compile(_encode, mode='max-autotune-no-cudagraphs'), sizes)
        run.compare('compiled_max_autotune_graph', autotuned, eager)
    else: rec['skipped'].append('compiled_max_autotune_graph'); log('skipped max-autotune-no-cudagraphs: out of budget')

    print_table(table(rec, sizes), f'{rec["env"]["gpu"]}, torch {rec["env"]["torch"]}, synthetic 2b encoder (bf16) + projector (fp32), '
                f'{secs:.2f} s chunks, median of {REPEATS} after {WARMUP}. Encoder columns: graph replays. stage = features + '
                f'encoder graph + prompts (the engine\'s encode_seconds); submit_copy: on the request threads, not in the stage')
    rec['total_s'] = round(elapsed(), 1); run.save()
    log(f'done; wrote {args.out}')

if __name__ == '__main__':
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('ckpt'); p.add_argument('audio'); p.add_argument('out')
    p.add_argument('--sizes', default='16,64', help='chunks per admission (prefill sizes), comma-separated')
    p.add_argument('--budget-s', type=float, default=230, help='optional compiles start only while this many seconds are not yet spent')
    main(p.parse_args())
