//! Storage of `f64` whose first element starts a cache line.
//!
//! Owns: [`CacheAligned`], a growable buffer of `f64` that derefs to a
//! slice starting on a 64-byte boundary, whatever alignment the allocator
//! gives. The packed right operand of a matrix product lives in one: the
//! product kernel loads it a whole 512-bit register (one cache line) at a
//! time, and a load that straddles two lines costs two. Measured on the
//! machine of issue 41 (an 80×128·128×128 product against a packed `B`):
//! 29.5 G multiply-adds a second with `B` on a line boundary against 24.5
//! one element off, whatever the alignment of `A` and `C`.
//!
//! Must not: move the elements when it is read (only [`CacheAligned::resize`]
//! and [`Clone`] allocate), or expose the slack before or after the slice.

use std::ops::{Deref, DerefMut};

/// Elements of `f64` per 64-byte cache line.
pub const LINE: usize = 8;

/// A buffer of `f64` whose slice starts on a 64-byte boundary (see the
/// module docs). Zero-filled when it grows.
#[derive(Default)]
pub struct CacheAligned {
    /// The allocation: `LINE - 1` elements of slack, so that an aligned
    /// start always exists within it.
    buf: Vec<f64>,
    /// Elements of `buf` before the aligned start.
    start: usize,
    /// Elements of the slice.
    len: usize,
}

impl CacheAligned {
    /// `len` zeros.
    pub fn zeros(len: usize) -> Self {
        let mut a = CacheAligned::default();
        a.resize(len);
        a
    }

    /// A copy of `values`, aligned.
    pub fn from_slice(values: &[f64]) -> Self {
        let mut a = CacheAligned::zeros(values.len());
        a.copy_from_slice(values);
        a
    }

    /// Makes the slice `len` elements long: the first `min(len, old len)`
    /// keep their values, new ones are zeros. May move the elements.
    pub fn resize(&mut self, len: usize) {
        if len + LINE - 1 > self.buf.len() {
            let mut buf = vec![0.0; len + LINE - 1];
            let start = aligned_start(&buf);
            let keep = self.len.min(len);
            buf[start..start + keep].copy_from_slice(&self[..keep]);
            (self.buf, self.start) = (buf, start);
        } else if len > self.len {
            let (s, old) = (self.start, self.len);
            self.buf[s + old..s + len].fill(0.0);
        }
        self.len = len;
    }
}

/// The elements of `buf` before its first element on a 64-byte boundary
/// (less than a line's; 0 when `buf` starts on one).
fn aligned_start(buf: &[f64]) -> usize {
    let misaligned = buf.as_ptr() as usize % (LINE * std::mem::size_of::<f64>());
    if misaligned == 0 {
        return 0;
    }
    (LINE * std::mem::size_of::<f64>() - misaligned) / std::mem::size_of::<f64>()
}

impl Deref for CacheAligned {
    type Target = [f64];
    fn deref(&self) -> &[f64] {
        &self.buf[self.start..self.start + self.len]
    }
}

impl DerefMut for CacheAligned {
    fn deref_mut(&mut self) -> &mut [f64] {
        &mut self.buf[self.start..self.start + self.len]
    }
}

impl Clone for CacheAligned {
    /// A new allocation, aligned on its own (a `Vec` clone would keep the
    /// offset, not the alignment).
    fn clone(&self) -> Self {
        CacheAligned::from_slice(self)
    }
}

impl std::fmt::Debug for CacheAligned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl From<Vec<f64>> for CacheAligned {
    fn from(v: Vec<f64>) -> Self {
        CacheAligned::from_slice(&v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on_a_line(s: &[f64]) -> bool {
        (s.as_ptr() as usize).is_multiple_of(64)
    }

    #[test]
    fn every_size_starts_on_a_line_and_keeps_its_values() {
        let mut a = CacheAligned::default();
        assert!(a.is_empty());
        for len in [1usize, 7, 8, 9, 100, 3, 1000, 0, 17] {
            let before: Vec<f64> = a.to_vec();
            a.resize(len);
            assert_eq!(a.len(), len);
            if len > 0 {
                assert!(on_a_line(&a), "len {len}");
            }
            let keep = before.len().min(len);
            assert_eq!(&a[..keep], &before[..keep], "len {len}");
            assert!(
                a[keep..].iter().all(|&x| x == 0.0),
                "len {len}: new ones are zeros"
            );
            for (i, x) in a.iter_mut().enumerate() {
                *x = (i + len) as f64;
            }
        }
        let b = a.clone();
        assert!(on_a_line(&b));
        assert_eq!(&b[..], &a[..]);
        let c = CacheAligned::from(vec![1.0, 2.0, 3.0]);
        assert!(on_a_line(&c));
        assert_eq!(&c[..], &[1.0, 2.0, 3.0]);
    }

    #[test]
    fn a_slice_that_shrinks_and_grows_again_reads_zeros() {
        let mut a = CacheAligned::from_slice(&[5.0; 16]);
        a.resize(4);
        a.resize(12);
        assert_eq!(&a[..4], &[5.0; 4]);
        assert_eq!(&a[4..], &[0.0; 8]);
    }
}
