"""The embedded default on `paused_test_set`'s utterances with and without their pauses (nbs/14_train "With them: pauses"),
on this CPU. Needs .train (bench/train_data.sh). Usage: PYTHONPATH=$PWD/.train python bench/pauses_default_cpu.py OUT.json [N]"""
import json, sys
from pathlib import Path
from ta.settings import DEFAULT_MODEL_DIR
from ta.train import held_out_wer, paused_test_set, restore

out, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 40
model, meta = restore(DEFAULT_MODEL_DIR)
wer = {name: held_out_wer(model, paused_test_set(Path('.train'), n, pauses=p), halves=False) for name, p in (('without_pauses', False), ('with_pauses', True))}
rec = dict(command=' '.join(['bench/pauses_default_cpu.py'] + sys.argv[1:]), step=meta['step'], utterances=n,
           wer={k: round(v['wer'], 4) for k, v in wer.items()}, examples={k: v['examples'][:2] for k, v in wer.items()})
print(json.dumps(rec, indent=1)); Path(out).write_text(json.dumps(rec, indent=1) + '\n')
