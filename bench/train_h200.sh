#!/usr/bin/env bash
# One resumable stretch of the default model's training on the H200 (nbs/14_train). The exact commands:
#   here, once:   bash bench/train_data.sh
#   device call:  run(command="bash bench/train_h200.sh 8.5 [profile|-] [--total-steps N ...]", carry=[".train"], timeout_s=600)
#   here, after:  bash bench/train_h200.sh --unpack <files_at>     (puts the state under .train/run/state)
#   a later call carries .train/run/state too and resumes from it; `python -m ta.train --out .train/run --export DIR`
#   writes the checkpoint folder.
#   RUN=/tmp/trainrun (stop 39): the run folder on the GPU machine, outside the carried .train, so a call sent within 30 s
#   of the last (the machine still warm) resumes the state that call left there without carrying it; a fresh machine
#   starts from the carried .train/run/state, or else from git's kept state, so a session's first call needs no state
#   carried (.train alone: 22 MB beside the tree). From stop 47 that is the embedded default, ta/checkpoints/default (a
#   checkpoint with bf16 weights and training.json, 11 MB; before it, bench/train_state):
#   here, at a session's end:  python -m ta.train --out .train/run --keep ta/checkpoints/default
#   stop 40: RUN=/tmp/trainrun DEADLINE=575 ... 9.5 twice (cold, then warm), then DEADLINE=400 ... 9.5 (warm): steps 3,161-7,099
#   stop 41 (passages, PASSAGE_SHARE=0.3): RUN=/tmp/trainrun DEADLINE=575 ... 9.5 (cold), then DEADLINE=560 ... 9.5 (warm): steps 7,099-9,561
#   from stop 41 the loader also runs festival (FESTIVAL_SHARE): run bench/train_data.sh again for .train/festival.tar.xz; carried
#   with .train (without .train/run) and the tree, about 63 MB of the 64 MiB a call may carry
#   stop 42 (planned; no device was lent): RUN=/tmp/trainrun DEADLINE=575 ... 9.5 (cold, resuming bench/train_state at 9,561),
#   then DEADLINE=560 ... 9.5 (warm): the first calls with festival (one child a worker), flite's and festival's pitch, and
#   espeak-ng's made voices (nbs/13_corpus); the predictions are in nbs/14_train ("Next")
#   stop 44: that plan on a machine the engine's call left warm, with the session's last device time: RUN=/tmp/trainrun
#   DEADLINE=370 ... 9.5, carrying .train without .train/run: steps 9,561-10,265 (nbs/14_train, "Run 2 with festival, pitch
#   and made voices"); the next: DEADLINE=575 then 560 (warm), the same data (nbs/14_train, "Next (stop 44)")
#   stop 46 (planned; no device was lent): RUN=/tmp/trainrun DEADLINE=575 ... 9.5 (cold, from bench/train_state at 11,433), the
#   first call with half the clips' formants moved (--vtlp-share 0.5, the default; nbs/14_train "Next: vocal tract length")
#   stop 47 (planned; no device was lent): that call (cold, from ta/checkpoints/default at 11,433), then one sent while the
#   machine is warm with SpecAugment's masks on every clip: RUN=/tmp/trainrun DEADLINE=575 ... 9.5 - --spec-augment-share 1
#   (nbs/14_train "Next after it: masks")
#   stop 48: the VTLP call with 5% of clips saying nothing (--no-speech-share 0.05, the default; nbs/14_train "With them:
#   clips with nothing said"): RUN=/tmp/trainrun DEADLINE=575 ... 9.5, carrying .train without .train/run; augmentation
#   runs on the GPU from this call (nbs/14_train "Augmentation where the step runs"), and a quarter of the spoken clips have
#   pauses around them (--pause-share 0.25; "With them: pauses"). Run on an H100 (nvidia-h100-x1; no H200 came): steps
#   11,433-12,806. Its first try died at import: ta.train imports ta.settings (pydantic) since stop 47, and .train/wheels
#   lacked it (bench/train_data.sh now fetches it); the second carried only ta/ and this script of the tree (64 MiB):
#     git ls-files -z nbs bench fixtures | grep -zvE '^bench/train_h200\.sh$' | xargs -0 rm -f   (after: git checkout -- nbs bench fixtures)
#   stop 50 (masks, --spec-augment-share 1): a first call got an H200 and died at import (.train/wheels lacked python-dotenv, which
#   pydantic-settings imports; bench/train_data.sh fetches it now); then on an H100 (nvidia-h100-x1), carrying .train and of the
#   tree only ta/ and this script: RUN=/tmp/trainrun DEADLINE=575 ... 9.5 - --spec-augment-share 1 (cold, from the default at
#   12,806), then DEADLINE=465 (warm): steps 12,806-14,447 (nbs/14_train "Run 2 with masks"); masks are the default since then
#   stop 51: RUN=/tmp/trainrun DEADLINE=575 ... 9.5 (cold, an H100, from the default at 14,447), then DEADLINE=560 ... 9.5
#   (warm): steps 14,447-17,098 (nbs/14_train "Run 2 continued (stop 51)"). From stop 51 a state keeps Adam's moments
#   (optimizer.pt) on the machine, left out of the packed state: a warm call resumes with them and skips the warm-up
#   stop 52: the same two calls, steps 17,098-20,000, the schedule's end (nbs/14_train "Run 2 to the schedule's end"). Run 3, a
#   model of width 224 from scratch (nbs/14_train "Next (stop 52)"), its own run folders here and on the machine, carrying
#   .train without its runs and, of the tree, ta/ without its checkpoints and this script:
#     device call: RUN=/tmp/run3 START=none DEADLINE=575 bash bench/train_h200.sh 9.5 - --dim 224
#     here, after: LOCAL=.train/run3 bash bench/train_h200.sh --unpack <files_at>   (log: bench/h200/train3_STEP.log)
#   stop 53: that call (cold, an H100), then DEADLINE=560 and DEADLINE=160 with the same arguments (warm): run 3's steps
#   0-4,000 (nbs/14_train "Run 3's first calls"); its meta bench/train_run3_h200.json. Before the next session's first call,
#   here: python -m ta.train --out .train/run3 --keep .train/run3/kept   (bf16, 20 MB; the fp32 state is 40 MB), then
#     device call: RUN=/tmp/run3 START=.train/run3/kept DEADLINE=575 bash bench/train_h200.sh 9.5
#     carrying .train with .train/run3/kept but without .train/run and .train/run3/state (about 56 MB with ta/ and this script)
#   stop 54: that call (cold, an H100), then DEADLINE=545 with the same arguments (warm): steps 4,000-7,088 (nbs/14_train
#   "Run 3 continued"); then here: LOCAL=.train/run3 bash bench/train_h200.sh --unpack /work/.device/N for each call in turn,
#   python -m ta.train --out .train/run3 --keep .train/run3/kept (the bf16 copy at 7,088), and the same first call next session
#   stop 55: that call (cold, an H100), then DEADLINE=545 and DEADLINE=370 with the same arguments (warm): steps 7,088-9,645
#   (nbs/14_train "Run 3 continued (stop 55)"); unpacked, kept (the bf16 copy at 9,645) and scored as in stop 54
#   stop 56: that call (cold, an H100), then DEADLINE=545 ... 9.5 and DEADLINE=590 ... 9.8 (warm): steps 9,645-12,397
#   (nbs/14_train "Run 3 continued (stop 56)"); unpacked, kept (the bf16 copy at 12,397) and scored as in stop 54.
#   stop 57: the same three calls (DEADLINE=575, 545, 585): steps 12,397-18,000 (nbs/14_train "Run 3 to 18,000, and where it
#   stops"); unpacked, kept and scored as in stop 54, plus ta eval on the offline set. Run 3 stops there by the rule of stop 56
set -euo pipefail
if [ "${1:-}" = --unpack ]; then   # into a new folder first: the state it replaces is the only copy of the steps before
  [ -d "${2:-}" ] && compgen -G "$2/state.tar.part-*" >/dev/null || { echo "usage: [LOCAL=.train/run] $0 --unpack <folder with state.tar.part-*>" >&2; exit 2; }
  local_run=${LOCAL:-.train/run}; tag=${local_run#.train/}; tag=${tag#run}   # the log of .train/run3 is bench/h200/train3_STEP.log
  new=$(mktemp -d .train/unpack.XXXX)
  { cat "$2"/state.tar.part-* | tar x -C "$new" && [ -s "$new/state/meta.json" ] && jq -e .step "$new/state/meta.json" >/dev/null; } ||
    { echo "no complete state in $2; kept $local_run/state" >&2; rm -rf "$new"; exit 1; }
  mkdir -p "$local_run"; rm -rf "$local_run/state.old"; [ ! -d "$local_run/state" ] || mv "$local_run/state" "$local_run/state.old"
  mv "$new/state" "$local_run/state" && rm -rf "$new" "$local_run/state.old"
  cp "$2"/train_log.txt bench/h200/train${tag}_$(jq -r .step "$local_run/state/meta.json").log; exit; fi
# bash bench/train_h200.sh MINUTES [profile|-] [python -m ta.train arguments, e.g. --total-steps 8000]
#   profile: first profile a step (bench/train_profile_h200.py, about a minute)
#   DEADLINE (default 570): seconds after the start by which training is sent SIGTERM (it ends the step it is in, saves
#   the state and the checkpoint and exits with 143, its workers' deaths from the same signal not taken for a crash), so
#   the state is packed into $OUT before the device call's 600 s limit, whatever MINUTES says
minutes=${1:-8}; profile=${2:-}; extra=("${@:3}"); deadline=${DEADLINE:-570}
python3 -m pip install -q --upgrade --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .train/wheels/*.whl
mkdir -p /tmp/flite /tmp/festival && tar xJf .train/flite.tar.xz -C /tmp/flite && tar xJf .train/festival.tar.xz -C /tmp/festival
export PYTHONPATH="/tmp/site:$PWD/.train:$PWD${PYTHONPATH:+:$PYTHONPATH}" HF_HUB_OFFLINE=1 PYTHONUNBUFFERED=1 TOKENIZERS_PARALLELISM=false \
  PATH="/tmp/festival/bin:/tmp/flite/usr/bin:$PATH" LD_LIBRARY_PATH="/tmp/flite/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
flite -voice awb -t "flite works." -o /tmp/flite/check.wav && ls -la /tmp/flite/check.wav
echo "(voice_ked_diphone) (utt.save.wave (SynthText \"festival works.\") \"/tmp/festival/check.wav\" 'riff)" | festival --pipe && ls -la /tmp/festival/check.wav
nvidia-smi --query-gpu=name,memory.used --format=csv,noheader; nproc
if [ "$profile" = profile ]; then python3 bench/train_profile_h200.py --out "$OUT/train_profile.json" 2>&1 | grep -av --line-buffered '^\[transformers\]' | head -45 || true; fi
run=${RUN:-.train/run}
# START: the states to resume from when the machine has none of its own, the first that exists (default: the carried
# .train/run/state, then git's kept default); START=none starts a new run (stop 52: run 3, `--dim 224`)
start=${START:-.train/run/state ta/checkpoints/default}; [ "$start" != none ] || start=
for kept in $start; do   # a warm machine's own state first, then the carried one, then git's
  if [ ! -d "$run/state" ] && [ -d "$kept" ]; then mkdir -p "$run" && cp -r "$kept" "$run/state"; fi; done   # ta.train says which step it resumes
left=$((deadline - SECONDS - 25))   # 25 s to pack the state
timeout -s TERM -k 20 "$left" python3 -m ta.train --out "$run" --minutes "$minutes" "${extra[@]}" 2>&1 |
  grep -av --line-buffered '^\[transformers\]' | tee "$OUT/train_log.txt" || true   # line-buffered: a killed run keeps its log
tar cf - -C "$run" --exclude=optimizer.pt state | split -b 15M - "$OUT/state.tar.part-"   # Adam's moments stay on the machine (ta.train.MOMENTS)
ls -la "$OUT"
