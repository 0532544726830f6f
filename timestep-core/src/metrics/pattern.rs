//! The update pattern (`1111211110…`): updates shown per refresh, the first
//! [`PATTERN_PREFIX_LEN`] digits of a run and the last [`RECENT_LEN`], in
//! fixed arrays.

use super::{PATTERN_PREFIX_LEN, RECENT_LEN};

/// Pattern digits: the first [`PATTERN_PREFIX_LEN`] and a ring of the last [`RECENT_LEN`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PatternLog {
    prefix: [u8; PATTERN_PREFIX_LEN],
    prefix_len: usize,
    recent: [u8; RECENT_LEN],
    recent_next: usize,
    recent_len: usize,
}

impl PatternLog {
    pub(crate) const fn new() -> PatternLog {
        PatternLog {
            prefix: [0; PATTERN_PREFIX_LEN],
            prefix_len: 0,
            recent: [0; RECENT_LEN],
            recent_next: 0,
            recent_len: 0,
        }
    }

    fn digit(updates: u64) -> u8 {
        match u8::try_from(updates) {
            Ok(d) if d < 10 => b'0' + d,
            _ => b'+',
        }
    }

    pub(crate) fn push(&mut self, updates: u64) {
        let c = Self::digit(updates);
        if self.prefix_len < PATTERN_PREFIX_LEN {
            self.prefix[self.prefix_len] = c;
            self.prefix_len += 1;
        }
        self.recent[self.recent_next] = c;
        self.recent_next = (self.recent_next + 1) % RECENT_LEN;
        self.recent_len = (self.recent_len + 1).min(RECENT_LEN);
    }

    /// Pushes `count` zeros; only as many as the buffers can still show are
    /// written, so a 10-minute stall costs no more than a short one.
    pub(crate) fn push_zeros(&mut self, count: u64) {
        let room = (PATTERN_PREFIX_LEN - self.prefix_len) as u64;
        let visible = count.min(room.max(RECENT_LEN as u64));
        for _ in 0..visible {
            self.push(0);
        }
    }

    pub(crate) fn prefix(&self) -> &str {
        std::str::from_utf8(&self.prefix[..self.prefix_len]).unwrap_or("")
    }

    pub(crate) fn recent(&self) -> impl Iterator<Item = char> + '_ {
        let start = (self.recent_next + RECENT_LEN - self.recent_len) % RECENT_LEN;
        (0..self.recent_len).map(move |i| char::from(self.recent[(start + i) % RECENT_LEN]))
    }
}
