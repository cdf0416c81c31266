// ns-3 side of the dcnsim validation benchmark: DCTCP flows on a k-ary fat-tree.
//
// k = 4 by default: 16 hosts, k pods of k/2 edge + k/2 aggregation switches, (k/2)^2 cores.
// Host h sits under edge switch h / (k/2) (edge e = pod * k/2 + i); aggregation switch j of a
// pod connects to cores j*k/2 .. j*k/2 + k/2 - 1. This is dcnsim's `fattree` layout and
// numbering (Al-Fares et al.).
//
// Flows come from a CSV file (header naming at least src,dst,size_bytes,start_s; other columns
// are ignored). Each flow is a BulkSend of size_bytes from src to its own PacketSink port at
// dst, started at start_s. FCT = time the sink has received the flow's last byte - start_s.
//
// ECMP: ns-3.44's Ipv4GlobalRouting only offers per-packet random ECMP (RandomEcmpRouting),
// which reorders packets of a flow. dcnsim's ECMP is per flow, so this file brings its own
// routing protocol, HashEcmpRouting: shortest paths computed from the topology (BFS, hop count),
// and among the equal-cost next hops one chosen by a hash of the 5-tuple
// (src ip, dst ip, protocol, src port, dst port) salted with the switch's id, so that every
// packet of a flow takes the same path and the choices at different tiers are independent.
//
// Rates: --linkGbps is every link's by default; --fabricGbps (and --fabricEcnK) give the
// switch-switch links (edge-aggregation, aggregation-core) their own rate (and DCTCP K), as
// dcnsim's `agg_gbps` / `core_gbps` do, e.g. the k = 8 benchmark's 10 Gb/s hosts, 40 Gb/s fabric.
//
// Writes OUT/flows.csv and OUT/summary.json. See bench/README.md.
#include "common.h"
#include "rfc_patches.h"

#include <algorithm>
#include <deque>
#include <map>
#include <unordered_map>

using namespace ns3;

namespace
{

uint64_t
Mix64(uint64_t x)
{
    // splitmix64 finaliser
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/// One equal-cost next hop: local interface and the neighbour's address on that link.
struct NextHop
{
    uint32_t iface;
    Ipv4Address gateway;
};

/// Routing state shared by all nodes: destination address -> host index, and for every node
/// and host the equal-cost next hops towards that host.
struct EcmpTables
{
    std::unordered_map<uint32_t, uint32_t> hostOfAddr;
    std::vector<std::vector<std::vector<NextHop>>> nextHops; // [nodeId][host]
    uint64_t seed = 1;
};

EcmpTables g_tables;

class HashEcmpRouting : public Ipv4RoutingProtocol
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("bench::HashEcmpRouting")
                                .SetParent<Ipv4RoutingProtocol>()
                                .SetGroupName("Internet")
                                .AddConstructor<HashEcmpRouting>();
        return tid;
    }

    Ptr<Ipv4Route> RouteOutput(Ptr<Packet> p,
                               const Ipv4Header& header,
                               Ptr<NetDevice> oif,
                               Socket::SocketErrno& sockerr) override
    {
        // Called by the transport before the transport header is added (p may be null):
        // hosts have one uplink, so the hash does not matter here.
        const NextHop* nh = Choose(header, 0, 0);
        if (!nh)
        {
            sockerr = Socket::ERROR_NOROUTETOHOST;
            return nullptr;
        }
        sockerr = Socket::ERROR_NOTERROR;
        Ptr<Ipv4Route> r = Create<Ipv4Route>();
        r->SetDestination(header.GetDestination());
        r->SetGateway(nh->gateway);
        r->SetSource(m_ipv4->GetAddress(nh->iface, 0).GetLocal());
        r->SetOutputDevice(m_ipv4->GetNetDevice(nh->iface));
        return r;
    }

    bool RouteInput(Ptr<const Packet> p,
                    const Ipv4Header& header,
                    Ptr<const NetDevice> idev,
                    const UnicastForwardCallback& ucb,
                    const MulticastForwardCallback& mcb,
                    const LocalDeliverCallback& lcb,
                    const ErrorCallback& ecb) override
    {
        uint32_t iif = m_ipv4->GetInterfaceForDevice(idev);
        if (m_ipv4->IsDestinationAddress(header.GetDestination(), iif))
        {
            if (lcb.IsNull())
            {
                return false;
            }
            lcb(p, header, iif);
            return true;
        }
        // The IP header is already removed: the packet starts with the TCP/UDP ports.
        uint8_t ports[4] = {0, 0, 0, 0};
        if (p->GetSize() >= 4)
        {
            p->CopyData(ports, 4);
        }
        uint16_t sport = uint16_t(ports[0] << 8 | ports[1]);
        uint16_t dport = uint16_t(ports[2] << 8 | ports[3]);
        const NextHop* nh = Choose(header, sport, dport);
        if (!nh)
        {
            if (!ecb.IsNull())
            {
                ecb(p, header, Socket::ERROR_NOROUTETOHOST);
            }
            return false;
        }
        ucb(m_routes[nh->iface], p, header);
        return true;
    }

    void NotifyInterfaceUp(uint32_t) override
    {
    }

    void NotifyInterfaceDown(uint32_t) override
    {
    }

    void NotifyAddAddress(uint32_t, Ipv4InterfaceAddress) override
    {
    }

    void NotifyRemoveAddress(uint32_t, Ipv4InterfaceAddress) override
    {
    }

    void SetIpv4(Ptr<Ipv4> ipv4) override
    {
        m_ipv4 = ipv4;
    }

    void PrintRoutingTable(Ptr<OutputStreamWrapper> stream, Time::Unit) const override
    {
        *stream->GetStream() << "HashEcmpRouting: per-flow hash over shortest paths\n";
    }

    /// Called once addresses are assigned and the tables are built.
    void Finalise(uint32_t nodeId)
    {
        m_nodeId = nodeId;
        m_salt = Mix64(g_tables.seed * 0x100000001b3ULL + nodeId);
        m_routes.assign(m_ipv4->GetNInterfaces(), nullptr);
        for (const auto& perHost : g_tables.nextHops[nodeId])
        {
            for (const auto& nh : perHost)
            {
                if (!m_routes[nh.iface])
                {
                    Ptr<Ipv4Route> r = Create<Ipv4Route>();
                    r->SetGateway(nh.gateway);
                    r->SetSource(m_ipv4->GetAddress(nh.iface, 0).GetLocal());
                    r->SetOutputDevice(m_ipv4->GetNetDevice(nh.iface));
                    m_routes[nh.iface] = r;
                }
            }
        }
    }

  private:
    const NextHop* Choose(const Ipv4Header& h, uint16_t sport, uint16_t dport) const
    {
        auto it = g_tables.hostOfAddr.find(h.GetDestination().Get());
        if (it == g_tables.hostOfAddr.end())
        {
            return nullptr;
        }
        const auto& cands = g_tables.nextHops[m_nodeId][it->second];
        if (cands.empty())
        {
            return nullptr;
        }
        if (cands.size() == 1)
        {
            return &cands[0];
        }
        uint64_t key = (uint64_t(h.GetSource().Get()) << 32) | h.GetDestination().Get();
        uint64_t ports = (uint64_t(h.GetProtocol()) << 32) | (uint64_t(sport) << 16) | dport;
        uint64_t x = Mix64(Mix64(key ^ m_salt) ^ ports);
        return &cands[x % cands.size()];
    }

    Ptr<Ipv4> m_ipv4;
    uint32_t m_nodeId = 0;
    uint64_t m_salt = 0;
    std::vector<Ptr<Ipv4Route>> m_routes; // per interface, reused for forwarding
};

class HashEcmpHelper : public Ipv4RoutingHelper
{
  public:
    HashEcmpHelper* Copy() const override
    {
        return new HashEcmpHelper(*this);
    }

    Ptr<Ipv4RoutingProtocol> Create(Ptr<Node>) const override
    {
        return CreateObject<HashEcmpRouting>();
    }
};

struct Flow
{
    uint32_t src;
    uint32_t dst;
    uint64_t size;
    double start;
    uint64_t rx = 0;
    double connS = -1;   // sender's first hand-over of data to its socket (connection up)
    double finishS = -1; // receiver has the last byte
    uint64_t dataTx = 0;    // data segments the sender put on the wire
    uint64_t retx = 0;      // ... of which retransmissions (below the highest byte sent)
    uint32_t highEnd = 0;   // one past the highest byte sent
    uint32_t timeouts = 0;  // entries into CA_LOSS
    uint32_t recoveries = 0; // entries into CA_RECOVERY (fast retransmits)
};

std::vector<Flow> g_flows;
uint32_t g_done = 0;

void
OnSinkRx(uint32_t i, Ptr<const Packet> p, const Address&)
{
    Flow& f = g_flows[i];
    f.rx += p->GetSize();
    if (f.finishS < 0 && f.rx >= f.size)
    {
        f.finishS = Simulator::Now().GetSeconds();
        if (++g_done == g_flows.size())
        {
            Simulator::Stop();
        }
    }
}

void
OnBulkTx(uint32_t i, Ptr<const Packet>)
{
    if (g_flows[i].connS < 0)
    {
        g_flows[i].connS = Simulator::Now().GetSeconds();
    }
}

void
OnSenderTx(uint32_t i, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() == 0)
    {
        return;
    }
    Flow& f = g_flows[i];
    ++f.dataTx;
    uint32_t seq = h.GetSequenceNumber().GetValue();
    if (seq < f.highEnd)
    {
        ++f.retx;
    }
    f.highEnd = std::max(f.highEnd, seq + p->GetSize());
}

/// Entries into CA_CWR (an ECN cut), by the state they came from.
std::map<std::string, uint64_t> g_cwrFrom;

void
OnSenderState(uint32_t i, TcpSocketState::TcpCongState_t old, TcpSocketState::TcpCongState_t n)
{
    if (n == TcpSocketState::CA_CWR)
    {
        ++g_cwrFrom[TcpSocketState::TcpCongStateName[old]];
    }
    if (n == TcpSocketState::CA_LOSS)
    {
        ++g_flows[i].timeouts;
    }
    else if (n == TcpSocketState::CA_RECOVERY)
    {
        ++g_flows[i].recoveries;
    }
}

/// Counts the sender's data segments, retransmissions, timeouts and fast recoveries, and
/// applies --renoSackFix/--cwrFix.
void
WatchSender(uint32_t i, Ptr<Application> app)
{
    Ptr<TcpSocketBase> s =
        DynamicCast<TcpSocketBase>(DynamicCast<BulkSendApplication>(app)->GetSocket());
    s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnSenderTx, i));
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnSenderState, i));
    if (RfcPatches::g_renoSackFix || RfcPatches::g_cwrFix)
    {
        RfcPatches::Watch(s);
    }
}

std::vector<Flow>
ReadFlows(const std::string& path, uint32_t nHosts)
{
    std::ifstream in(path);
    if (!in)
    {
        NS_FATAL_ERROR("cannot open flow file " << path);
    }
    std::vector<Flow> flows;
    std::string line;
    int cSrc = -1, cDst = -1, cSize = -1, cStart = -1;
    size_t lineNo = 0;
    auto split = [](const std::string& s) {
        std::vector<std::string> out;
        std::stringstream ss(s);
        std::string cell;
        while (std::getline(ss, cell, ','))
        {
            cell.erase(0, cell.find_first_not_of(" \t\r"));
            cell.erase(cell.find_last_not_of(" \t\r") + 1);
            out.push_back(cell);
        }
        return out;
    };
    while (std::getline(in, line))
    {
        ++lineNo;
        if (line.find_first_not_of(" \t\r") == std::string::npos || line[0] == '#')
        {
            continue;
        }
        auto cells = split(line);
        if (cSrc < 0)
        {
            for (int c = 0; c < int(cells.size()); ++c)
            {
                if (cells[c] == "src")
                    cSrc = c;
                else if (cells[c] == "dst")
                    cDst = c;
                else if (cells[c] == "size_bytes")
                    cSize = c;
                else if (cells[c] == "start_s")
                    cStart = c;
            }
            if (cSrc < 0 || cDst < 0 || cSize < 0 || cStart < 0)
            {
                NS_FATAL_ERROR(path << " line " << lineNo
                                    << ": header must name src,dst,size_bytes,start_s");
            }
            continue;
        }
        int need = std::max({cSrc, cDst, cSize, cStart});
        if (int(cells.size()) <= need)
        {
            NS_FATAL_ERROR(path << " line " << lineNo << ": too few cells");
        }
        Flow f;
        f.src = std::stoul(cells[cSrc]);
        f.dst = std::stoul(cells[cDst]);
        f.size = std::stoull(cells[cSize]);
        f.start = std::stod(cells[cStart]);
        if (f.src >= nHosts || f.dst >= nHosts || f.src == f.dst || f.size == 0 || f.start < 0)
        {
            NS_FATAL_ERROR(path << " line " << lineNo << ": bad flow");
        }
        flows.push_back(f);
    }
    return flows;
}

void
Progress(double everyS, bench::Clock::time_point t0)
{
    std::cerr << "  sim " << std::fixed << std::setprecision(3) << Simulator::Now().GetSeconds()
              << " s, flows done " << g_done << "/" << g_flows.size() << ", link tx "
              << bench::g_tx.packets << ", wall " << std::setprecision(1)
              << bench::SecondsSince(t0) << " s" << std::endl;
    Simulator::Schedule(Seconds(everyS), &Progress, everyS, t0);
}

} // namespace

/// Debug trace of one flow's sender (--traceFlow): congestion state changes, cwnd in segments,
/// data segments sent and ACKs received, one line each, times in ns.
static void
TraceSender(Ptr<Application> app)
{
    Ptr<Socket> s = DynamicCast<BulkSendApplication>(app)->GetSocket();
    s->TraceConnectWithoutContext(
        "CongState",
        MakeCallback(+[](TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t n) {
            std::cerr << "state " << Simulator::Now().GetNanoSeconds() << " "
                      << TcpSocketState::TcpCongStateName[n] << "\n";
        }));
    s->TraceConnectWithoutContext("CongestionWindow", MakeCallback(+[](uint32_t, uint32_t n) {
                                      std::cerr << "cwnd " << Simulator::Now().GetNanoSeconds()
                                                << " " << n / 1460.0 << "\n";
                                  }));
    s->TraceConnectWithoutContext(
        "Tx",
        MakeCallback(+[](Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>) {
            if (p->GetSize() > 0)
            {
                std::cerr << "tx " << Simulator::Now().GetNanoSeconds() << " "
                          << h.GetSequenceNumber().GetValue() << "\n";
            }
        }));
    s->TraceConnectWithoutContext(
        "Rx",
        MakeCallback(+[](Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>) {
            std::cerr << "ack " << Simulator::Now().GetNanoSeconds() << " "
                      << h.GetAckNumber().GetValue() << "\n";
        }));
}

int
main(int argc, char* argv[])
{
    auto t0 = bench::Clock::now();
    bench::Params p;
    p.bufferPkts = 100;
    uint32_t k = 4;
    std::string flowFile;
    std::string out = ".";
    double maxSimS = 0; // 0: last start + 5 s
    double progressS = 0;
    uint64_t ecmpSeed = 1;
    int64_t traceFlow = -1;
    bool renoSackFix = false;
    bool cwrFix = false;
    double fabricGbps = 0;   // 0: linkGbps
    uint32_t fabricEcnK = 0; // 0: ecnK

    CommandLine cmd(__FILE__);
    p.AddTo(cmd);
    cmd.AddValue("k", "fat-tree arity (even)", k);
    cmd.AddValue("flows", "flow CSV: src,dst,size_bytes,start_s", flowFile);
    cmd.AddValue("out", "output directory (must exist)", out);
    cmd.AddValue("maxSimS", "stop at this simulated time even if flows remain (0: last start + 5 s)",
                 maxSimS);
    cmd.AddValue("progressS", "print progress every this many simulated seconds (0: off)",
                 progressS);
    cmd.AddValue("fabricGbps", "rate of the switch-switch links, Gb/s (0: linkGbps)", fabricGbps);
    cmd.AddValue("fabricEcnK", "DCTCP K at the switch-switch ports, packets (0: ecnK)",
                 fabricEcnK);
    cmd.AddValue("ecmpSeed", "salt of the per-flow ECMP hash", ecmpSeed);
    cmd.AddValue("traceFlow",
                 "print this flow's sender events to stderr: state, cwnd (segments), tx SEQ, ack ACK "
                 "(times in ns; -1: off)",
                 traceFlow);
    cmd.AddValue("renoSackFix",
                 "clear the SACK marks ns-3 invents from dupACKs at a new ACK outside recovery "
                 "and at a full ACK (see rfc_patches.h; 0: ns-3 as it is)",
                 renoSackFix);
    cmd.AddValue("cwrFix",
                 "let the third dupACK after an ECN cut (CA_CWR) start fast recovery, keeping the "
                 "cut's ssthresh (see rfc_patches.h; 0: ns-3 as it is)",
                 cwrFix);
    cmd.Parse(argc, argv);
    RfcPatches::g_renoSackFix = renoSackFix;
    RfcPatches::g_cwrFix = cwrFix;
    if (k < 2 || k % 2)
    {
        NS_FATAL_ERROR("k must be even and >= 2");
    }
    const uint32_t half = k / 2;
    const uint32_t nHosts = k * k * k / 4;
    if (flowFile.empty())
    {
        NS_FATAL_ERROR("--flows=FILE is required");
    }
    g_flows = ReadFlows(flowFile, nHosts);
    if (g_flows.empty())
    {
        NS_FATAL_ERROR("no flows in " << flowFile);
    }
    if (g_flows.size() > 60000)
    {
        NS_FATAL_ERROR("one port per flow: at most 60000 flows");
    }
    g_tables.seed = ecmpSeed;

    bench::ConfigureTcp(p);

    NodeContainer hosts, edges, aggs, cores;
    hosts.Create(nHosts);
    edges.Create(k * half);
    aggs.Create(k * half);
    cores.Create(half * half);

    HashEcmpHelper routing;
    InternetStackHelper stack;
    stack.SetRoutingHelper(routing);
    stack.Install(hosts);
    stack.Install(edges);
    stack.Install(aggs);
    stack.Install(cores);

    PointToPointHelper links = bench::MakeLinks(p);
    TrafficControlHelper tch = bench::MakeQueues(p);
    TrafficControlHelper hostTch = bench::MakeHostQueues(p);
    bench::Params pf = p; // the switch-switch links
    pf.linkGbps = fabricGbps > 0 ? fabricGbps : p.linkGbps;
    pf.ecnK = fabricEcnK > 0 ? fabricEcnK : p.ecnK;
    PointToPointHelper fabricLinks = bench::MakeLinks(pf);
    TrafficControlHelper fabricTch = bench::MakeQueues(pf);
    Ipv4AddressHelper addr("10.0.0.0", "255.255.255.252");
    std::vector<Ptr<QueueDisc>> allQdiscs;
    // Per-link-class queue discs, for a zero-overhead breakdown of transmissions
    // (a queue disc's sent packets = packets its device transmitted).
    // tier 0: host-edge, 1: edge-agg, 2: agg-core; [0] = upward egress, [1] = downward egress.
    std::vector<std::pair<uint32_t, Ptr<QueueDisc>>> upQ, downQ;
    std::vector<std::vector<Ptr<QueueDisc>>> coreDownQ(half * half);

    struct Adj
    {
        uint32_t nbr;
        NextHop hop;
    };

    std::vector<std::vector<Adj>> adj(NodeList::GetNNodes());
    std::vector<Ipv4Address> hostAddr(nHosts);

    // a is the lower node (host < edge < agg < core).
    auto connect = [&](Ptr<Node> a, Ptr<Node> b, uint32_t tier) {
        // tier 0 = host links; the others are switch-switch links
        NetDeviceContainer d = (tier == 0 ? links : fabricLinks).Install(a, b);
        // before addresses, so no default qdisc; a host's own NIC gets the host queue
        QueueDiscContainer q;
        if (tier == 0)
        {
            q.Add(hostTch.Install(d.Get(0)));
            q.Add(tch.Install(d.Get(1)));
        }
        else
        {
            q = fabricTch.Install(d);
        }
        for (uint32_t i = 0; i < q.GetN(); ++i)
        {
            allQdiscs.push_back(q.Get(i));
        }
        upQ.emplace_back(tier, q.Get(0));
        downQ.emplace_back(tier, q.Get(1));
        Ipv4InterfaceContainer ifs = addr.Assign(d);
        addr.NewNetwork();
        uint32_t ia = a->GetObject<Ipv4>()->GetInterfaceForDevice(d.Get(0));
        uint32_t ib = b->GetObject<Ipv4>()->GetInterfaceForDevice(d.Get(1));
        adj[a->GetId()].push_back({b->GetId(), {ia, ifs.GetAddress(1)}});
        adj[b->GetId()].push_back({a->GetId(), {ib, ifs.GetAddress(0)}});
        return ifs;
    };

    for (uint32_t h = 0; h < nHosts; ++h)
    {
        auto ifs = connect(hosts.Get(h), edges.Get(h / half), 0);
        hostAddr[h] = ifs.GetAddress(0);
        g_tables.hostOfAddr[hostAddr[h].Get()] = h;
    }
    for (uint32_t pod = 0; pod < k; ++pod)
    {
        for (uint32_t i = 0; i < half; ++i)
        {
            for (uint32_t j = 0; j < half; ++j)
            {
                connect(edges.Get(pod * half + i), aggs.Get(pod * half + j), 1);
            }
        }
    }
    for (uint32_t pod = 0; pod < k; ++pod)
    {
        for (uint32_t j = 0; j < half; ++j)
        {
            for (uint32_t m = 0; m < half; ++m)
            {
                connect(aggs.Get(pod * half + j), cores.Get(j * half + m), 2);
                coreDownQ[j * half + m].push_back(downQ.back().second);
            }
        }
    }

    // Shortest-path next hops towards every host (BFS from the host, hop count).
    const uint32_t nNodes = NodeList::GetNNodes();
    g_tables.nextHops.assign(nNodes, std::vector<std::vector<NextHop>>(nHosts));
    for (uint32_t h = 0; h < nHosts; ++h)
    {
        std::vector<int> dist(nNodes, -1);
        std::deque<uint32_t> todo;
        uint32_t root = hosts.Get(h)->GetId();
        dist[root] = 0;
        todo.push_back(root);
        while (!todo.empty())
        {
            uint32_t n = todo.front();
            todo.pop_front();
            for (const auto& a : adj[n])
            {
                if (dist[a.nbr] < 0)
                {
                    dist[a.nbr] = dist[n] + 1;
                    todo.push_back(a.nbr);
                }
            }
        }
        for (uint32_t n = 0; n < nNodes; ++n)
        {
            if (n == root || dist[n] < 0)
            {
                continue;
            }
            for (const auto& a : adj[n])
            {
                if (dist[a.nbr] == dist[n] - 1)
                {
                    g_tables.nextHops[n][h].push_back(a.hop);
                }
            }
        }
    }
    for (uint32_t n = 0; n < nNodes; ++n)
    {
        Ptr<Ipv4> ipv4 = NodeList::GetNode(n)->GetObject<Ipv4>();
        DynamicCast<HashEcmpRouting>(ipv4->GetRoutingProtocol())->Finalise(n);
    }

    double lastStart = 0;
    for (uint32_t i = 0; i < g_flows.size(); ++i)
    {
        const Flow& f = g_flows[i];
        lastStart = std::max(lastStart, f.start);
        uint16_t port = uint16_t(1000 + i);
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sa = sink.Install(hosts.Get(f.dst));
        sa.Start(Seconds(0));
        sa.Get(0)->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnSinkRx, i));

        BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(hostAddr[f.dst], port));
        src.SetAttribute("MaxBytes", UintegerValue(f.size));
        src.SetAttribute("SendSize", UintegerValue(p.mss));
        ApplicationContainer ca = src.Install(hosts.Get(f.src));
        ca.Start(Seconds(f.start));
        ca.Get(0)->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnBulkTx, i));
        // The socket exists once the application has started.
        Simulator::Schedule(Seconds(f.start) + NanoSeconds(1), &WatchSender, i, ca.Get(0));
        if (int64_t(i) == traceFlow)
        {
            Ptr<Application> app = ca.Get(0);
            Simulator::Schedule(Seconds(f.start) + NanoSeconds(1), &TraceSender, app);
        }
    }
    if (maxSimS <= 0)
    {
        maxSimS = lastStart + 5.0;
    }

    bench::CountLinkTransmissions();
    if (progressS > 0)
    {
        Simulator::Schedule(Seconds(progressS), &Progress, progressS, t0);
    }

    Simulator::Stop(Seconds(maxSimS));
    double setupS = bench::SecondsSince(t0);
    auto tRun = bench::Clock::now();
    double cpu0 = bench::CpuSeconds();
    Simulator::Run();
    double runS = bench::SecondsSince(tRun);
    double runCpuS = bench::CpuSeconds() - cpu0;
    double simEndS = Simulator::Now().GetSeconds();
    uint64_t events = Simulator::GetEventCount();
    auto totals = bench::SumQueueStats(allQdiscs);
    uint64_t tierUp[3] = {0, 0, 0}, tierDown[3] = {0, 0, 0};
    uint64_t dropUp[3] = {0, 0, 0}, dropDown[3] = {0, 0, 0};
    uint64_t markUp[3] = {0, 0, 0}, markDown[3] = {0, 0, 0};
    for (auto& [t, q] : upQ)
    {
        const auto& st = q->GetStats();
        tierUp[t] += st.nTotalSentPackets;
        dropUp[t] += st.nTotalDroppedPackets;
        markUp[t] += st.nTotalMarkedPackets;
    }
    for (auto& [t, q] : downQ)
    {
        const auto& st = q->GetStats();
        tierDown[t] += st.nTotalSentPackets;
        dropDown[t] += st.nTotalDroppedPackets;
        markDown[t] += st.nTotalMarkedPackets;
    }
    std::vector<uint64_t> coreDown(coreDownQ.size(), 0);
    for (size_t c = 0; c < coreDownQ.size(); ++c)
    {
        for (auto& q : coreDownQ[c])
        {
            coreDown[c] += q->GetStats().nTotalSentPackets;
        }
    }
    Simulator::Destroy();

    std::ostringstream flows;
    flows << std::setprecision(12);
    flows << "flow_id,src,dst,size_bytes,start_s,fct_s,fct_from_conn_s,finish_s,data_packets,"
             "retransmits,timeouts,fast_recoveries\n";
    uint64_t bytesDone = 0, dataTx = 0, retx = 0, timeouts = 0, recoveries = 0;
    for (uint32_t i = 0; i < g_flows.size(); ++i)
    {
        const Flow& f = g_flows[i];
        flows << i << "," << f.src << "," << f.dst << "," << f.size << "," << f.start << ",";
        if (f.finishS >= 0)
        {
            bytesDone += f.size;
            flows << f.finishS - f.start << "," << (f.connS >= 0 ? f.finishS - f.connS : -1) << ","
                  << f.finishS;
        }
        else
        {
            flows << ",,";
        }
        flows << "," << f.dataTx << "," << f.retx << "," << f.timeouts << "," << f.recoveries
              << "\n";
        dataTx += f.dataTx;
        retx += f.retx;
        timeouts += f.timeouts;
        recoveries += f.recoveries;
    }
    double totalS = bench::SecondsSince(t0);

    std::ostringstream j;
    j << std::setprecision(10);
    j << "{\n  \"simulator\": \"ns-3.44\",\n  \"scenario\": \"fattree\",\n";
    j << "  \"params\": " << bench::ParamsJson(p) << ",\n";
    j << "  \"fabric\": {\"link_gbps\": " << pf.linkGbps << ", \"ecn_k_pkts\": " << pf.ecnK
      << "},\n";
    j << "  \"k\": " << k << ", \"hosts\": " << nHosts << ", \"flow_file\": \"" << flowFile
      << "\", \"ecmp\": \"per-flow 5-tuple hash, salted per switch (HashEcmpRouting)\",\n";
    j << "  \"flows\": {\"total\": " << g_flows.size() << ", \"finished\": " << g_done
      << ", \"bytes_finished\": " << bytesDone << "},\n";
    j << "  \"sim_end_s\": " << simEndS << ",\n";
    j << "  \"senders\": {\"data_packets\": " << dataTx << ", \"retransmits\": " << retx
      << ", \"timeouts\": " << timeouts << ", \"fast_recoveries\": " << recoveries
      << ", \"ecn_cuts_from\": {";
    for (auto it = g_cwrFrom.begin(); it != g_cwrFrom.end(); ++it)
    {
        j << (it == g_cwrFrom.begin() ? "" : ", ") << "\"" << it->first << "\": " << it->second;
    }
    j << "}"
      << ",\n    \"patches\": {\"reno_sack_fix\": " << (renoSackFix ? "true" : "false")
      << ", \"cwr_fix\": " << (cwrFix ? "true" : "false")
      << ", \"sack_resets\": " << RfcPatches::g_sackResets
      << ", \"cwr_recoveries\": " << RfcPatches::g_cwrRecoveries << "}},\n";
    j << "  \"queues_all\": {\"drops\": " << totals.drops << ", \"ecn_marks\": " << totals.marks
      << ",\n    \"by_egress\": {";
    const char* tierName[3] = {"host_edge", "edge_agg", "agg_core"};
    for (int t = 0; t < 3; ++t)
    {
        // "up" = the lower node's egress (a host's NIC for host_edge), "down" = the upper one's
        j << (t ? ", " : "") << "\"" << tierName[t] << "_up\": {\"drops\": " << dropUp[t]
          << ", \"ecn_marks\": " << markUp[t] << "}, \"" << tierName[t]
          << "_down\": {\"drops\": " << dropDown[t] << ", \"ecn_marks\": " << markDown[t] << "}";
    }
    j << "}},\n";
    j << "  \"packets\": {\"link_tx\": " << bench::g_tx.packets
      << ", \"link_tx_data\": " << bench::g_tx.dataPackets << ", \"link_tx_bytes\": " << bench::g_tx.bytes
      << ",\n    \"by_tier\": {\"host_edge_up\": " << tierUp[0] << ", \"host_edge_down\": " << tierDown[0]
      << ", \"edge_agg_up\": " << tierUp[1] << ", \"edge_agg_down\": " << tierDown[1]
      << ", \"agg_core_up\": " << tierUp[2] << ", \"agg_core_down\": " << tierDown[2]
      << "},\n    \"core_downlinks_by_core\": [";
    for (size_t c = 0; c < coreDown.size(); ++c)
    {
        j << (c ? ", " : "") << coreDown[c];
    }
    j << "]},\n";
    j << bench::RunJson(totalS, setupS, runS, runCpuS, events) << "}\n";

    bench::WriteFile(out + "/flows.csv", flows.str());
    bench::WriteFile(out + "/summary.json", j.str());
    std::cout << j.str();
    return 0;
}
