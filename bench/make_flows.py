#!/usr/bin/env python3
"""Makes a flow list (CSV src,dst,size_bytes,start_s) for the benchmark scenarios.

Poisson arrivals over all hosts at a target load, sizes drawn from an empirical CDF with
linear interpolation (the convention of /work/shared/workloads/README.md: u ~ U(0,1), a size
that appears on two lines is a point mass), src uniform over hosts, dst uniform over the other
hosts. Aggregate arrival rate:

    lambda = load * hosts * link_rate / (8 * mean_size)      flows/s

with mean_size the linear-interpolation mean of the CDF (websearch: 1,665,831 B).

This is a stand-in: the benchmark proper feeds ns-3 the flow list that dcnsim itself generated
(compare.py does that), so both simulators see the very same flows.

    python3 bench/make_flows.py --out bench/out/fattree_flows.csv          # 2000 flows, 60 %
    python3 bench/make_flows.py --dumbbell --out bench/scenarios/dumbbell_flows.csv
"""
import argparse
import bisect
import os
import random
import sys

DEFAULT_CDF = "/work/shared/workloads/websearch.cdf"


def read_cdf(path):
    pts = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            x, c = line.split()
            pts.append((float(x), float(c)))
    if not pts or pts[-1][1] != 1.0:
        sys.exit(f"{path}: last cdf value must be 1")
    for (x0, c0), (x1, c1) in zip(pts, pts[1:]):
        if x1 < x0 or c1 < c0:
            sys.exit(f"{path}: sizes and cdf values must not decrease")
    return pts


def linear_mean(pts):
    x0, c0 = pts[0]
    m = x0 * c0
    for (xa, ca), (xb, cb) in zip(pts, pts[1:]):
        m += (cb - ca) * (xa + xb) / 2
    return m


def sampler(pts, rng):
    cdfs = [c for _, c in pts]

    def draw():
        u = rng.random()
        i = bisect.bisect_left(cdfs, u)  # first point with cdf >= u
        if i == 0:
            return pts[0][0]
        (xa, ca), (xb, cb) = pts[i - 1], pts[i]
        if cb == ca:
            return xb
        return xa + (u - ca) / (cb - ca) * (xb - xa)

    return draw


def poisson_flows(n_flows, hosts, load, link_gbps, cdf_path, seed, start_s=0.0):
    pts = read_cdf(cdf_path)
    mean = linear_mean(pts)
    lam = load * hosts * link_gbps * 1e9 / (8 * mean)
    rng = random.Random(seed)
    draw = sampler(pts, rng)
    t = start_s
    flows = []
    for _ in range(n_flows):
        t += rng.expovariate(lam)
        src = rng.randrange(hosts)
        dst = rng.randrange(hosts - 1)
        if dst >= src:
            dst += 1
        size = max(1, round(draw()))
        flows.append((src, dst, size, t))
    return flows, lam, mean


def write_csv(path, flows, comment=None):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        if comment:
            for line in comment.splitlines():
                f.write(f"# {line}\n")
        f.write("src,dst,size_bytes,start_s\n")
        for src, dst, size, t in flows:
            f.write(f"{src},{dst},{size},{t:.9f}\n")
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--flows", type=int, default=2000)
    ap.add_argument("--hosts", type=int, default=16)
    ap.add_argument("--load", type=float, default=0.6)
    ap.add_argument("--link-gbps", type=float, default=10.0)
    ap.add_argument("--cdf", default=DEFAULT_CDF)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dumbbell", action="store_true",
                    help="instead: 8 long flows 0..7 -> 8 of --dumbbell-bytes each, all at t=0")
    ap.add_argument("--dumbbell-bytes", type=int, default=10_000_000_000)
    a = ap.parse_args()

    if a.dumbbell:
        flows = [(i, 8, a.dumbbell_bytes, 0.0) for i in range(8)]
        write_csv(a.out, flows, "dumbbell: 8 long-lived flows hi -> h8, all at t = 0")
        print(f"wrote {a.out}: {len(flows)} flows")
        return
    flows, lam, mean = poisson_flows(a.flows, a.hosts, a.load, a.link_gbps, a.cdf, a.seed)
    comment = (f"poisson: {a.flows} flows, {a.hosts} hosts, load {a.load}, {a.link_gbps} Gb/s, "
               f"sizes {os.path.basename(a.cdf)} (linear mean {mean:.0f} B), "
               f"lambda {lam:.3f} flows/s, seed {a.seed}")
    write_csv(a.out, flows, comment)
    sizes = [f[2] for f in flows]
    print(f"wrote {a.out}: {comment}; last start {flows[-1][3]:.4f} s, "
          f"sample mean size {sum(sizes) / len(sizes):.0f} B")


if __name__ == "__main__":
    main()
