//! The bipartite graph of subflows and the directed links they cross.

use crate::net::PortIdx;

/// The subflows on each directed link, and each subflow's links: the bipartite graph the
/// policies work on (its "flows" are subflows: one per flow, but `subflows` per M-PDQ flow).
/// Removal is O(path length) through each hop's slot in its link's list.
#[derive(Default)]
pub struct LinkFlows {
    /// Per link: the active flows crossing it.
    pub(super) on: Vec<Vec<u32>>,
    /// Per flow: its links, as a range of `arena`.
    pub(super) range: Vec<(u32, u32)>,
    pub(super) arena: Vec<PortIdx>,
    /// Parallel to `arena`: where the flow sits in that hop's `on` list while active.
    pub(super) slot: Vec<u32>,
}

impl LinkFlows {
    pub fn flows_on(&self, l: u32) -> &[u32] {
        &self.on[l as usize]
    }

    pub fn path(&self, f: u32) -> &[PortIdx] {
        let (a, b) = self.range[f as usize];
        &self.arena[a as usize..b as usize]
    }

    /// A graph of flows 0, 1, … on these paths, none of them active (for tests).
    #[cfg(test)]
    pub(crate) fn with_paths(paths: &[&[PortIdx]]) -> LinkFlows {
        let mut net = LinkFlows::default();
        for path in paths {
            let start = net.arena.len() as u32;
            net.arena.extend_from_slice(path);
            net.range.push((start, net.arena.len() as u32));
        }
        let links = net.arena.iter().max().map_or(0, |&l| l as usize + 1);
        net.on = vec![Vec::new(); links];
        net.slot = vec![0; net.arena.len()];
        net
    }

    pub(super) fn insert(&mut self, f: u32) {
        let (a, b) = self.range[f as usize];
        for k in a as usize..b as usize {
            let l = self.arena[k] as usize;
            self.slot[k] = self.on[l].len() as u32;
            self.on[l].push(f);
        }
    }

    pub(super) fn remove(&mut self, f: u32) {
        let (a, b) = self.range[f as usize];
        for k in a as usize..b as usize {
            let l = self.arena[k] as usize;
            let s = self.slot[k] as usize;
            self.on[l].swap_remove(s);
            if let Some(&moved) = self.on[l].get(s) {
                // The flow that took the slot: find its hop on this link and update it.
                let (ma, mb) = self.range[moved as usize];
                for j in ma as usize..mb as usize {
                    if self.arena[j] as usize == l {
                        self.slot[j] = s as u32;
                    }
                }
            }
        }
    }
}
