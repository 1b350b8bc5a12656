"""Stop 37's experiment (nbs/10b_soak, "the probe at a higher priority"): `ta bench soak` with the /health probe's process
given nice PROBE_NICE (root: below 0 raises its priority) as soon as it runs. If the probe's p99 falls under 50 ms, the
tail on 2 cores is the probe waiting for a core, not the server's answer. Four 2-minute soaks at 128 clients on the 2-core
CPU machine, alternating:
    for r in before1 after1 after2 before2; do case $r in before*) n=0;; after*) n=-10;; esac
      PROBE_NICE=$n python bench/soak_probe_nice.py --clients 128 --minutes 2 --idle 10 \\
        --out bench/soak_tiny_cpu_128x2min_probe_nice_$r.json -- --device cpu; done"""
import os, sys
import ta.soak as soak

_init = soak.HealthProbe.__init__
def _init_then_nice(self, *a, **k):
    _init(self, *a, **k); os.setpriority(os.PRIO_PROCESS, self.proc.pid, int(os.environ.get('PROBE_NICE', '0')))
soak.HealthProbe.__init__ = _init_then_nice

if __name__ == '__main__': sys.exit(soak.main_soak(sys.argv[1:]))   # the guard: the probe's spawned process imports this file
