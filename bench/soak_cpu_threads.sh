#!/usr/bin/env bash
# Stop 38's experiment (nbs/10b_soak, "The engine's threads on a CPU"), on the 2-core CPU machine from the repository
# root, with the code of commit 05fd09b (torch's default: as many intra-op threads as cores): four 2-minute soaks at 128
# clients, alternating torch's two threads (before) and one (after, OMP_NUM_THREADS=1 for the soak and the ta serve it
# starts). Each record gets `omp_num_threads` added after the run (the soak does not read it).
#   bash bench/soak_cpu_threads.sh
# The engine alone, without HTTP load, alternating (TA_CPU_THREADS: the --cpu-threads setting, here with the default below;
# each record gets `ta_cpu_threads` added after the run):
#   for r in a b; do for t in 1 2; do TA_CPU_THREADS=$t ta bench --offline --levels 1,8 --rounds 2 --audio fixtures/speech_17s.flac \
#     --out bench/offline_tiny_cpu_threads${t}_$r.json; done; done
# Then, with the default that came of it (`--cpu-threads` 0: half the cores, one here), the 10-minute record:
#   ta bench soak --clients 128 --minutes 10 --out bench/soak_tiny_cpu_128x10min_threads.json -- --device cpu
set -euo pipefail
for r in before1 after1 after2 before2; do
  case $r in before*) unset OMP_NUM_THREADS;; after*) export OMP_NUM_THREADS=1;; esac
  out=bench/soak_tiny_cpu_128x2min_threads_$r.json
  ta bench soak --clients 128 --minutes 2 --idle 10 --out $out -- --device cpu
  python -c "import json, sys; d = json.load(open(sys.argv[1])); d['omp_num_threads'] = sys.argv[2] or None; json.dump(d, open(sys.argv[1], 'w'), indent=1)" $out "${OMP_NUM_THREADS:-}"
done
