//! A FIFO ring buffer for link pipes. `VecDeque` would do, but its index arithmetic wraps with a
//! branch; here the capacity is a power of two and a slot is `(head + i) & mask`, which matters
//! on the per-packet path (every hop pushes, settles and pops a pipe entry).

#[derive(Clone, Debug)]
pub struct Ring<T> {
    /// Empty, or a power-of-two number of slots; `len` of them, from `head` on, are live.
    buf: Vec<T>,
    /// `buf.len() - 1` (0 while empty), kept so that a slot needs no load of the length.
    mask: usize,
    head: usize,
    len: usize,
}

impl<T> Default for Ring<T> {
    fn default() -> Self {
        Ring {
            buf: Vec::new(),
            mask: 0,
            head: 0,
            len: 0,
        }
    }
}

impl<T: Copy> Ring<T> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    fn slot(&self, i: usize) -> usize {
        (self.head + i) & self.mask
    }

    /// The `i`-th entry from the front.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&T> {
        (i < self.len).then(|| &self.buf[self.slot(i)])
    }

    pub fn front(&self) -> Option<&T> {
        self.get(0)
    }

    pub fn back(&self) -> Option<&T> {
        self.len.checked_sub(1).and_then(|i| self.get(i))
    }

    #[inline]
    pub fn push_back(&mut self, value: T) {
        if self.len == self.buf.len() {
            self.grow(value);
        }
        let s = self.slot(self.len);
        self.buf[s] = value;
        self.len += 1;
    }

    #[inline]
    pub fn pop_front(&mut self) -> Option<T> {
        let v = *self.front()?;
        self.head = (self.head + 1) & self.mask;
        self.len -= 1;
        Some(v)
    }

    /// Keeps the first `n` entries.
    pub fn truncate(&mut self, n: usize) {
        self.len = self.len.min(n);
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        (0..self.len).map(|i| &self.buf[self.slot(i)])
    }

    /// Doubles the slots (at least 8), keeping the entries in order from slot 0.
    #[cold]
    fn grow(&mut self, filler: T) {
        let mut buf = Vec::with_capacity((self.buf.len() * 2).max(8));
        buf.extend(self.iter().copied());
        buf.resize(buf.capacity(), filler);
        self.buf = buf;
        self.mask = self.buf.len() - 1;
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    #[test]
    fn behaves_like_a_vecdeque_across_wraps_and_growth() {
        let mut ring = Ring::default();
        let mut model = VecDeque::new();
        let mut x = 7u64;
        for step in 0..5000u32 {
            x = crate::rng::mix(x);
            if !x.is_multiple_of(3) {
                ring.push_back(step);
                model.push_back(step);
            } else {
                assert_eq!(ring.pop_front(), model.pop_front());
            }
            assert_eq!(ring.len(), model.len());
            assert_eq!(ring.front(), model.front());
            assert_eq!(ring.back(), model.back());
            let i = (x >> 8) as usize % (model.len() + 1);
            assert_eq!(ring.get(i), model.get(i));
        }
        assert!(ring.iter().eq(model.iter()));
        ring.truncate(3);
        model.truncate(3);
        assert!(ring.iter().eq(model.iter()));
    }
}
