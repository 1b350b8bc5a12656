"""Stop 36's experiment (nbs/10b_soak, "the load generator at a lower priority"): `ta bench soak` with its clients' process
niced by CLIENT_NICE once the server it starts and the /health probe's process are running (both keep the priority they
started with). Four 2-minute soaks at 128 clients on the 2-core CPU machine, alternating:
    for r in before1 after1 after2 before2; do case $r in before*) n=0;; after*) n=10;; esac
      CLIENT_NICE=$n python bench/soak_client_nice.py --clients 128 --minutes 2 --idle 10 \\
        --out bench/soak_tiny_cpu_128x2min_client_nice_$r.json -- --device cpu; done"""
import os, sys
import ta.soak as soak

_start = soak.HealthProbe.start
def _start_then_nice(self):
    _start(self); os.nice(int(os.environ.get('CLIENT_NICE', '0')))
soak.HealthProbe.start = _start_then_nice

if __name__ == '__main__': sys.exit(soak.main_soak(sys.argv[1:]))   # the guard: the probe's spawned process imports this file
