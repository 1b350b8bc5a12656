"""Which words does the default get wrong on each held-out voice, and how many of them are one accent feature? (issue 16,
nbs/14_train "Where the accent's errors are (stop 52)".) The espeak-ng accent held out (`en-029`) stops its "th": "the"
is said "de", "they" "day". This scores the embedded default on this CPU (the server's engine, eager, 32 rows) on 100
clean utterances of that accent and 100 each of flite's `slt` and piper's voice, aligns each transcript to its reference
word by word (jiwer, after the Whisper normaliser), and counts the substitutions of a reference word that starts with
"th" by a word that starts with "d" or "t" but not "th" (the stopped "th"), with the WER left if those were right.
Needs .train (bench/train_data.sh).
Usage: PYTHONPATH=$PWD/.train python bench/held_out_errors_cpu.py OUT.json"""
import collections, json, sys
from pathlib import Path
import jiwer, torch
from ta.engine import DecodeEngine
from ta.eval import normalize
from ta.model import ASRModel
from ta.settings import DEFAULT_MODEL_DIR
from ta.train import flite_test_set, piper_test_set, test_set

torch.set_num_threads(2)
data = Path('.train')

def stopped_th(ref: str, hyp: str) -> bool:
    "A reference word said with its 'th' stopped: 'the' heard as 'de', 'the' or 'they' as 'day', 'three' as 'tree'."
    return ref.startswith('th') and hyp[:1] in ('d', 't') and not hyp.startswith('th')

def errors(refs: list[str], hyps: list[str]) -> dict:
    "Word-level edits of `hyps` against `refs` (normalised), the commonest substitutions, and the stopped-'th' share."
    subs, n, e = collections.Counter(), 0, 0
    for r, h in zip(refs, hyps):
        o = jiwer.process_words(r or '-', h or '-')
        n += len(r.split()); e += o.substitutions + o.deletions + o.insertions
        for chunk in o.alignments[0]:
            if chunk.type == 'substitute':
                rw = r.split()[chunk.ref_start_idx:chunk.ref_end_idx]; hw = h.split()[chunk.hyp_start_idx:chunk.hyp_end_idx]
                subs.update(zip(rw, hw))
    th = sum(c for (r, h), c in subs.items() if stopped_th(r, h))
    return dict(words=n, errors=e, wer=round(e / n, 4), substitutions=sum(subs.values()), stopped_th=th,
                stopped_th_share_of_errors=round(th / e, 4), wer_without_stopped_th=round((e - th) / n, 4),
                top_substitutions=[f'{r} -> {h}: {c}' for (r, h), c in subs.most_common(15)])

model = ASRModel.from_pretrained(DEFAULT_MODEL_DIR, device='cpu')
eng = DecodeEngine(model, max_batch_size=32).setup(progress=lambda *a: None)
sets = {'espeak_held_out_clean': test_set(data, 200)[0::2], 'flite_held_out': flite_test_set(data, 100), 'piper': piper_test_set(data, 100)}
rec = dict(command=' '.join(['bench/held_out_errors_cpu.py'] + sys.argv[1:]), step=json.loads((DEFAULT_MODEL_DIR / 'training.json').read_text())['step'], sets={})
try:
    for name, utts in sets.items():
        hyps = eng.transcribe_clips([u.audio for u in utts])
        rec['sets'][name] = errors([normalize(u.text) for u in utts], [normalize(h) for h in hyps])
        print(name, {k: v for k, v in rec['sets'][name].items() if k != 'top_substitutions'}, flush=True)
finally: eng.close()
Path(sys.argv[1]).write_text(json.dumps(rec, indent=1) + '\n')
