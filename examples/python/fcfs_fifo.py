"""The built-in `fcfs` scheduler and `fifo` buffer pool, written in Python: a run that
chooses `py-fcfs` and `py-fifo` gives the same summary.json, byte for byte, as one that
chooses `fcfs` and `fifo` (python/tests/test_policies.py checks it)."""

from collections import deque

import vodbench


@vodbench.plugin("disk-scheduler", name="py-fcfs")
class Fcfs:
    """first come, first served (Python)"""

    def __init__(self, params, ctx):
        self.queue = deque()

    def enqueue(self, request):
        self.queue.append(request.id)

    def dequeue(self, head):
        return self.queue.popleft() if self.queue else None

    def len(self):
        return len(self.queue)


@vodbench.plugin("buffer-pool", name="py-fifo")
class Fifo:
    """first in, first out page replacement (Python)

    Pages in the order they were first released (a dict keeps insertion order); a page
    released again keeps its place; an acquired page is pinned until released; evict takes
    the first unpinned page from the head."""

    def __init__(self, params, ctx):
        self.order = {}
        self.pinned = set()

    def release(self, page, referenced):
        self.pinned.discard(page)
        if page not in self.order:
            self.order[page] = None

    def acquire(self, page):
        self.pinned.add(page)

    def evict(self):
        pinned = self.pinned
        for page in self.order:
            if page not in pinned:
                del self.order[page]
                return page
        return None
