#!/usr/bin/env python3
"""The radix heap as the paper's baseline describes it (Waldvogel et al. §II, §VI),
independently of vodbench: a textbook radix-2 radix heap (Ahuja et al.; external version
Brengel et al. 1999) with the paper's one modification, buckets written to disk only when
the memory is full.

An instant-by-instant model with no disk timing: a two-hour movie of 216,000 frames at
30 frames/s, initial delay 900 instants, IDEAL schedule (frame f, 0-based, sent every
w + f + 1 instants), one receiver joining at a random phase. Key of frame f is f + 1; a key
k lives in bucket msb(k XOR last) + 1 (bucket 0 = last), `last` being the last minimum
deleted. When the cache of C frames is full, the highest non-empty bucket in memory is
written to disk as one segment (one access). When the next frame to play lies in bucket
b > 0, bucket b is redistributed around it (the delete-min of a radix heap):

  read   (default) every segment of bucket b on disk is read back and its frames re-inserted
         (the heap cannot move frames it has not read); when memory fills meanwhile, the
         highest bucket is written again, so a frame may cycle once per level it descends;
  refile the segments stay on disk, re-filed under the bucket of their smallest key, and a
         segment is read only when its smallest frame is due (what vodbench's `radix-heap`
         does with `redistribute = "refile"`, its keys being known without reading the
         frames; its default, `read`, is the first reading).

Disk cost is eq. 3, t(n) = 10 ms + 2 ms * n per access, as a fraction of the playout time
(n + w) instants.

Usage: radix_model.py CACHE_FRAMES [SEED [read|refile [BLOCK]]]
(BLOCK: most frames per write, the most distant of the bucket first; default the whole bucket)
Used in README.md to tell what the paper's radix heap costs.
"""
import random
import sys

N, W = 216_000, 900
C = int(sys.argv[1])
random.seed(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
MODE = sys.argv[3] if len(sys.argv) > 3 else "read"
assert MODE in ("read", "refile"), MODE
BLOCK = int(sys.argv[4]) if len(sys.argv) > 4 else 0  # 0: the whole bucket

t0 = random.randrange(1, 10**7)
arrivals = {}
for f in range(N):
    lam = W + f + 1
    arrivals.setdefault(-(-t0 // lam) * lam - t0, []).append(f)

NB = 20  # keys < 2^19
mem = [[] for _ in range(NB)]   # keys in memory, per bucket
disk = [[] for _ in range(NB)]  # segments on disk (lists of keys), per bucket
seg_of = {}                     # refile: key -> its segment (list), while on disk
last = 0
nmem = 0
io_ms = accesses = written = 0
times = {}
direct = set()


def bucket(k):
    return (k ^ last).bit_length()


def spill():
    """Write the highest non-empty bucket in memory (never bucket 0) as one segment."""
    global nmem, io_ms, accesses, written
    for b in range(NB - 1, 0, -1):
        if mem[b]:
            seg, mem[b] = mem[b], []
            if BLOCK and len(seg) > BLOCK:  # its most distant frames only
                seg.sort()
                seg, mem[b] = seg[-BLOCK:], seg[:-BLOCK]
            nmem -= len(seg)
            io_ms += 10 + 2 * len(seg)
            accesses += 1
            written += len(seg)
            for k in seg:
                times[k] = times.get(k, 0) + 1
                seg_of[k] = seg
            disk[bucket(min(seg)) if MODE == "refile" else b].append(seg)
            return True
    return False


def insert(k):
    global nmem
    while nmem >= C and spill():
        pass
    mem[bucket(k)].append(k)
    nmem += 1


def read(seg):
    global io_ms, accesses
    io_ms += 10 + 2 * len(seg)
    accesses += 1
    for x in seg:
        del seg_of[x]
    for x in seg:
        insert(x)


for r in range(N + W):
    play = r - W
    for f in arrivals.get(r, ()):
        if f == play:
            direct.add(f)  # arrives in its own playout instant: straight to the display
            continue
        insert(f + 1)
    if play < 0 or play in direct:
        continue
    k = play + 1
    if MODE == "refile" and k in seg_of:
        # its segment comes back whole, after room is made for all of it
        seg = seg_of[k]
        b = bucket(min(seg))
        disk[b] = [s for s in disk[b] if s is not seg]
        while nmem + len(seg) > C and spill():
            pass
        io_ms += 10 + 2 * len(seg)
        accesses += 1
        for x in seg:
            del seg_of[x]
            mem[bucket(x)].append(x)
            nmem += 1
    b = bucket(k)
    if b > 0:  # delete-min: redistribute bucket b around k
        old, segs = mem[b], disk[b]
        mem[b], disk[b] = [], []
        last = k
        nmem -= len(old)
        for x in old:
            mem[bucket(x)].append(x)
            nmem += 1
        for seg in segs:
            if MODE == "read":
                read(seg)
            else:
                disk[bucket(min(seg))].append(seg)
    mem[0].remove(k)
    nmem -= 1

spilled = len(times)
print(
    f"C={C} mode={MODE} io_time_ratio={io_ms / 1000 / ((N + W) / 30):.4f} "
    f"accesses={accesses} frames_written={written} spilled={spilled} "
    f"written_per_spilled={written / max(spilled, 1):.2f}"
)
