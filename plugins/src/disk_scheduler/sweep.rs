//! The SCAN sweep shared by the schedulers that serve a *subset* of their queue in elevator
//! order (`gss` within a group, `real-time` within a priority class). Not a policy itself.
//!
//! The order is exactly [`elevator`](super::elevator)'s: sweeping up, the lowest cylinder at
//! or above the head; sweeping down, the highest cylinder at or below it; on one cylinder the
//! oldest request first; the sweep reverses when nothing of the subset lies ahead.

/// Sweep direction, kept between decisions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Sweep {
    /// Sweeping toward higher cylinders.
    pub upward: bool,
}

impl Default for Sweep {
    fn default() -> Self {
        Sweep { upward: true }
    }
}

impl Sweep {
    /// Of the candidates `(handle, cylinder, arrival sequence)`, the one SCAN serves next from
    /// `head`, reversing the sweep if none lies ahead; `None` only when there is no candidate.
    /// Two passes over `items`, no allocation.
    pub fn pick<I>(&mut self, head: u32, items: I) -> Option<usize>
    where
        I: Iterator<Item = (usize, u32, u64)> + Clone,
    {
        if let Some(i) = ahead(self.upward, head, items.clone()) {
            return Some(i);
        }
        let i = ahead(!self.upward, head, items)?;
        self.upward = !self.upward;
        Some(i)
    }
}

fn ahead<I: Iterator<Item = (usize, u32, u64)>>(
    upward: bool,
    head: u32,
    items: I,
) -> Option<usize> {
    let mut best: Option<(usize, u32, u64)> = None;
    for (i, c, s) in items {
        if (upward && c < head) || (!upward && c > head) {
            continue;
        }
        let better = match best {
            None => true,
            Some((_, bc, bs)) => {
                if upward {
                    (c, s) < (bc, bs)
                } else {
                    c > bc || (c == bc && s < bs)
                }
            }
        };
        if better {
            best = Some((i, c, s));
        }
    }
    best.map(|b| b.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_order_as_the_elevator() {
        // (handle, cylinder, seq): head at 40 going up: 50 (seq 0), 50 (seq 4), 70, then 30, 10
        let mut items = vec![(1, 50, 0), (2, 10, 1), (3, 70, 2), (4, 30, 3), (5, 50, 4)];
        let mut sweep = Sweep::default();
        let mut head = 40;
        let mut order = Vec::new();
        while let Some(pos) = sweep.pick(head, items.iter().enumerate().map(|(p, x)| (p, x.1, x.2)))
        {
            let (h, c, _) = items.remove(pos);
            head = c;
            order.push(h);
        }
        assert_eq!(order, vec![1, 5, 3, 4, 2]);
        assert!(!sweep.upward);
        assert_eq!(sweep.pick(0, std::iter::empty()), None);
    }
}
