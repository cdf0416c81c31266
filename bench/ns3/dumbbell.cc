// ns-3 side of the dcnsim validation benchmark: DCTCP on a dumbbell.
//
//   h0 ..h7 --- swL ===== swR --- h8          every link 10 Gb/s, 1 us
//   (senders)     bottleneck        (receiver)
//
// N long-lived DCTCP flows (BulkSend, unlimited) hi -> h8, all starting at t = 0, for stopS of
// simulated time. Same layout and host numbering as dcnsim's `dumbbell` topology.
//
// Writes OUT/summary.json and OUT/flows.csv (per-flow goodput). See bench/README.md.
#include "common.h"

using namespace ns3;

namespace
{
std::vector<uint64_t> g_rxBytes;       // per flow, whole run
std::vector<uint64_t> g_rxBytesWindow; // per flow, after warmup
double g_warmupS = 0.1;

void
OnSinkRx(uint32_t flow, Ptr<const Packet> p, const Address&)
{
    uint32_t s = p->GetSize();
    g_rxBytes[flow] += s;
    if (Simulator::Now().GetSeconds() >= g_warmupS)
    {
        g_rxBytesWindow[flow] += s;
    }
}

// Bottleneck queue occupancy, time-weighted over [warmup, stop], from the exact trace.
struct QueueTrace
{
    double lastT = 0.0;
    uint32_t cur = 0;
    uint32_t maxAll = 0;
    uint32_t maxWindow = 0;
    double areaAll = 0.0;    // packet-seconds over [0, stop]
    double areaWindow = 0.0; // packet-seconds over [warmup, stop]

    void Advance(double now)
    {
        areaAll += cur * (now - lastT);
        double from = std::max(lastT, g_warmupS);
        if (now > from)
        {
            areaWindow += cur * (now - from);
        }
        lastT = now;
    }
} g_q;

void
OnQueueLen(uint32_t, uint32_t now)
{
    g_q.Advance(Simulator::Now().GetSeconds());
    g_q.cur = now;
    g_q.maxAll = std::max(g_q.maxAll, now);
    if (Simulator::Now().GetSeconds() >= g_warmupS)
    {
        g_q.maxWindow = std::max(g_q.maxWindow, now);
    }
}
} // namespace

int
main(int argc, char* argv[])
{
    auto t0 = bench::Clock::now();
    bench::Params p;
    p.bufferPkts = 250;
    uint32_t senders = 8;
    double stopS = 1.0;
    std::string out = ".";

    CommandLine cmd(__FILE__);
    p.AddTo(cmd);
    cmd.AddValue("senders", "number of sending hosts (one flow each)", senders);
    cmd.AddValue("stopS", "simulated time, s", stopS);
    cmd.AddValue("warmupS", "goodput/queue window starts here, s", g_warmupS);
    cmd.AddValue("out", "output directory (must exist)", out);
    cmd.Parse(argc, argv);

    bench::ConfigureTcp(p);

    NodeContainer hosts;
    hosts.Create(senders + 1); // h0..h{senders-1} send, h{senders} receives
    NodeContainer switches;
    switches.Create(2);
    Ptr<Node> swL = switches.Get(0);
    Ptr<Node> swR = switches.Get(1);

    InternetStackHelper stack;
    stack.Install(hosts);
    stack.Install(switches);

    PointToPointHelper links = bench::MakeLinks(p);
    TrafficControlHelper tch = bench::MakeQueues(p);
    TrafficControlHelper hostTch = bench::MakeHostQueues(p);
    Ipv4AddressHelper addr("10.0.0.0", "255.255.255.252");
    std::vector<Ptr<QueueDisc>> allQdiscs;

    // `a` is a host (its NIC gets the host queue) unless both ends are switches.
    auto connect = [&](Ptr<Node> a, Ptr<Node> b, bool aIsHost) {
        NetDeviceContainer d = links.Install(a, b);
        // before addresses, so no default qdisc
        QueueDiscContainer q;
        q.Add((aIsHost ? hostTch : tch).Install(d.Get(0)));
        q.Add(tch.Install(d.Get(1)));
        for (uint32_t i = 0; i < q.GetN(); ++i)
        {
            allQdiscs.push_back(q.Get(i));
        }
        Ipv4InterfaceContainer ifs = addr.Assign(d);
        addr.NewNetwork();
        return std::make_pair(q, ifs);
    };

    for (uint32_t i = 0; i < senders; ++i)
    {
        connect(hosts.Get(i), swL, true);
    }
    auto [bnQ, bnIfs] = connect(swL, swR, false);
    Ptr<QueueDisc> bottleneck = bnQ.Get(0); // swL -> swR egress
    auto [rxQ, rxIfs] = connect(hosts.Get(senders), swR, true);
    Ipv4Address rxAddr = rxIfs.GetAddress(0);

    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    g_rxBytes.assign(senders, 0);
    g_rxBytesWindow.assign(senders, 0);
    for (uint32_t i = 0; i < senders; ++i)
    {
        uint16_t port = 5000 + i;
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sa = sink.Install(hosts.Get(senders));
        sa.Start(Seconds(0));
        sa.Get(0)->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnSinkRx, i));

        BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(rxAddr, port));
        src.SetAttribute("MaxBytes", UintegerValue(0)); // unlimited
        src.SetAttribute("SendSize", UintegerValue(p.mss));
        ApplicationContainer ca = src.Install(hosts.Get(i));
        ca.Start(Seconds(0));
    }

    bottleneck->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&OnQueueLen));
    bench::CountLinkTransmissions();

    Simulator::Stop(Seconds(stopS));
    double setupS = bench::SecondsSince(t0);
    auto tRun = bench::Clock::now();
    double cpu0 = bench::CpuSeconds();
    Simulator::Run();
    double runS = bench::SecondsSince(tRun);
    double runCpuS = bench::CpuSeconds() - cpu0;
    g_q.Advance(stopS);
    uint64_t events = Simulator::GetEventCount();

    auto totals = bench::SumQueueStats(allQdiscs);
    const auto& bs = bottleneck->GetStats();
    uint64_t bnDrops = bs.nTotalDroppedPackets;
    uint64_t bnMarks = bs.nTotalMarkedPackets;
    Simulator::Destroy();

    uint64_t sumAll = 0;
    uint64_t sumWin = 0;
    std::ostringstream flows;
    flows << "flow_id,src,dst,rx_bytes,goodput_bps,goodput_window_bps\n";
    for (uint32_t i = 0; i < senders; ++i)
    {
        sumAll += g_rxBytes[i];
        sumWin += g_rxBytesWindow[i];
        flows << i << "," << i << "," << senders << "," << g_rxBytes[i] << ","
              << std::setprecision(10) << g_rxBytes[i] * 8.0 / stopS << ","
              << g_rxBytesWindow[i] * 8.0 / (stopS - g_warmupS) << "\n";
    }
    double windowS = stopS - g_warmupS;
    double totalS = bench::SecondsSince(t0);

    std::ostringstream j;
    j << std::setprecision(10);
    j << "{\n  \"simulator\": \"ns-3.44\",\n  \"scenario\": \"dumbbell\",\n";
    j << "  \"params\": " << bench::ParamsJson(p) << ",\n";
    j << "  \"senders\": " << senders << ", \"stop_s\": " << stopS << ", \"warmup_s\": " << g_warmupS
      << ",\n";
    j << "  \"goodput\": {\"total_bps\": " << sumAll * 8.0 / stopS
      << ", \"total_window_bps\": " << sumWin * 8.0 / windowS << ", \"rx_bytes\": " << sumAll
      << "},\n";
    j << "  \"bottleneck_queue\": {\"mean_pkts\": " << g_q.areaAll / stopS
      << ", \"mean_window_pkts\": " << g_q.areaWindow / windowS << ", \"max_pkts\": " << g_q.maxAll
      << ", \"max_window_pkts\": " << g_q.maxWindow << ", \"drops\": " << bnDrops
      << ", \"ecn_marks\": " << bnMarks << "},\n";
    j << "  \"queues_all\": {\"drops\": " << totals.drops << ", \"ecn_marks\": " << totals.marks
      << "},\n";
    j << "  \"packets\": {\"link_tx\": " << bench::g_tx.packets
      << ", \"link_tx_data\": " << bench::g_tx.dataPackets << ", \"link_tx_bytes\": " << bench::g_tx.bytes
      << "},\n";
    j << bench::RunJson(totalS, setupS, runS, runCpuS, events) << "}\n";

    bench::WriteFile(out + "/flows.csv", flows.str());
    bench::WriteFile(out + "/summary.json", j.str());
    std::cout << j.str();
    return 0;
}
