"""The engine's prefill on the H200 (engine v7, nbs/10c_engine_bench): `prefill_states` captured as a CUDA graph eager
(as GRAPH mode does, and as COMPILED mode did before v7) against its layers compiled by inductor first (as COMPILED
mode does since v7b: `prefill_layer` compiled, rows dynamic, one compile per kind of layer). For admissions of SIZES chunks of the real recording
(AUDIO, repeated; prompts at the engine's prompt room, as served), each variant's graph replay is the median of
REPEATS replays after WARMUP, each between two `torch.cuda.synchronize`. Beside them: the compile and capture
seconds, the weight-GEMM GFLOP of one prompt and the TFLOP/s each replay reaches, the device time by kernel
group and the top kernels of one replay at the largest size (torch profiler), and the compiled variant's first
tokens and states against the eager one's. Rewrites the JSON after every part (a timeout keeps what was done).
Usage (from bench/engine_h200.sh, the repository root on PYTHONPATH):
  python bench/prefill_h200.py CKPT AUDIO OUT.json [--sizes 8,16,32,64] [--variants compiled_graph]"""
import argparse, json, time
import torch
from torch._dynamo.utils import counters
from ta.audio import decode_audio, audio_seconds
from ta.engine import DecodeEngine, GraphMode, prefill_layer, encode_with, SYNTHETIC_TOKENS_PER_SECOND, token_budget
from ta.features import batch_clip_features
from ta.model import ASRModel
from ta.patches.bench import environment, print_table, kernel_table, profile_steps
from encode_h200 import median_ms, top_kernels, agreement, log

def prompts(eng: DecodeEngine, audio, n: int) -> tuple[torch.Tensor, torch.Tensor]:
    "The engine's padded prompts [n, room, D] and mask for n copies of `audio` (eager encoder)."
    feats, lengths = batch_clip_features([audio] * n, 'cuda')
    frames, n_audio = encode_with(None, eng.model, feats, torch.tensor(lengths, device='cuda'))
    return eng._prompt_batch(frames, n_audio)

def gemm_gflop(decoder, tokens: int) -> float:
    "GFLOP of the weight GEMMs of one prompt of `tokens` tokens: 2 x tokens x the decoder's matrix weights (embeddings and lm_head left out: one row; attention scores and the delta rule not counted)."
    n = sum(p.numel() for name, p in decoder.named_parameters() if p.dim() == 2 and 'embed' not in name and 'lm_head' not in name)
    return round(2 * tokens * n / 1e9, 1)

def capture_all(eng: DecodeEngine, key: str, sizes: list[int], rec: dict) -> dict:
    "Capture `eng._prefill_layer` for each size (largest first) into one pool; record capture seconds and graphs compiled."
    mempool, graphs = torch.cuda.graph_pool_handle(), {}
    for n in sizes:
        g0, t = counters['stats']['unique_graphs'], time.perf_counter()
        eng.capture_prefill(n, mempool); torch.cuda.synchronize()
        graphs[n] = eng.prefill_graphs.pop(n)
        rec['per_size'][n][key] = dict(capture_s=round(time.perf_counter() - t, 1), graphs_compiled=counters['stats']['unique_graphs'] - g0)
        log(f'{key} @ {n}: captured in {rec["per_size"][n][key]["capture_s"]} s')
    return graphs

def outputs(eng: DecodeEngine, g, embeds, mask) -> dict:
    "Replay prefill graph g on these prompts into rows 0..n-1: first tokens and the written states of those rows."
    n = len(mask)
    g.embeds.copy_(embeds); g.mask.copy_(mask); g.rows.copy_(torch.arange(n, device='cuda')); g.budgets.fill_(8); g.graph.replay()
    p = eng.pool
    return dict(first=p.tok[:n].clone(), rec=torch.stack([r[:n] for r in p.rec]).clone(), k=torch.stack([k[:n] for k, _ in p.kv]).float().clone())

@torch.inference_mode()
def main(args) -> None:
    sizes = sorted({int(s) for s in args.sizes.split(',')}, reverse=True)
    model = ASRModel.from_pretrained(args.ckpt, device='cuda')
    x = decode_audio(args.audio); secs = audio_seconds(x)
    eng = DecodeEngine(model, max(sizes), GraphMode.GRAPH)              # the pool, prompt room, `_prompt_batch`, `capture_prefill`
    rec = dict(env=environment(), checkpoint=args.ckpt, audio=args.audio, audio_seconds=round(secs, 4), sizes=sizes,
               prompt_room=eng.prompt_room, budget=token_budget(secs, SYNTHETIC_TOKENS_PER_SECOND, eng.new_tokens),
               per_size={n: {} for n in sizes})
    save = lambda: json.dump(rec, open(args.out, 'w'), indent=1)
    inputs = {n: prompts(eng, x, n) for n in sizes}
    rec['gflop_per_prompt'] = gf = gemm_gflop(eng.decoder, eng.prompt_room)
    log(f'{secs:.2f} s chunks, prompt room {eng.prompt_room} tokens, {gf} GEMM GFLOP per prompt')
    variants = {}
    for key, fn in (('eager_graph', prefill_layer), ('compiled_graph', torch.compile(prefill_layer))):
        if key not in args.variants.split(','): continue
        eng._prefill_layer = fn
        variants[key] = graphs = capture_all(eng, key, sizes, rec)
        for n in sizes:
            g, (embeds, mask) = graphs[n], inputs[n]
            g.embeds.copy_(embeds); g.mask.copy_(mask)
            r = rec['per_size'][n][key]
            r.update(replay_ms=median_ms(g.graph.replay))
            r.update(ms_per_chunk=round(r['replay_ms'] / n, 3), tflop_per_s=round(gf * n / r['replay_ms'], 1))
            log(f'{key} @ {n}: {r["replay_ms"]} ms, {r["ms_per_chunk"]} ms per chunk, {r["tflop_per_s"]} TFLOP/s')
        save()
    for n in sizes if len(variants) == 2 else ():                        # the compiled prefill against the eager one, same prompts
        rec['compile_s'] = rec['per_size'][sizes[0]]['compiled_graph']['capture_s'] - rec['per_size'][sizes[0]]['eager_graph']['capture_s']
        ref, new = (outputs(eng, variants[k][n], *inputs[n]) for k in ('eager_graph', 'compiled_graph'))
        rec['per_size'][n]['compiled_vs_eager'] = a = dict(first_token_agreement=(ref['first'] == new['first']).float().mean().item(),
                                                           rec_state=agreement(new['rec'], ref['rec']), keys=agreement(new['k'], ref['k']))
        log(f'compiled vs eager @ {n}: {a}')
    save()
    rec['kernels'] = {}
    for key, graphs in variants.items():
        prof = profile_steps(graphs[sizes[0]].graph.replay, steps=3)
        rec['kernels'][key] = k = dict(rows=sizes[0], groups=kernel_table(prof, 3), top=top_kernels(prof, 3, k=20))
        if k['groups']: print_table(k['groups'], f'{key}, {sizes[0]} prompts: device ms per replay by kernel group')
        print_table(k['top'], f'{key}, {sizes[0]} prompts: top kernels, device ms per replay')
    save()
    print_table([dict(chunks=n, **{f'{k}_ms_per_chunk': rec['per_size'][n][k]['ms_per_chunk'] for k in variants},
                      **{f'{k}_tflop_per_s': rec['per_size'][n][k]['tflop_per_s'] for k in variants}) for n in sizes],
                f'{rec["env"]["gpu"]}: prefill graph replay, median of the replays, {gf} GFLOP per prompt')
    log(f'done; wrote {args.out}')

if __name__ == '__main__':
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('ckpt'); p.add_argument('audio'); p.add_argument('out')
    p.add_argument('--sizes', default='8,16,32,64', help='prompts per prefill, comma-separated')
    p.add_argument('--variants', default='eager_graph,compiled_graph', help='which prefills: eager_graph, compiled_graph or both (both: also compared)')
    main(p.parse_args())
