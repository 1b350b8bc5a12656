"""Words a checkpoint writes for `ta.train.no_speech_test_set`'s 50 clips with nothing said (nbs/14_train "With them: clips
with nothing said"), on this CPU. Usage: python bench/no_speech_default_cpu.py OUT.json [CHECKPOINT]   (default: the embedded default)"""
import json, sys
from pathlib import Path
from ta.settings import DEFAULT_MODEL_DIR
from ta.train import no_speech_test_set, no_speech_words, restore

model, meta = restore(Path(sys.argv[2]) if len(sys.argv) > 2 else DEFAULT_MODEL_DIR)
rec = dict(command=' '.join(['bench/no_speech_default_cpu.py'] + sys.argv[1:]), step=meta['step'], clips=50, **no_speech_words(model, no_speech_test_set(50)))
print(json.dumps(rec, indent=1)); Path(sys.argv[1]).write_text(json.dumps(rec, indent=1) + '\n')
