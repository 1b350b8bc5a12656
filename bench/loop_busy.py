"""What a server's event-loop thread does during a soak, from a py-spy recording of the server process (issue 13: the
`/health` tail on the 2-core CPU). py-spy samples each thread's Python stack at a fixed rate, whether the thread runs or
waits for the GIL; under uvloop a loop waiting for I/O shows `Runner.run` as its innermost Python frame (the wait is in C),
so every other sample is the loop running Python or waiting for the GIL to run it. Runs of consecutive such samples are
the stretches in which a `/health` that arrives has to wait.
Recorded with (the server of a 128-client soak, 30 s after it started):
  ta bench soak --clients 128 --minutes 2 --idle 5 --out /tmp/spy.json -- --device cpu &
  py-spy record -p <server pid> -r 100 --idle --threads -d 60 -f speedscope -o /tmp/spy.speedscope.json
Usage: python bench/loop_busy.py /tmp/spy.speedscope.json OUT.json
(py-spy's sampling slows the server on 2 cores: the soak it watched had a /health p99 of 277 ms, so the shares, not the times, are the result)"""
import collections, json, sys

src, out = sys.argv[1:3]
rec = json.load(open(src))
frames = rec['shared']['frames']
main = next(p for p in rec['profiles'] if '"MainThread"' in p['name'])
name = lambda i: f"{frames[i]['name']} ({frames[i].get('file', '').rsplit('/', 1)[-1]}:{frames[i].get('line', '')})"
busy = [bool(s) and not frames[s[-1]]['name'].startswith('Runner.run') for s in main['samples']]
runs, start = [], None
for i, b in enumerate(busy + [False]):
    if b and start is None: start = i
    if not b and start is not None: runs.append((i - start, start)); start = None
stacks = collections.Counter()
for n, at in runs:
    if n < 4: continue   # the stretches of 40 ms or more at 100 Hz
    for s in main['samples'][at:at + n]:
        ours = [name(i) for i in s if any(m in frames[i].get('file', '') for m in ('/ta/', 'starlette', 'fastapi', 'uvicorn', 'h11'))]
        stacks[' < '.join(reversed(ours[-3:])) or name(s[-1])] += 1
summary = dict(source=src, rate_hz=100, samples=len(busy), busy_share=round(sum(busy) / len(busy), 3),
               longest_busy_runs_samples=sorted((n for n, _ in runs), reverse=True)[:20],
               runs_of_40ms_or_more=sum(n >= 4 for n, _ in runs),
               samples_in_those_runs=sum(n for n, _ in runs if n >= 4),
               top_stacks_in_those_runs=[dict(samples=v, stack=k) for k, v in stacks.most_common(12)])
json.dump(summary, open(out, 'w'), indent=1)
print(json.dumps({k: v for k, v in summary.items() if k != 'top_stacks_in_those_runs'}))
for s in summary['top_stacks_in_those_runs']: print(s['samples'], s['stack'][:200])
