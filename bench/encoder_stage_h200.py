"""The encoder stage of an admission as this tree's `COMPILED` engine captures it (`DecodeEngine._encode`: since stop 33
`regional_encode`), for ROWS copies of the real recording (AUDIO) padded to 18 s: the capture's seconds (its compile
included), the graph replay and `encode_with` as the worker calls it (median of 20 after 3, each between two
`torch.cuda.synchronize`), the device time by kernel group and the top kernels of one replay (torch profiler), and the
first chunk's audio tokens, saved beside the JSON (`*_tokens.pt`) so that another tree's run can be held against
them (`--against`), and against the uncompiled pass's, with the size of one bf16 rounding of those tokens as the yardstick. Stop 34 runs it on the tree
before (./ab_before) and after the depthwise convolutions as taps and the projector in TF32 (nbs/07_engine).
Usage (from bench/engine_h200.sh, the repository root on PYTHONPATH):
  python bench/encoder_stage_h200.py CKPT AUDIO OUT.json [--rows 64] [--against OTHER_tokens.pt]"""
import argparse, json, time
from pathlib import Path
import torch
from torch._dynamo.utils import counters
from ta.audio import decode_audio, audio_seconds
from ta.engine import DecodeEngine, GraphMode, capture_encoder, encode_with
from ta.features import batch_clip_features
from ta.model import ASRModel
from ta.patches.bench import environment, print_table, kernel_table, profile_steps
from encode_h200 import median_ms, top_kernels, agreement, real_tokens, log

@torch.inference_mode()
def main(args) -> None:
    model = ASRModel.from_pretrained(args.ckpt, device='cuda')
    x = decode_audio(args.audio)
    eng = DecodeEngine(model, args.rows, GraphMode.COMPILED)                 # its `_encode`, as `setup` captures it
    feats, lengths = batch_clip_features([x] * args.rows, 'cuda'); lengths = torch.tensor(lengths, device='cuda')
    g0, t = counters['stats']['unique_graphs'], time.perf_counter()
    eg = capture_encoder(model, args.rows, torch.cuda.graph_pool_handle(), eng._encode); torch.cuda.synchronize()
    rec = dict(env=environment(), checkpoint=args.ckpt, audio=args.audio, audio_seconds=round(audio_seconds(x), 4), rows=args.rows,
               capture_s=round(time.perf_counter() - t, 1), graphs_compiled=counters['stats']['unique_graphs'] - g0)
    save = lambda: json.dump(rec, open(args.out, 'w'), indent=1)
    rec['replay_ms'] = median_ms(eg.graph.replay)
    rec['encode_with_ms'] = median_ms(lambda: encode_with(eg, model, feats, lengths))
    rec['ms_per_chunk'] = round(rec['encode_with_ms'] / args.rows, 4)
    log(f'{args.rows} chunks: captured in {rec["capture_s"]} s, replay {rec["replay_ms"]} ms, encode_with {rec["encode_with_ms"]} ms')
    frames, n_audio = encode_with(eg, model, feats[:1], lengths[:1])
    tokens = real_tokens(frames[:1], n_audio).cpu()
    torch.save(tokens, Path(args.out).with_name(Path(args.out).stem + '_tokens.pt'))
    rec['bf16_rounding'] = agreement(tokens.bfloat16().float(), tokens)      # the yardstick: the decoder reads them in bf16
    eager, n_eager = encode_with(None, model, feats[:1], lengths[:1])          # `_encode` uncompiled: aten's convolution, fp32 projector
    rec['vs_eager'] = agreement(tokens, real_tokens(eager, n_eager).cpu()); log(f'against the eager pass: {rec["vs_eager"]}')
    if args.against: rec['vs_against'] = agreement(tokens, torch.load(args.against)); log(f'against {args.against}: {rec["vs_against"]}')
    save()
    prof = profile_steps(eg.graph.replay, steps=3)
    rec['kernels'] = dict(groups=kernel_table(prof, 3), top=top_kernels(prof, 3, k=20))
    print_table(rec['kernels']['groups'], f'{args.rows} chunks: device ms per replay by kernel group')
    print_table(rec['kernels']['top'], f'{args.rows} chunks: top kernels, device ms per replay')
    save(); log(f'wrote {args.out}')

if __name__ == '__main__':
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('ckpt'); p.add_argument('audio'); p.add_argument('out')
    p.add_argument('--rows', type=int, default=64, help='chunks in the admission (default 64)')
    p.add_argument('--against', help="another run's *_tokens.pt to compare the first chunk's audio tokens with")
    main(p.parse_args())
