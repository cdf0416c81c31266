//! Building a flow-level simulation: every flow's subflows, routes, ideal FCT and the
//! constant part of its completion time, computed destination by destination.

use super::{
    d3, incremental, maxmin, paths, priority, priority_repair, series, FlowSimulation, FlowState,
    FlowStats, LinkFlows, MaxMin, Policy, Status,
};
use crate::net::ideal::{BestPathsTo, IdealFct};
use crate::net::queue::Discipline;
use crate::net::{Network, PortIdx};
use crate::run::Prepared;
use crate::units::Time;
use std::collections::BinaryHeap;

impl FlowSimulation {
    pub fn new(p: Prepared) -> FlowSimulation {
        let Prepared {
            scenario,
            topo,
            transport,
            flows,
            load,
            memory,
            transport_keys: _,
            lb,
        } = p;
        let net = Network::build(&topo, Discipline::Fifo, &|_| None);
        let policy = Policy::of(&transport);
        let (mss, header) = transport.data_packet_sizes();
        let router = paths::Router::new(lb.kind, &net, scenario.seed);
        let mut graph = LinkFlows {
            on: vec![Vec::new(); net.ports.len()],
            ..LinkFlows::default()
        };
        // Subflows: one per flow but for M-PDQ; `first_sub[i]..first_sub[i + 1]` are flow i's.
        let mut first_sub = Vec::with_capacity(flows.len() + 1);
        first_sub.push(0u32);
        for spec in &flows {
            let n = transport.subflows_of(spec.size_bytes);
            first_sub.push(first_sub.last().expect("pushed") + n);
        }
        // Per flow, taken by destination (the nodes' best-path scores are computed once per
        // destination, and the routing rows towards it are read together): its ideal FCT
        // through the best path of the packet engine, its subflows' routes (into `routes`,
        // copied in flow order below) and the constant part of its completion time.
        let mut by_dst: Vec<u32> = (0..flows.len() as u32).collect();
        by_dst.sort_by_key(|&i| flows[i as usize].dst);
        let mut ideal = vec![Time::ZERO; flows.len()];
        let mut overhead = vec![Time::ZERO; flows.len()];
        let mut routed = vec![true; flows.len()];
        let mut routes: Vec<PortIdx> = Vec::new();
        let mut route_range = vec![(0u32, 0u32); *first_sub.last().expect("pushed") as usize];
        let mut best_path: Vec<PortIdx> = Vec::new();
        let mut fct = IdealFct::default();
        let mut best: Option<BestPathsTo> = None;
        for &i in &by_dst {
            let i = i as usize;
            let spec = &flows[i];
            let b = best.get_or_insert_with(|| BestPathsTo::new(&net, spec.dst));
            b.retarget(spec.dst);
            best_path.clear();
            b.append_from(spec.src, &mut best_path);
            ideal[i] = fct.of(&net, &best_path, spec.size_bytes, mss, header);
            // Every subflow on its own path (the packet sender's path keys); the flow's last
            // bit arrives by the slowest pipeline of them, each carrying an even share.
            let path_key = crate::rng::derive_u64(scenario.seed, "path_key", i as u64) as u32;
            let subs = first_sub[i]..first_sub[i + 1];
            let share = spec.size_bytes.div_ceil(subs.len() as u64);
            for (j, e) in subs.enumerate() {
                let key = transport.subflow_path_key(path_key, j as u32);
                let start = routes.len();
                routed[i] &= router.route(&net, spec.src, spec.dst, key, &mut routes);
                route_range[e as usize] = (start as u32, routes.len() as u32);
                let path = &routes[start..];
                let along = if share == spec.size_bytes && paths::same_hops(&net, path, &best_path)
                {
                    ideal[i] // as on the best path (always so on a fat-tree)
                } else {
                    fct.of(&net, path, share, mss, header)
                };
                let pipeline = paths::pipeline_overhead(&net, path, along, share, mss, header);
                overhead[i] = overhead[i].max(pipeline);
            }
        }
        let mut states = Vec::with_capacity(flows.len());
        let mut owner = Vec::with_capacity(route_range.len());
        let mut sub_deadline = Vec::with_capacity(route_range.len());
        for (i, spec) in flows.into_iter().enumerate() {
            for e in first_sub[i]..first_sub[i + 1] {
                let (a, b) = route_range[e as usize];
                let start = graph.arena.len() as u32;
                graph
                    .arena
                    .extend_from_slice(&routes[a as usize..b as usize]);
                graph.range.push((start, graph.arena.len() as u32));
                owner.push(i as u32);
                sub_deadline.push(spec.deadline.map_or(d3::NO_DEADLINE, |d| spec.start + d));
            }
            let first = graph.range[first_sub[i] as usize];
            let path = &graph.arena[first.0 as usize..first.1 as usize];
            let wire = paths::wire_bytes(spec.size_bytes, mss, header);
            states.push(FlowState {
                status: if routed[i] {
                    Status::Waiting
                } else {
                    Status::Unroutable
                },
                wire,
                remaining: wire as f64 * 8.0,
                rate: 0.0,
                last: spec.start,
                generation: 0,
                overhead: overhead[i],
                ideal_fct: ideal[i],
                nic_bps: path
                    .first()
                    .map_or(0.0, |&p| net.ports[p as usize].rate.bits_per_sec() as f64),
                spec,
            });
        }
        let n_subs = owner.len();
        graph.slot = vec![0; graph.arena.len()];
        let capacity: Vec<f64> = net
            .ports
            .iter()
            .map(|p| p.rate.bits_per_sec() as f64)
            .collect();
        let aging_rate = match policy {
            Policy::Pdq { aging_rate, .. } => aging_rate,
            _ => 0.0,
        };
        let n_links = net.ports.len();
        let n_flows = states.len();
        FlowSimulation {
            now: Time::ZERO,
            transport,
            policy,
            flows: states,
            first_sub,
            owner,
            sub_rate: vec![0.0; n_subs],
            sub_carried: vec![0.0; n_subs],
            sub_paused: vec![Time::ZERO; n_subs],
            sub_deadline,
            aging_rate,
            graph,
            capacity,
            heap: BinaryHeap::new(),
            next_arrival: 0,
            flows_done: 0,
            stop: scenario.stop_s.map(Time::from_secs_f64),
            abort_at_deadline: scenario.workload.abort_at_deadline.unwrap_or(false),
            events: 0,
            stats: FlowStats::default(),
            dirty: Vec::new(),
            arrived: Vec::new(),
            ended_level: f64::INFINITY,
            level_floor: 0.0,
            load: vec![0.0; n_links],
            full_recompute: false,
            budget_cost: [f64::INFINITY; 2],
            forced_budget: None,
            open: Vec::new(),
            notes: vec![incremental::LinkNotes::default(); n_links],
            problem: maxmin::Problem::default(),
            flow_mark: vec![0; n_subs],
            epoch: 0,
            active: Vec::new(),
            prune_at: 0,
            active_flows: 0,
            touched: Vec::new(),
            touch_mark: vec![0; n_flows],
            comp_links: Vec::new(),
            comp_flows: Vec::new(),
            local: vec![0; n_subs],
            rates: Vec::new(),
            order: Vec::new(),
            greedy: priority::Greedy::default(),
            merp_keys: Vec::new(),
            repair: if policy.repairs_its_pass() {
                priority_repair::PriorityRepair::new(n_subs, n_links, n_subs > n_flows)
            } else {
                priority_repair::PriorityRepair::default()
            },
            merp_table: Vec::new(),
            maxmin: MaxMin::default(),
            d3: d3::D3::default(),
            changed_links: Vec::new(),
            sampler: (scenario.output.series_interval_us > 0.0).then(|| {
                let iv = Time::from_us_f64(scenario.output.series_interval_us).max(Time(1));
                series::Sampler::new(iv, n_flows, &net, memory.series_room())
            }),
            write_paths: scenario.output.paths,
            memory,
            over_budget: None,
            port_bytes: vec![0; n_links],
            port_pkts: vec![0; n_links],
            name: scenario.name.clone(),
            seed: scenario.seed,
            offered: load,
            topology_name: topo.description.clone(),
            lb_name: scenario.routing.lb.clone(),
            net,
        }
    }
}
