//! The Max-Min B-tree (PACE §III.E.1, Fig. 4): a forwarder's flows sorted by demand per
//! weight `d/w`, every subtree carrying the sums of its demands and weights, so that the
//! weighted max-min allocation is found by walking allocation level pointers instead of
//! running progressive filling over every flow.
//!
//! It is a B+ tree: entries sit in leaves in key order, every internal node holds up to
//! [`FANOUT`] children with, per child, its count, demand sum, weight sum and largest entry.
//! Insert and remove are O(FANOUT · log n); a node is split when it overflows and merged with
//! (or refilled from) a sibling when it falls below half. The key order is exact: `d1/w1` is
//! compared with `d2/w2` as `d1·w2` against `d2·w1` in 128 bits, ties broken by id.
//!
//! ## Allocation level pointers (eqs. 1–4)
//!
//! With C0 the capacity, D_i and W_i the sums of demands and weights of the first i flows in
//! key order, and k_{j−1} the flows left of the previous pointer, level j has
//!
//! * w_j = W_n − W_{k_{j−1}} (eq. 1), C_j = r_{j−1} (eq. 2, C_0 = C0),
//! * a_{w,j} = C_j / w_j + a_{w,j−1} (eq. 3), which telescopes to
//!   (C0 − D_{k_{j−1}}) / (W_n − W_{k_{j−1}}): it is kept as that exact fraction,
//! * k_j = the flows with d/w ≤ a_{w,j} (one descent of the tree, whole subtrees added from
//!   their sums), and
//! * r_j = a_{w,j}·(W_{k_j} − W_{k_{j−1}}) − (D_{k_j} − D_{k_{j−1}}) (eq. 4): what the flows
//!   newly satisfied at level j leave of their per-weight share. The paper prints
//!   `min{0, …}`, which would make every remainder zero or negative; the term is ≥ 0 by the
//!   choice of k_j, and `max{0, …}` (a clamp that never acts in exact arithmetic) is meant.
//!
//! The walk stops when a level satisfies no new flow (then r_L = 0: the unsatisfied flows
//! share everything left, a_w = a_{w,L}) or every flow is satisfied (w_{L+1} = 0; then
//! r = C0 − D_n is capacity nobody asked for). Each level costs one descent, O(L · log n) in
//! all. Demands above C0 are clamped to C0 by the caller: no flow can be given more, so the
//! allocation is unchanged, and the sums stay within 64 bits.

use std::cmp::Ordering;

/// Most entries of a leaf and most children of an internal node.
pub const FANOUT: usize = 16;
const MIN_FILL: usize = FANOUT / 2;

/// One flow in the tree: its normalized demand, its weight, and an id unique in this tree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    pub demand: u64,
    pub weight: u64,
    pub id: u32,
}

impl Entry {
    /// Demand per weight, then id: `d1/w1 < d2/w2` ⇔ `d1·w2 < d2·w1` (weights are > 0).
    pub fn key_cmp(&self, o: &Entry) -> Ordering {
        let l = self.demand as u128 * o.weight as u128;
        let r = o.demand as u128 * self.weight as u128;
        l.cmp(&r).then(self.id.cmp(&o.id))
    }

    /// Whether the flow is satisfied by `num/den` per weight: `d/w ≤ num/den`.
    #[inline]
    fn within(&self, num: u64, den: u64) -> bool {
        self.demand as u128 * den as u128 <= num as u128 * self.weight as u128
    }
}

/// Count, demand sum and weight sum of a set of entries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sums {
    pub count: u64,
    pub demand: u64,
    pub weight: u64,
}

impl Sums {
    fn add(&mut self, o: Sums) {
        self.count += o.count;
        self.demand += o.demand;
        self.weight += o.weight;
    }

    fn of(e: &Entry) -> Sums {
        Sums {
            count: 1,
            demand: e.demand,
            weight: e.weight,
        }
    }
}

/// One allocation level pointer k_j (see the module doc).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Level {
    /// Flows left of the pointer (satisfied at this level or before).
    pub k: u64,
    /// a_{w,j} = `aw_num / aw_den`.
    pub aw_num: u64,
    pub aw_den: u64,
}

/// The output of the offline computation: the allocation per weight a_w = `aw_num / aw_den`
/// and the remainder r (both in the units of C0), and how many levels it took.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Allocation {
    pub aw_num: u64,
    pub aw_den: u64,
    pub remainder: u64,
    pub levels: usize,
}

impl Allocation {
    /// The max-min allocation of a flow with demand `d` and weight `w`: `d` if satisfied,
    /// else `w·a_w`, as the fraction (numerator, denominator).
    pub fn of(&self, d: u64, w: u64) -> (u128, u128) {
        if (d as u128) * (self.aw_den as u128) <= (w as u128) * (self.aw_num as u128) {
            (d as u128, 1)
        } else {
            (w as u128 * self.aw_num as u128, self.aw_den as u128)
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Child {
    node: u32,
    sums: Sums,
    /// The largest entry of the child's subtree.
    max: Entry,
}

#[derive(Default)]
struct Node {
    leaf: bool,
    entries: Vec<Entry>,
    children: Vec<Child>,
}

impl Node {
    fn len(&self) -> usize {
        if self.leaf {
            self.entries.len()
        } else {
            self.children.len()
        }
    }
}

/// The Max-Min B-tree of one forwarder port.
pub struct MaxMinTree {
    nodes: Vec<Node>,
    free: Vec<u32>,
    root: u32,
    total: Sums,
}

impl Default for MaxMinTree {
    fn default() -> Self {
        MaxMinTree::new()
    }
}

impl MaxMinTree {
    pub fn new() -> MaxMinTree {
        MaxMinTree {
            nodes: vec![Node {
                leaf: true,
                ..Node::default()
            }],
            free: Vec::new(),
            root: 0,
            total: Sums::default(),
        }
    }

    /// Count, demand sum and weight sum of every entry.
    pub fn totals(&self) -> Sums {
        self.total
    }

    pub fn is_empty(&self) -> bool {
        self.total.count == 0
    }

    /// Levels from the root to the leaves (1 for a lone leaf).
    pub fn height(&self) -> usize {
        let mut h = 1;
        let mut n = self.root;
        while !self.nodes[n as usize].leaf {
            n = self.nodes[n as usize].children[0].node;
            h += 1;
        }
        h
    }

    pub fn insert(&mut self, e: Entry) {
        if let Some(right) = self.insert_at(self.root, e) {
            let left = self.summary(self.root);
            let root = self.alloc_node(false);
            self.nodes[root as usize].children.extend([left, right]);
            self.root = root;
        }
        self.total.add(Sums::of(&e));
    }

    /// Removes `e` (the exact entry inserted); false if it is not in the tree.
    pub fn remove(&mut self, e: &Entry) -> bool {
        if !self.remove_at(self.root, e) {
            return false;
        }
        let r = &self.nodes[self.root as usize];
        if !r.leaf && r.children.len() == 1 {
            let only = r.children[0].node;
            self.release_node(self.root);
            self.root = only;
        }
        self.total.count -= 1;
        self.total.demand -= e.demand;
        self.total.weight -= e.weight;
        true
    }

    /// The entries in key order (for tests and diagnostics; allocates).
    pub fn entries(&self) -> Vec<Entry> {
        let mut out = Vec::with_capacity(self.total.count as usize);
        self.collect(self.root, &mut out);
        out
    }

    /// Sums of the entries satisfied by `num/den` per weight (`d·den ≤ num·w`): a prefix in
    /// key order, found in one descent.
    pub fn satisfied(&self, num: u64, den: u64) -> Sums {
        let mut acc = Sums::default();
        let mut n = self.root;
        'descend: loop {
            let node = &self.nodes[n as usize];
            if node.leaf {
                for e in &node.entries {
                    if !e.within(num, den) {
                        break;
                    }
                    acc.add(Sums::of(e));
                }
                return acc;
            }
            for c in &node.children {
                if c.max.within(num, den) {
                    acc.add(c.sums);
                } else {
                    n = c.node;
                    continue 'descend;
                }
            }
            return acc;
        }
    }

    /// The weighted max-min allocation of capacity `c0` among the entries, by allocation
    /// level pointers (eqs. 1–4, module doc); the pointers are left in `levels`.
    pub fn allocate(&self, c0: u64, levels: &mut Vec<Level>) -> Allocation {
        levels.clear();
        let total = self.total;
        if total.count == 0 {
            return Allocation {
                aw_num: c0,
                aw_den: 1,
                remainder: c0,
                levels: 0,
            };
        }
        let mut prev = Sums::default();
        loop {
            // eq. (1) and the telescoped eqs. (2)–(3)
            let w_j = total.weight - prev.weight;
            let num = c0.saturating_sub(prev.demand);
            let sat = self.satisfied(num, w_j);
            levels.push(Level {
                k: sat.count,
                aw_num: num,
                aw_den: w_j,
            });
            if sat.count == total.count {
                // w_{L+1} = 0: every flow satisfied, the rest of C0 is unclaimed.
                return Allocation {
                    aw_num: num,
                    aw_den: w_j,
                    remainder: c0.saturating_sub(total.demand),
                    levels: levels.len(),
                };
            }
            if sat.count == prev.count {
                // r_L = 0: the unsatisfied flows share what is left.
                return Allocation {
                    aw_num: num,
                    aw_den: w_j,
                    remainder: 0,
                    levels: levels.len(),
                };
            }
            prev = sat;
        }
    }

    // ------------------------------------------------------------------ tree mechanics

    fn alloc_node(&mut self, leaf: bool) -> u32 {
        match self.free.pop() {
            Some(i) => {
                let n = &mut self.nodes[i as usize];
                n.leaf = leaf;
                n.entries.clear();
                n.children.clear();
                i
            }
            None => {
                self.nodes.push(Node {
                    leaf,
                    entries: Vec::with_capacity(if leaf { FANOUT + 1 } else { 0 }),
                    children: Vec::with_capacity(if leaf { 0 } else { FANOUT + 1 }),
                });
                self.nodes.len() as u32 - 1
            }
        }
    }

    fn release_node(&mut self, n: u32) {
        self.free.push(n);
    }

    /// The child record of node `n`: its sums and largest entry (O(FANOUT)).
    fn summary(&self, n: u32) -> Child {
        let node = &self.nodes[n as usize];
        let mut sums = Sums::default();
        let max = if node.leaf {
            node.entries.iter().for_each(|e| sums.add(Sums::of(e)));
            node.entries.last().copied().unwrap_or_default()
        } else {
            node.children.iter().for_each(|c| sums.add(c.sums));
            node.children.last().map(|c| c.max).unwrap_or_default()
        };
        Child { node: n, sums, max }
    }

    fn refresh(&mut self, parent: u32, i: usize) {
        let c = self.nodes[parent as usize].children[i].node;
        self.nodes[parent as usize].children[i] = self.summary(c);
    }

    /// The child of internal node `n` whose key range holds `e`: the first whose largest
    /// entry is ≥ e, else the last.
    fn child_for(&self, n: u32, e: &Entry) -> usize {
        let ch = &self.nodes[n as usize].children;
        ch.iter()
            .position(|c| c.max.key_cmp(e) != Ordering::Less)
            .unwrap_or(ch.len() - 1)
    }

    /// Inserts below `n`; returns the new right sibling if `n` split.
    fn insert_at(&mut self, n: u32, e: Entry) -> Option<Child> {
        if self.nodes[n as usize].leaf {
            let entries = &mut self.nodes[n as usize].entries;
            let at = entries.partition_point(|x| x.key_cmp(&e) == Ordering::Less);
            entries.insert(at, e);
            return (entries.len() > FANOUT).then(|| self.split(n));
        }
        let i = self.child_for(n, &e);
        let c = self.nodes[n as usize].children[i].node;
        let split = self.insert_at(c, e);
        self.refresh(n, i);
        let right = split?;
        let children = &mut self.nodes[n as usize].children;
        children.insert(i + 1, right);
        (children.len() > FANOUT).then(|| self.split(n))
    }

    /// Moves the upper half of `n` into a new node and returns that node's record.
    fn split(&mut self, n: u32) -> Child {
        let leaf = self.nodes[n as usize].leaf;
        let right = self.alloc_node(leaf);
        let (a, b) = pair_mut(&mut self.nodes, n as usize, right as usize);
        if leaf {
            let half = a.entries.len() / 2;
            b.entries.extend(a.entries.drain(half..));
        } else {
            let half = a.children.len() / 2;
            b.children.extend(a.children.drain(half..));
        }
        self.summary(right)
    }

    fn remove_at(&mut self, n: u32, e: &Entry) -> bool {
        if self.nodes[n as usize].leaf {
            let entries = &mut self.nodes[n as usize].entries;
            return match entries.binary_search_by(|x| x.key_cmp(e)) {
                Ok(at) if entries[at] == *e => {
                    entries.remove(at);
                    true
                }
                _ => false,
            };
        }
        let i = self.child_for(n, e);
        let c = self.nodes[n as usize].children[i].node;
        if !self.remove_at(c, e) {
            return false;
        }
        self.refresh(n, i);
        if self.nodes[c as usize].len() < MIN_FILL {
            self.fix_underflow(n, i);
        }
        true
    }

    /// Child `i` of `parent` is less than half full: merge it with a neighbour when both fit
    /// in one node, else share their items evenly.
    fn fix_underflow(&mut self, parent: u32, i: usize) {
        let count = self.nodes[parent as usize].children.len();
        if count < 2 {
            return; // the root's only child: the root collapses onto it
        }
        let (l, r) = if i > 0 { (i - 1, i) } else { (i, i + 1) };
        let ln = self.nodes[parent as usize].children[l].node;
        let rn = self.nodes[parent as usize].children[r].node;
        let (a, b) = pair_mut(&mut self.nodes, ln as usize, rn as usize);
        if a.len() + b.len() <= FANOUT {
            a.entries.append(&mut b.entries);
            a.children.append(&mut b.children);
            self.nodes[parent as usize].children.remove(r);
            self.release_node(rn);
            self.refresh(parent, l);
        } else {
            let half = (a.len() + b.len()) / 2;
            if a.leaf {
                a.entries.append(&mut b.entries);
                b.entries.extend(a.entries.drain(half..));
            } else {
                a.children.append(&mut b.children);
                b.children.extend(a.children.drain(half..));
            }
            self.refresh(parent, l);
            self.refresh(parent, r);
        }
    }

    fn collect(&self, n: u32, out: &mut Vec<Entry>) {
        let node = &self.nodes[n as usize];
        if node.leaf {
            out.extend_from_slice(&node.entries);
        } else {
            for c in &node.children {
                self.collect(c.node, out);
            }
        }
    }

    /// Checks the invariants (tests): key order, fill, sums and largest entries.
    #[cfg(test)]
    pub(super) fn check(&self) {
        let entries = self.entries();
        assert!(entries
            .windows(2)
            .all(|w| w[0].key_cmp(&w[1]) == Ordering::Less));
        let s = self.check_node(self.root, true);
        assert_eq!(s, self.total);
    }

    #[cfg(test)]
    fn check_node(&self, n: u32, root: bool) -> Sums {
        let node = &self.nodes[n as usize];
        assert!(node.len() <= FANOUT);
        assert!(root || node.len() >= MIN_FILL, "underfull node");
        if node.leaf {
            let mut s = Sums::default();
            node.entries.iter().for_each(|e| s.add(Sums::of(e)));
            return s;
        }
        assert!(!root || node.children.len() >= 2);
        let mut s = Sums::default();
        for c in &node.children {
            let sub = self.check_node(c.node, false);
            assert_eq!(sub, c.sums);
            assert_eq!(c.max, self.summary(c.node).max);
            s.add(sub);
        }
        s
    }
}

/// Two distinct elements of a slice, mutably.
fn pair_mut<T>(v: &mut [T], a: usize, b: usize) -> (&mut T, &mut T) {
    assert_ne!(a, b);
    if a < b {
        let (x, y) = v.split_at_mut(b);
        (&mut x[a], &mut y[0])
    } else {
        let (x, y) = v.split_at_mut(a);
        (&mut y[0], &mut x[b])
    }
}
