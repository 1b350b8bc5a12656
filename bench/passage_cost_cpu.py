"""Issue 16, stop 40: what a passage (verses in a row, `ta.corpus.passage`) costs the training loader against single sentences.
Draws N training utterances each way in one process, espeak-ng in its child process and flite for FLITE_SHARE of them, as
a loader worker does, and divides the audio made by the CPU seconds of this process and its children. Also the words and
seconds per utterance. Run on an idle CPU (the loader runs one worker per core):
  PYTHONPATH=$PWD/.train python bench/passage_cost_cpu.py bench/passage_cost_cpu.json [N]"""
import json, os, platform, resource, sys, time
from pathlib import Path
import numpy as np
from ta.corpus import FLITE_SHARE, Flite, IsolatedEspeak, utterance
from ta.features import SAMPLE_RATE
from ta.train import load_texts

def cpu_s(espeak_pid: int) -> float:
    "CPU seconds (user and system) so far of this process, its waited-for children (flite's runs) and the running espeak-ng child."
    own = sum(getattr(resource.getrusage(w), f) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN) for f in ('ru_utime', 'ru_stime'))
    stat = Path(f'/proc/{espeak_pid}/stat').read_text().rsplit(')', 1)[1].split()   # fields from the state on: utime, stime are 11, 12
    return own + (int(stat[11]) + int(stat[12])) / os.sysconf('SC_CLK_TCK')

def draw(texts, passage_share: float, n: int, seed: int) -> dict:
    "N training utterances with `passage_share` of passages after one not timed (the espeak-ng child's start): audio seconds per CPU second, words and seconds each."
    rng, flite = np.random.default_rng(seed), Flite()
    with IsolatedEspeak() as tts:
        utterance(tts, texts, 'train', rng, passage_share=passage_share)
        c0, t0 = cpu_s(tts.proc.pid), time.perf_counter()
        us = [utterance(tts, texts, 'train', rng, flite=flite, flite_share=FLITE_SHARE, passage_share=passage_share) for _ in range(n)]
        cpu, wall = cpu_s(tts.proc.pid) - c0, time.perf_counter() - t0
    audio = sum(len(u.audio) for u in us) / SAMPLE_RATE
    words = [len(u.text.split()) for u in us]
    return dict(passage_share=passage_share, utterances=n, audio_s=round(audio, 1), cpu_s=round(cpu, 2), wall_s=round(wall, 2),
                audio_s_per_cpu_s=round(audio / cpu, 1), mean_words=round(float(np.mean(words)), 1), max_words=max(words),
                mean_s=round(audio / n, 2), over_40_words=round(float(np.mean([w > 40 for w in words])), 3))

if __name__ == '__main__':
    out, n = Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 120
    texts = load_texts(Path('.train'))
    rows = [draw(texts, share, n, seed) for seed, share in enumerate((0.0, 1.0, 0.0, 1.0))]   # twice each, alternating
    rec = dict(machine=f'{platform.processor() or platform.machine()}, {os.cpu_count()} cores', load_1min=os.getloadavg()[0], rows=rows)
    out.write_text(json.dumps(rec, indent=1) + '\n')
    for r in rows: print(r)
