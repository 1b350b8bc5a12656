"""What the GIL costs an in-process decode: python bench/decode_gil_cpu.py OUT.json [repeats] [before]. decode_audio of
fixtures/speech_17s.flac (17.5 s, 16 kHz mono FLAC, as bytes: an upload) alone, and beside a thread that runs Python
without pause (a busy event loop at its worst): the reader of commit `before` (default d29c2ab: a second of frames a
block, through `f.blocks`, the mix and a bytearray) and this checkout's, each at the default GIL switch interval (5 ms)
and at `GIL_SWITCH_S`. Median ms of `repeats` after two warm-up decodes; all in one process, one after another."""
import importlib.util, json, statistics, subprocess, sys, threading, time
from pathlib import Path
import ta.audio

ROOT = Path(__file__).parent.parent

def module_at(commit: str):
    "ta/audio.py as it was at `commit`, imported as ta.audio_<commit> (its relative imports resolve inside ta)."
    src = subprocess.run(['git', '-C', str(ROOT), 'show', f'{commit}:ta/audio.py'], capture_output=True, text=True, check=True).stdout
    spec = importlib.util.spec_from_loader(f'ta.audio_{commit}', loader=None)
    mod = importlib.util.module_from_spec(spec); sys.modules[spec.name] = mod
    exec(compile(src, f'{commit}:ta/audio.py', 'exec'), mod.__dict__)
    return mod

def decode_ms(decode, body: bytes, repeats: int) -> float:
    for _ in range(2): decode(body)
    times = []
    for _ in range(repeats):
        t = time.perf_counter(); decode(body); times.append(time.perf_counter() - t)
    return round(statistics.median(times) * 1e3, 2)

def beside_busy_thread(fn):
    "fn() while another thread runs Python without pause."
    stop = threading.Event()
    def spin():
        while not stop.is_set(): pass
    t = threading.Thread(target=spin); t.start()
    try: return fn()
    finally: stop.set(); t.join()

def main(out: str, repeats: int = 31, before: str = 'd29c2ab'):
    body, rows = (ROOT / 'fixtures' / 'speech_17s.flac').read_bytes(), []
    for reader, mod in ((before, module_at(before)), ('this checkout', ta.audio)):
        for interval in (0.005, ta.audio.GIL_SWITCH_S):
            sys.setswitchinterval(interval)
            rows.append(dict(reader=reader, switch_interval_s=interval, alone_ms=decode_ms(mod.decode_audio, body, repeats),
                             beside_busy_thread_ms=beside_busy_thread(lambda: decode_ms(mod.decode_audio, body, repeats))))
            print(rows[-1], flush=True)
    Path(out).write_text(json.dumps(dict(audio='fixtures/speech_17s.flac', repeats=repeats, rows=rows), indent=1) + '\n')

if __name__ == '__main__': main(sys.argv[1], *map(int, sys.argv[2:3]), *sys.argv[3:])
