"""Write ./ab_count/ta: this tree's `ta` with `DecodeEngine._admit_now` as it was in v8 (the count rule: 32 chunks, or enough to
fill the free rows, or 32 steps), so that `bash bench/engine_h200.sh build v9` runs both rules on the same compiled engine.
    python bench/ab_count_rule.py"""
import re, shutil
from pathlib import Path
out = Path('ab_count/ta'); shutil.rmtree(out.parent, ignore_errors=True)
shutil.copytree('ta', out, ignore=shutil.ignore_patterns('checkpoints', '__pycache__'))
src = (out / 'engine.py').read_text()
count_rule = '''def _admit_now(self, free: int) -> bool:
    "v8's count rule: admit once enough chunks wait to fill the free rows (or 32), or the oldest has waited `ADMIT_MAX_WAIT` steps."
    waiting = sum(map(len, self._queues.values()))
    oldest = min(q[0].queued_step for q in self._queues.values())
    return waiting >= min(free, 32) or self.stats.decode_steps - oldest >= ADMIT_MAX_WAIT
'''
src, n = re.subn(r'def _admit_now\(self, free: int\) -> bool:\n.*?(?=DecodeEngine\._admit_now = _admit_now)', count_rule, src, flags=re.S)
assert n == 1, 'no _admit_now found in ta/engine.py'
(out / 'engine.py').write_text(src)
print(f'wrote {out} with the count rule')
