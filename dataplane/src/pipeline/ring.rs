/// A FIFO on a power-of-two ring buffer. Every queue of the engine is one: a push or pop is a
/// masked index and a store, where `VecDeque` also pays for its general wrap-around handling.
/// The ring doubles when full (a cold path: capacities are sized from the configuration, so
/// in practice it never grows after the first cycles).
#[derive(Debug, Clone)]
pub(crate) struct Ring<T> {
    buf: Box<[T]>,
    /// `buf.len() - 1`.
    mask: usize,
    /// Free-running counts of elements taken and added (never wrap in practice: 2^64).
    head: usize,
    tail: usize,
}

impl<T: Copy + Default> Ring<T> {
    pub fn with_capacity(capacity: usize) -> Self {
        let cap = capacity.max(1).next_power_of_two();
        Ring { buf: vec![T::default(); cap].into_boxed_slice(), mask: cap - 1, head: 0, tail: 0 }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.tail - self.head
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.head == self.tail
    }

    #[inline]
    fn slot(&self, count: usize) -> usize {
        count & self.mask
    }

    #[inline]
    pub fn front(&self) -> Option<&T> {
        if self.is_empty() {
            None
        } else {
            self.buf.get(self.slot(self.head))
        }
    }

    #[inline]
    pub fn push_back(&mut self, value: T) {
        if self.len() > self.mask {
            self.grow();
        }
        let i = self.slot(self.tail);
        self.buf[i] = value;
        self.tail += 1;
    }

    /// Drops the front element, which the caller has just looked at with `front` (the
    /// emptiness and bounds checks were made there).
    #[inline]
    pub fn drop_front(&mut self) {
        debug_assert!(!self.is_empty());
        self.head += 1;
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.is_empty() {
            return None;
        }
        let value = self.buf[self.slot(self.head)];
        self.head += 1;
        Some(value)
    }

    #[inline]
    pub fn back(&self) -> Option<&T> {
        if self.is_empty() {
            None
        } else {
            self.buf.get(self.slot(self.tail - 1))
        }
    }

    #[inline]
    pub fn back_mut(&mut self) -> Option<&mut T> {
        if self.is_empty() {
            None
        } else {
            let i = self.slot(self.tail - 1);
            self.buf.get_mut(i)
        }
    }

    /// Puts `value` in behind the newest element for which `goes_after` does not hold: the
    /// elements behind that one move one place back, in one pass from the back. Returns the
    /// position `value` took, from the front. (A flushed FD passing the NTI on the direct path
    /// goes in ahead of the few FDs that pass it later.)
    pub fn insert_from_back(&mut self, value: T, mut goes_after: impl FnMut(&T) -> bool) -> usize {
        if self.len() > self.mask {
            self.grow();
        }
        let mut j = self.tail;
        while j > self.head {
            let before = self.buf[self.slot(j - 1)];
            if !goes_after(&before) {
                break;
            }
            let to = self.slot(j);
            self.buf[to] = before;
            j -= 1;
        }
        let i = self.slot(j);
        self.buf[i] = value;
        self.tail += 1;
        j - self.head
    }

    pub fn clear(&mut self) {
        self.head = self.tail;
    }

    /// Takes the newest element (cold: the direct path handing FDs back to the stages).
    pub fn pop_back(&mut self) -> Option<T> {
        let value = *self.back()?;
        self.tail -= 1;
        Some(value)
    }

    /// The `k`-th element from the front.
    pub fn get(&self, k: usize) -> Option<&T> {
        if k < self.len() {
            self.buf.get(self.slot(self.head + k))
        } else {
            None
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        (0..self.len()).filter_map(move |k| self.get(k))
    }

    /// Removes the `k`-th element, keeping the others in order (cold: the recycle staging
    /// queue when a flush epoch takes a staged FD).
    pub fn remove(&mut self, k: usize) -> Option<T> {
        let value = *self.get(k)?;
        for j in self.head + k..self.tail - 1 {
            let (to, from) = (self.slot(j), self.slot(j + 1));
            self.buf[to] = self.buf[from];
        }
        self.tail -= 1;
        Some(value)
    }

    /// Keeps the elements for which `keep` holds, in order, and hands the others to `out` in
    /// order.
    pub fn split_off_where(&mut self, mut keep: impl FnMut(&T) -> bool, mut out: impl FnMut(T)) {
        // In place: the kept elements move up behind each other (a pause splits a port's
        // whole queue this way twice).
        let mut kept = self.head;
        for j in self.head..self.tail {
            let value = self.buf[self.slot(j)];
            if keep(&value) {
                let to = self.slot(kept);
                self.buf[to] = value;
                kept += 1;
            } else {
                out(value);
            }
        }
        self.tail = kept;
    }

    #[cold]
    fn grow(&mut self) {
        let mut buf = vec![T::default(); self.buf.len() * 2].into_boxed_slice();
        for (k, slot) in buf.iter_mut().take(self.len()).enumerate() {
            *slot = self.buf[self.slot(self.head + k)];
        }
        self.buf = buf;
        self.mask = self.buf.len() - 1;
        self.tail -= self.head;
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::Ring;

    #[test]
    fn fifo_order_across_growth_and_wrap() {
        let mut r = Ring::with_capacity(3);
        let mut next_out = 0u32;
        for k in 0..100u32 {
            r.push_back(k);
            if k % 3 == 0 {
                assert_eq!(r.pop_front(), Some(next_out));
                next_out += 1;
            }
        }
        let rest: Vec<u32> = r.iter().copied().collect();
        assert_eq!(rest, (next_out..100).collect::<Vec<_>>());
    }

    #[test]
    fn remove_and_split_keep_order() {
        let mut r = Ring::with_capacity(4);
        for k in 0..4u32 {
            r.push_back(k);
        }
        r.pop_front();
        r.push_back(4); // wrapped
        assert_eq!(r.remove(1), Some(2));
        assert_eq!(r.iter().copied().collect::<Vec<_>>(), vec![1, 3, 4]);
        let mut out = Vec::new();
        r.split_off_where(|v| v % 2 == 1, |v| out.push(v));
        assert_eq!(r.iter().copied().collect::<Vec<_>>(), vec![1, 3]);
        assert_eq!(out, vec![4]);
        assert_eq!(r.get(1), Some(&3));
        assert_eq!(r.get(2), None);
        assert_eq!(r.insert_from_back(2, |&v| v > 2), 1);
        assert_eq!(r.insert_from_back(0, |_| true), 0);
        assert_eq!(r.insert_from_back(7, |_| false), 4);
        assert_eq!(r.iter().copied().collect::<Vec<_>>(), vec![0, 1, 2, 3, 7]);
        if let Some(v) = r.back_mut() {
            *v = 6;
        }
        assert_eq!(r.back(), Some(&6));
        r.clear();
        assert!(r.is_empty());
    }
}
