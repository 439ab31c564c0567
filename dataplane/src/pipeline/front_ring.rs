use super::ring::Ring;

/// A [`Ring`] that also keeps a copy of its front element beside its header: the MAC transmit
/// queue. A departure reads its frame's descriptor from the port, in the same load as the
/// port's other fields, instead of through the ring's buffer pointer and then the slot: one
/// dependent load less on the chain that leads from a due port to its frame's class. The copy
/// is refilled when the front is taken, off that chain (the port's next frame starts cycles
/// later).
#[derive(Debug, Clone)]
pub(crate) struct FrontRing<T> {
    /// The ring's front element while it has one (stale otherwise).
    front: T,
    ring: Ring<T>,
}

impl<T: Copy + Default> FrontRing<T> {
    pub fn with_capacity(capacity: usize) -> Self {
        FrontRing { front: T::default(), ring: Ring::with_capacity(capacity) }
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.ring.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.ring.is_empty()
    }

    #[inline]
    pub fn front(&self) -> Option<&T> {
        if self.ring.is_empty() {
            None
        } else {
            Some(&self.front)
        }
    }

    #[inline]
    pub fn push_back(&mut self, value: T) {
        if self.ring.is_empty() {
            self.front = value;
        }
        self.ring.push_back(value);
    }

    /// Drops the front element, which the caller has just looked at with `front`.
    #[inline]
    pub fn drop_front(&mut self) {
        self.ring.drop_front();
        if let Some(&next) = self.ring.front() {
            self.front = next;
        }
    }

    /// Takes the newest element.
    pub fn pop_back(&mut self) -> Option<T> {
        let value = self.ring.pop_back();
        self.refresh();
        value
    }

    /// The `k`-th element from the front.
    pub fn get(&self, k: usize) -> Option<&T> {
        self.ring.get(k)
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        self.ring.iter()
    }

    /// See [`Ring::insert_from_back`].
    pub fn insert_from_back(&mut self, value: T, goes_after: impl FnMut(&T) -> bool) -> usize {
        let k = self.ring.insert_from_back(value, goes_after);
        if k == 0 {
            self.front = value;
        }
        k
    }

    /// Keeps the elements for which `keep` holds, in order, and hands the others to `out` in
    /// order.
    pub fn split_off_where(&mut self, keep: impl FnMut(&T) -> bool, out: impl FnMut(T)) {
        self.ring.split_off_where(keep, out);
        self.refresh();
    }

    /// The copy of the front, after a change anywhere in the ring (cold paths).
    fn refresh(&mut self) {
        if let Some(&front) = self.ring.front() {
            self.front = front;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::FrontRing;
    use crate::sim::SimRng;
    use std::collections::VecDeque;

    /// Under random operations the ring holds what a `VecDeque` holds, and its front is the
    /// deque's front (growth and wrap-around included: the ring starts with room for 2).
    #[test]
    fn behaves_as_a_deque_with_its_front_kept() {
        let mut r = SimRng::new(11);
        let mut ring = FrontRing::with_capacity(2);
        let mut model = VecDeque::new();
        for step in 0..20_000u32 {
            match r.below(7) {
                0..=2 => {
                    ring.push_back(step);
                    model.push_back(step);
                }
                3 => {
                    if ring.front().is_some() {
                        ring.drop_front();
                        model.pop_front();
                    }
                }
                4 => assert_eq!(ring.pop_back(), model.pop_back()),
                5 => {
                    // Ahead of the elements above a random bound, from the back.
                    let bound = r.below(u64::from(step) + 1) as u32;
                    let k = model.iter().rposition(|&v| v <= bound).map_or(0, |i| i + 1);
                    assert_eq!(ring.insert_from_back(step, |&v| v > bound), k);
                    model.insert(k, step);
                }
                _ => {
                    let odd = step % 2;
                    let mut out = Vec::new();
                    ring.split_off_where(|v| v % 2 == odd, |v| out.push(v));
                    let gone: Vec<u32> = model.iter().copied().filter(|v| v % 2 != odd).collect();
                    model.retain(|v| v % 2 == odd);
                    assert_eq!(out, gone);
                }
            }
            assert_eq!(ring.front(), model.front(), "step {step}");
            assert_eq!(ring.len(), model.len());
            assert_eq!(ring.is_empty(), model.is_empty());
        }
        assert!(ring.iter().eq(model.iter()));
        assert_eq!(ring.get(0), model.front());
    }
}
