"""LRU-K page replacement (O'Neil, O'Neil & Weikum, SIGMOD '93) in Python, and plain LRU.

LRU-K evicts the unpinned page whose K-th most recent reference is oldest; pages referenced
fewer than K times go first, least recently referenced first. `k` is a parameter
(`[buffer_pool] name = "py-lru-k"`, `k = 2`)."""

import heapq
from collections import OrderedDict

import vodbench


@vodbench.plugin(
    "buffer-pool",
    name="py-lru-k",
    schema={
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "k": {"type": "integer", "minimum": 1, "maximum": 8, "default": 2,
                  "description": "references remembered per page"},
        },
    },
)
class LruK:
    """LRU-K page replacement (Python)"""

    def __init__(self, params, ctx):
        self.k = params["k"]
        self.clock = 0
        self.history = {}   # page -> its last k reference times, oldest first
        self.held = set()
        self.pinned = set()
        self.heap = []      # (k-th reference time or -1, last reference, page), lazily cleaned

    def _key(self, page):
        h = self.history[page]
        return (h[0] if len(h) == self.k else -1, h[-1], page)

    def release(self, page, referenced):
        self.pinned.discard(page)
        if referenced or page not in self.history:
            self.clock += 1
            h = self.history.setdefault(page, [])
            h.append(self.clock)
            if len(h) > self.k:
                del h[0]
        self.held.add(page)
        heapq.heappush(self.heap, self._key(page))

    def acquire(self, page):
        self.pinned.add(page)

    def evict(self):
        skipped = []
        found = None
        while self.heap:
            entry = heapq.heappop(self.heap)
            page = entry[2]
            if page not in self.held or entry != self._key(page):
                continue  # stale
            if page in self.pinned:
                skipped.append(entry)
                continue
            found = page
            break
        for e in skipped:
            heapq.heappush(self.heap, e)
        if found is not None:
            self.held.discard(found)
            del self.history[found]
        return found


@vodbench.plugin("buffer-pool", name="py-lru")
class Lru:
    """least recently used page replacement (Python)"""

    def __init__(self, params, ctx):
        self.order = OrderedDict()
        self.pinned = set()

    def release(self, page, referenced):
        self.pinned.discard(page)
        self.order[page] = None
        self.order.move_to_end(page)

    def acquire(self, page):
        self.pinned.add(page)

    def evict(self):
        if not self.pinned:
            if self.order:
                return self.order.popitem(last=False)[0]
            return None
        for page in self.order:
            if page not in self.pinned:
                del self.order[page]
                return page
        return None
