#!/usr/bin/env bash
# The decode-step measurements on the H200 test machine, run from the repository root; results go under $OUT.
# Needs ./.gpu: ../shared/gpu/prepare.sh plus the nbdev, execnb and ipython wheels (for `notebooks` and `gputest`).
#   bash bench/h200.sh bench notebooks   # cumulative batch-32 table, then execute nbs/06*_*.ipynb with outputs
#   bash bench/h200.sh gputest sizes     # nbdev_test --flags gpu on those notebooks; stock vs all at batch 1 and 128
#   bash bench/h200.sh two_gpus          # (nvidia-h200-x2) notebooks + batch 1 on GPU 0, gputest + batch 128 on GPU 1
#   bash bench/h200.sh experiment        # all four patches with torch.compile(mode="max-autotune")
#   bash bench/h200.sh gputest2          # (nvidia-h200-x2) the gpu test pass split over both GPUs
#   DEADLINE=300 bash bench/h200.sh parity  # stock and all patches at batch 32 against the fp32 reference and its bound
#   bash bench/h200.sh gdn_configs        # the Gated DeltaNet state update under other tile shapes (bench/gdn_step_h200.py)
# Each step stops at the shared deadline (DEADLINE seconds after start), so whatever finished comes back.
set -uo pipefail
source .gpu/install.sh || exit 1
export PATH=/tmp/site/bin:$PATH PYTHONUNBUFFERED=1 TORCHINDUCTOR_CACHE_DIR=/tmp/inductor_cache
OUT=${OUT:-/tmp/out}; DEADLINE=${DEADLINE:-570}; mkdir -p "$OUT" bench
left() { echo $((DEADLINE - SECONDS)); }

bench() {
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.used --format=csv
  timeout $(left) python -c "import sys; from ta.patches.measure import main_decode_step as m; m(sys.argv[1:])" \
    --cumulative --batch 32 --prompt-len 256 --repeats 50 --out bench/decode_step_b32.json 2>&1 >/dev/null \
    | grep -v -i warn | tee "$OUT/bench_b32.log"
  cp bench/decode_step_b32.json "$OUT/"
}
notebooks() {
  mkdir -p /tmp/nbout
  for nb in nbs/06*_*.ipynb; do
    [ "$(left)" -lt 20 ] && { echo "no time left for $nb"; break; }
    (cd nbs && timeout $(left) python - "$(basename "$nb")" <<'EOF'
import sys, time
from execnb.nbio import read_nb, write_nb
from execnb.shell import CaptureShell
name = sys.argv[1]; nb = read_nb(name); t = time.time()
sh = CaptureShell(); sh.run_all(nb, exc_stop=False)
write_nb(nb, f"/tmp/nbout/{name}")
errs = [o.get("ename") for c in nb.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
print(f"{name}: executed in {time.time() - t:.0f} s; errors: {errs}")
EOF
    )
  done
  cp -r bench /tmp/nbout/
  python -c "import shutil; shutil.make_archive('$OUT/executed', 'zip', '/tmp/nbout')"
}
gputest() {
  export TA_BENCH_OUT=/tmp/gputest_bench  # the test pass writes its measurements aside
  timeout $(left) nbdev_test --flags gpu --n_workers 0 --do_print --timing --path nbs --file_glob "06*_*.ipynb" 2>&1 \
    | grep -v -i warn | tee "$OUT/nbdev_test_gpu.log" | tail -60
}
sizes() {
  for b in ${SIZES:-1 128}; do
    [ "$(left)" -lt 60 ] && break
    timeout $(left) python -c "
import json; from ta.patches.measure import bench_cumulative, PATCHES
rec = bench_cumulative($b, 256, 50, configs=[(), PATCHES], parity_steps=2, profile_last=False)
open('bench/decode_step_b$b.json', 'w').write(json.dumps(rec, indent=1))" 2>&1 | grep -v -i warn | tail -3
    cp bench/decode_step_b$b.json "$OUT/" 2>/dev/null
  done
}
parity() {  # bench_cumulative's bound on the full-size decoder: stock and all patches against the stock decoder in fp32
  timeout $(left) python -c "
import json; from ta.patches.measure import bench_cumulative, check_parity, PATCHES
rec = bench_cumulative(32, 256, 10, configs=[(), PATCHES], parity_steps=4, profile_last=False)
open('$OUT/decode_step_b32_parity.json', 'w').write(json.dumps(rec, indent=1))
print({r['label']: (r['median_ms'], r['parity_vs_fp32']['rel_l2'], r['parity_vs_fp32']['argmax_agree']) for r in rec['rows']}, 'bound', rec['parity_bound'])
check_parity(rec); print('within the bound')" 2>&1 | grep -v -i warn | tail -8
}
gdn_configs() {
  timeout $(left) python bench/gdn_step_h200.py "$OUT/gdn_step_h200.json" 2>&1 | grep -v -i warn | tail -70
}
gputest2() {  # nvidia-h200-x2: the same test pass, notebook 06_patches_bench on GPU 0 and the rest on GPU 1, in parallel
  export TA_BENCH_OUT=/tmp/gputest_bench
  (CUDA_VISIBLE_DEVICES=0 timeout $(left) nbdev_test --flags gpu --n_workers 0 --do_print --timing --path nbs \
     --file_glob "06_*.ipynb" > "$OUT/gputest_gpu0.log" 2>&1; echo "rc=$?" >> "$OUT/gputest_gpu0.log") &
  (CUDA_VISIBLE_DEVICES=1 timeout $(left) nbdev_test --flags gpu --n_workers 0 --do_print --timing --path nbs \
     --file_glob "06[a-f]_*.ipynb" > "$OUT/gputest_gpu1.log" 2>&1; echo "rc=$?" >> "$OUT/gputest_gpu1.log") &
  wait; grep -v -i warn "$OUT/gputest_gpu0.log" | tail -20; grep -v -i warn "$OUT/gputest_gpu1.log" | tail -30
}
experiment() {
  timeout $(left) python -c "import sys; from ta.patches.measure import main_decode_step as m; m(sys.argv[1:])" \
    --patches all --mode max-autotune --batch 32 --prompt-len 256 --repeats 50 \
    --out bench/decode_step_b32_max_autotune.json 2>&1 >/dev/null | grep -v -i warn | tail -5
  cp bench/decode_step_b32_max_autotune.json "$OUT/" 2>/dev/null
}
two_gpus() {
  (export CUDA_VISIBLE_DEVICES=0 SIZES=1; notebooks; sizes) > "$OUT/gpu0.log" 2>&1 &
  (export CUDA_VISIBLE_DEVICES=1 SIZES=128; gputest; sizes) > "$OUT/gpu1.log" 2>&1 &
  wait; tail -n 25 "$OUT/gpu0.log"; tail -n 40 "$OUT/gpu1.log"
}
for step in "$@"; do echo "== $step at ${SECONDS}s"; $step; done
echo "== done at ${SECONDS}s"
