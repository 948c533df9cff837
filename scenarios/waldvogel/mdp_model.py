#!/usr/bin/env python3
"""MDP as the paper states it (Waldvogel et al. §V-B), independently of vodbench.

An instant-by-instant model with no disk timing: a two-hour movie of 216,000 frames at
30 frames/s, initial delay 900 instants, IDEAL schedule (frame f, 0-based, sent every
w + f + 1 instants), one receiver joining at a random phase. When the cache of C frames is
full, the kappa = 2.5 % of C highest-numbered cached frames (frames due within `pin`
instants excepted) are written as one chunk; when a frame on disk is due, its chunk is read
back whole (after making room the same way), exactly when it is due. Disk cost is eq. 3,
t(n) = 10 ms + 2 ms * n per access, as a fraction of the playout time (n + w) instants.

Usage: mdp_model.py CACHE_FRAMES [PIN_INSTANTS [SEED]]
Used in README.md to check that vodbench's `mdp` is not worse than the algorithm itself.
"""
import heapq
import random
import sys

N, W = 216_000, 900
C = int(sys.argv[1])
PIN = int(sys.argv[2]) if len(sys.argv) > 2 else 30
random.seed(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
KAPPA = max(1, int(C * 0.025))

t0 = random.randrange(1, 10**7)
arrivals = {}
for f in range(N):
    lam = W + f + 1
    arrivals.setdefault(-(-t0 // lam) * lam - t0, []).append(f)

in_mem, heap, chunk_of, chunks = set(), [], {}, []
io_ms = writes = frames_written = 0
times_written = {}


def evict(play):
    """Write the KAPPA most distant unpinned frames as one chunk; False if none."""
    global io_ms, writes, frames_written
    victims = []
    while heap and len(victims) < KAPPA:
        f = -heap[0]
        if f not in in_mem:
            heapq.heappop(heap)
            continue
        if f <= play + PIN:
            break
        heapq.heappop(heap)
        victims.append(f)
    if not victims:
        return False
    cid = len(chunks)
    chunks.append(victims)
    for f in victims:
        in_mem.discard(f)
        chunk_of[f] = cid
        times_written[f] = times_written.get(f, 0) + 1
    io_ms += 10 + 2 * len(victims)
    writes += 1
    frames_written += len(victims)
    return True


def insert(f):
    in_mem.add(f)
    heapq.heappush(heap, -f)


for r in range(N + W):
    play = r - W
    for f in arrivals.get(r, ()):
        if f == play:
            continue  # arrives in its own playout instant: straight to the display
        while len(in_mem) >= C and evict(max(play, 0)):
            pass
        insert(f)
    if play >= 0 and play not in in_mem and play in chunk_of:
        cid = chunk_of[play]
        back = [g for g in chunks[cid] if chunk_of.get(g) == cid]
        while len(in_mem) + len(back) > C and evict(play):
            pass
        io_ms += 10 + 2 * len(back)
        for g in back:
            del chunk_of[g]
            insert(g)
    in_mem.discard(play)

spilled = len(times_written)
cycled = sum(1 for v in times_written.values() if v > 1)
print(
    f"C={C} kappa={KAPPA} io_time_ratio={io_ms / 1000 / ((N + W) / 30):.4f} "
    f"writes={writes} frames_written={frames_written} spilled={spilled} "
    f"written_per_spilled={frames_written / spilled:.2f} cycled={cycled}"
)
