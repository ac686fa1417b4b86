//! Lanes and their sets, the vocabulary every layer shares: a subgroup's lane mask (raw, as
//! the executor keeps it, and as the views' `LaneMask`), the sizes the simulator takes.

use std::fmt;

/// A set of lanes of one subgroup (subgroups have at most 128 lanes).
pub type Mask = u128;

/// Largest workgroup the simulator takes whatever the limit says: lane masks and invocation
/// indices stay well inside their integer types.
pub const HARD_MAX_INVOCATIONS: u32 = 1 << 20;

/// Subgroup sizes the simulator takes: powers of two from 4 to 128 (Vulkan's range).
pub fn valid_subgroup_size(s: u32) -> bool {
    (4..=128).contains(&s) && s.is_power_of_two()
}

/// A set of lanes of one subgroup (subgroups have at most 128 lanes): bit `l` is lane `l`.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LaneMask(pub u128);

impl LaneMask {
    /// No lanes.
    pub const EMPTY: Self = Self(0);

    /// The first `n` lanes (all 128 from 128 on).
    pub fn first(n: u32) -> Self {
        Self(if n >= 128 {
            u128::MAX
        } else {
            (1u128 << n) - 1
        })
    }

    /// Lane `lane` alone (no lanes from 128 on).
    pub fn single(lane: u32) -> Self {
        Self(1u128.checked_shl(lane).unwrap_or(0))
    }

    /// Whether lane `lane` is in the set.
    pub fn contains(self, lane: u32) -> bool {
        lane < 128 && self.0 >> lane & 1 == 1
    }

    /// How many lanes are in the set.
    pub fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the set has no lanes.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The lowest lane, if any.
    pub fn lowest(self) -> Option<u32> {
        (self.0 != 0).then(|| self.0.trailing_zeros())
    }

    /// The lanes, lowest first.
    pub fn iter(self) -> impl Iterator<Item = u32> {
        let mut m = self.0;
        std::iter::from_fn(move || {
            (m != 0).then(|| {
                let l = m.trailing_zeros();
                m &= m - 1;
                l
            })
        })
    }

    /// The lanes as a list.
    pub fn to_vec(self) -> Vec<u32> {
        self.iter().collect()
    }

    /// The lanes as `0-3,8,10-11`.
    pub fn ranges(self) -> String {
        index_ranges(&self.to_vec(), ",")
    }
}

/// Indices (in any order, repeats allowed) as runs: `0-3,8,10-11` with `sep` = `","`.
pub fn index_ranges(v: &[u32], sep: &str) -> String {
    let mut v = v.to_vec();
    v.sort_unstable();
    v.dedup();
    let mut out = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        out.push(if i == j {
            v[i].to_string()
        } else {
            format!("{}-{}", v[i], v[j])
        });
        i = j + 1;
    }
    out.join(sep)
}

impl FromIterator<u32> for LaneMask {
    fn from_iter<I: IntoIterator<Item = u32>>(it: I) -> Self {
        Self(
            it.into_iter()
                .filter(|l| *l < 128)
                .fold(0, |m, l| m | 1 << l),
        )
    }
}

impl std::ops::BitOr for LaneMask {
    type Output = Self;
    fn bitor(self, o: Self) -> Self {
        Self(self.0 | o.0)
    }
}

impl std::ops::BitAnd for LaneMask {
    type Output = Self;
    fn bitand(self, o: Self) -> Self {
        Self(self.0 & o.0)
    }
}

impl std::ops::Not for LaneMask {
    type Output = Self;
    fn not(self) -> Self {
        Self(!self.0)
    }
}

impl fmt::Debug for LaneMask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LaneMask({:#x})", self.0)
    }
}
