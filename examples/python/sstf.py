"""Shortest seek time first, in Python: the same choices as the Rust example
(examples/sstf-plugin): the queued request nearest the head's cylinder, the lower cylinder
on a tie, first come first served within a cylinder."""

from bisect import bisect_left, insort
from collections import deque

import vodbench


@vodbench.plugin("disk-scheduler", name="py-sstf")
class Sstf:
    """shortest seek time first (Python)"""

    def __init__(self, params, ctx):
        self.by_cylinder = {}   # cylinder -> deque of request ids, in arrival order
        self.cylinders = []     # the cylinders with requests, sorted
        self.count = 0

    def enqueue(self, request):
        c = request.cylinder
        q = self.by_cylinder.get(c)
        if q is None:
            q = self.by_cylinder[c] = deque()
            insort(self.cylinders, c)
        q.append(request.id)
        self.count += 1

    def dequeue(self, head):
        cylinders = self.cylinders
        if not cylinders:
            return None
        h = head.cylinder
        i = bisect_left(cylinders, h)
        if i == len(cylinders):
            i -= 1
        elif i > 0 and h - cylinders[i - 1] <= cylinders[i] - h:
            i -= 1
        c = cylinders[i]
        q = self.by_cylinder[c]
        rid = q.popleft()
        if not q:
            del self.by_cylinder[c]
            del cylinders[i]
        self.count -= 1
        return rid

    def len(self):
        return self.count
