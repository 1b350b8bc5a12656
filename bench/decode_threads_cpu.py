"""Do one HTTP worker's upload decodes use more than one core? python bench/decode_threads_cpu.py OUT.json [repeats].
`n` decode_audio calls of fixtures/speech_17s.flac (17.5 s, 16 kHz mono FLAC, as bytes: an upload) through a thread pool
of 1 and 2 threads, as many as the machine's cores, and twice that (each HTTP worker decodes on such a pool, `ta.request`'s `_decoders`): if
libsndfile holds the GIL, more threads add nothing and only more worker processes would; if it releases it, one worker
already spreads its decodes over every core. Median wall ms of `repeats` rounds after one warm-up round."""
import json, os, statistics, sys, time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from ta.audio import decode_audio

def round_ms(body: bytes, n: int, threads: int) -> float:
    t = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool: list(pool.map(lambda _: decode_audio(body), range(n)))
    return (time.perf_counter() - t) * 1e3

def main(out: str, repeats: int = 7, n: int = 32):
    body = (Path(__file__).parent.parent / 'fixtures' / 'speech_17s.flac').read_bytes()
    cores = os.cpu_count() or 1
    rows = []
    for threads in sorted({1, 2, cores, 2 * cores}):
        round_ms(body, n, threads)
        ms = statistics.median(round_ms(body, n, threads) for _ in range(repeats))
        rows.append(dict(threads=threads, decodes=n, round_ms=round(ms, 1), ms_per_decode=round(ms / n, 2)))
        print(rows[-1])
    rec = dict(cores=cores, audio='fixtures/speech_17s.flac', repeats=repeats, rows=rows,
               speedup_at_cores=round(rows[0]['round_ms'] / next(r['round_ms'] for r in rows if r['threads'] == cores), 2))
    Path(out).write_text(json.dumps(rec, indent=1)); print(rec['speedup_at_cores'], 'x with', cores, 'threads')

if __name__ == '__main__': main(sys.argv[1], *map(int, sys.argv[2:3]))
