// Settings and instruments shared by the ns-3 benchmark scenarios (dumbbell.cc, fattree.cc).
//
// Every choice made to match dcnsim is here, in one place, and listed in bench/README.md.
#ifndef DCNSIM_BENCH_NS3_COMMON_H
#define DCNSIM_BENCH_NS3_COMMON_H

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <string>

namespace bench
{
using namespace ns3;

/// Network and transport parameters of a run (command-line settable).
struct Params
{
    double linkGbps = 10.0;
    double linkDelayUs = 1.0;
    uint32_t bufferPkts = 250;  // egress queue disc capacity, packets
    uint32_t ecnK = 65;         // DCTCP marking threshold K, packets (instantaneous queue)
    // Host NIC queue disc capacity, packets; 0 = bufferPkts. The default is deep: dcnsim's hosts
    // hold what their full NIC queue cannot take (topology.host_nic = "backpressure"), and a
    // queue disc that never overflows is ns-3's nearest equivalent (FIFO over all flows, where
    // dcnsim takes the flows in turn). bufferPkts here gives host_nic = "droptail".
    uint32_t hostQueuePkts = 100000;
    uint32_t mss = 1460;        // TCP payload per full segment
    uint32_t initCwnd = 10;     // segments
    double minRtoUs = 1000.0;
    double initialRtoUs = 1000.0;
    uint32_t sockBufBytes = 8u << 20; // send and receive socket buffers
    std::string tcp = "dctcp";        // dctcp | newreno (no ECN, drop-tail queues)
    bool timestamps = false;          // RFC 7323 timestamps (RTT samples on retransmissions too)

    void AddTo(CommandLine& cmd)
    {
        cmd.AddValue("linkGbps", "rate of every link, Gb/s", linkGbps);
        cmd.AddValue("linkDelayUs", "propagation delay of every link, us", linkDelayUs);
        cmd.AddValue("bufferPkts", "egress queue capacity, packets", bufferPkts);
        cmd.AddValue("ecnK", "DCTCP ECN marking threshold K, packets", ecnK);
        cmd.AddValue("hostQueuePkts",
                     "host NIC queue disc capacity, packets (0: bufferPkts, as a drop-tail NIC)",
                     hostQueuePkts);
        cmd.AddValue("mss", "TCP segment (payload) size, bytes", mss);
        cmd.AddValue("initCwnd", "initial congestion window, segments", initCwnd);
        cmd.AddValue("minRtoUs", "minimum RTO, us", minRtoUs);
        cmd.AddValue("initialRtoUs", "RTO before the first RTT sample (and SYN RTO), us",
                     initialRtoUs);
        cmd.AddValue("sockBufBytes", "TCP send/receive buffer, bytes", sockBufBytes);
        cmd.AddValue("tcp", "dctcp, or newreno (ECN off, drop-tail queues)", tcp);
        cmd.AddValue("timestamps", "TCP timestamps on (adds 12 B to every header)", timestamps);
    }
};

/// TCP defaults: DCTCP, no delayed ACK, no SACK, no timestamps, 1 ms RTO floor.
inline void
ConfigureTcp(const Params& p)
{
    const bool dctcp = p.tcp != "newreno";
    Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                       TypeIdValue(dctcp ? TcpDctcp::GetTypeId() : TcpNewReno::GetTypeId()));
    // RFC 5681/6582-style fast recovery (the default is PRR, which dcnsim does not model).
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(p.mss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(p.initCwnd));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(1));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(p.sockBufBytes));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(p.sockBufBytes));
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(MicroSeconds(p.initialRtoUs)));
    // Never give up on a connection (dcnsim retransmits forever).
    Config::SetDefault("ns3::TcpSocket::ConnCount", UintegerValue(1000));
    Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(1000));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(p.timestamps));
    // Limited transmit stays on (ns-3's default), although dcnsim has none: with SACK off,
    // ns-3 estimates the pipe by counting each dupACK as one delivered segment, so it sends new
    // data on early dupACKs anyway; with LimitedTransmit = false it then aborts on an internal
    // assertion (SendPendingData: "m_congState != CA_DISORDER"), as the fat-tree showed.
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MicroSeconds(p.minRtoUs)));
    // RTO = max(MinRto, SRTT + max(G, 4 RTTVAR)): G = 1 ms by default would add 1 ms to every
    // RTO; dcnsim uses the RFC 6298 formula without a clock granularity.
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(NanoSeconds(1)));
    Config::SetDefault("ns3::TcpSocketBase::UseEcn", StringValue(dctcp ? "On" : "Off"));
    // Before the first sample, RTO = InitialEstimation + G.
    Config::SetDefault("ns3::RttEstimator::InitialEstimation",
                       TimeValue(MicroSeconds(p.initialRtoUs)));
    Config::SetDefault("ns3::TcpDctcp::DctcpShiftG", DoubleValue(1.0 / 16));
    Config::SetDefault("ns3::TcpDctcp::DctcpAlphaOnInit", DoubleValue(1.0));
    GlobalValue::Bind("ChecksumEnabled", BooleanValue(false));
}

/// Point-to-point links; the device keeps one packet so that the backlog sits in the queue disc.
inline PointToPointHelper
MakeLinks(const Params& p)
{
    PointToPointHelper h;
    h.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(p.linkGbps * 1e9))));
    h.SetChannelAttribute("Delay", TimeValue(NanoSeconds(int64_t(p.linkDelayUs * 1000.0))));
    h.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize("1p")));
    return h;
}

/// DCTCP marking queue: RED with MinTh = MaxTh = K - 1, QW = 1 (instantaneous queue), not
/// gentle, ECN mark instead of drop above the threshold, tail drop when full.
///
/// A busy port holds one more packet in the device's one-packet queue than its queue disc
/// shows (plus the one on the wire). dcnsim's `buffer_pkts` and `ecn_k_pkts` count every
/// waiting packet, so the queue disc gets one slot less and marks one packet earlier: a port
/// then drops at `bufferPkts` waiting packets and marks at K waiting, as in dcnsim.
inline TrafficControlHelper
MakeQueues(const Params& p)
{
    const double full = p.bufferPkts - 1;
    TrafficControlHelper tch;
    tch.SetRootQueueDisc("ns3::RedQueueDisc",
                         "MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, p.bufferPkts - 1)),
                         // newreno: thresholds at the buffer size make RED a drop-tail queue.
                         "MinTh", DoubleValue(p.tcp == "newreno" ? full : p.ecnK - 1),
                         "MaxTh", DoubleValue(p.tcp == "newreno" ? full : p.ecnK - 1),
                         "QW", DoubleValue(1.0),
                         "Gentle", BooleanValue(false),
                         "UseEcn", BooleanValue(true),
                         "UseHardDrop", BooleanValue(false),
                         "MeanPktSize", UintegerValue(1500),
                         "LinkBandwidth", DataRateValue(DataRate(uint64_t(p.linkGbps * 1e9))),
                         "LinkDelay", TimeValue(NanoSeconds(int64_t(p.linkDelayUs * 1000.0))));
    return tch;
}

/// A host's NIC queue: the same marking at K, with room for `hostQueuePkts` packets (see
/// Params), so that a sender's burst waits in the host instead of being dropped there.
inline TrafficControlHelper
MakeHostQueues(const Params& p)
{
    Params h = p;
    if (p.hostQueuePkts > 0)
    {
        h.bufferPkts = p.hostQueuePkts;
    }
    return MakeQueues(h);
}

/// Packet transmissions on links: one packet starting on one link = one.
struct TxCounter
{
    uint64_t packets = 0;
    uint64_t bytes = 0;
    uint64_t dataPackets = 0; // frames longer than a bare ACK/SYN/FIN (> 60 B on the wire)
};

inline TxCounter g_tx;

inline void
OnPhyTxBegin(Ptr<const Packet> p)
{
    uint32_t s = p->GetSize();
    ++g_tx.packets;
    g_tx.bytes += s;
    if (s > 60)
    {
        ++g_tx.dataPackets;
    }
}

inline void
CountLinkTransmissions()
{
    Config::ConnectWithoutContext(
        "/NodeList/*/DeviceList/*/$ns3::PointToPointNetDevice/PhyTxBegin",
        MakeCallback(&OnPhyTxBegin));
}

/// Totals over every queue disc of every node.
struct QueueTotals
{
    uint64_t drops = 0;
    uint64_t marks = 0;
};

inline QueueTotals
SumQueueStats(const std::vector<Ptr<QueueDisc>>& qds)
{
    QueueTotals t;
    for (auto& q : qds)
    {
        const auto& s = q->GetStats();
        t.drops += s.nTotalDroppedPackets;
        t.marks += s.nTotalMarkedPackets;
    }
    return t;
}

inline double
PeakRssMiB()
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss / 1024.0; // Linux: KiB
}

/// CPU time (user + system) of this process so far, in seconds. On a shared machine this is
/// a steadier measure of cost than wall time.
inline double
CpuSeconds()
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

using Clock = std::chrono::steady_clock;

inline double
SecondsSince(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// Writes text to path atomically (temp file, then rename).
inline void
WriteFile(const std::string& path, const std::string& text)
{
    std::string tmp = path + ".tmp";
    {
        std::ofstream f(tmp);
        f << text;
        if (!f)
        {
            NS_FATAL_ERROR("cannot write " << tmp);
        }
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
    {
        NS_FATAL_ERROR("cannot rename " << tmp << " to " << path);
    }
}

inline std::string
ParamsJson(const Params& p)
{
    std::ostringstream o;
    o << "{\"link_gbps\": " << p.linkGbps << ", \"link_delay_us\": " << p.linkDelayUs
      << ", \"buffer_pkts\": " << p.bufferPkts << ", \"ecn_k_pkts\": " << p.ecnK
      << ", \"mss_bytes\": " << p.mss << ", \"init_cwnd_pkts\": " << p.initCwnd
      << ", \"min_rto_us\": " << p.minRtoUs << ", \"initial_rto_us\": " << p.initialRtoUs
      << ", \"sock_buf_bytes\": " << p.sockBufBytes << "}";
    return o.str();
}

/// The `"run"` member of a summary.json: the run's own cost.
inline std::string
RunJson(double totalS, double setupS, double runS, double runCpuS, uint64_t events)
{
    std::ostringstream j;
    j << "  \"run\": {\"wall_s\": " << totalS << ", \"setup_s\": " << setupS
      << ", \"sim_wall_s\": " << runS << ", \"sim_cpu_s\": " << runCpuS
      << ", \"cpu_s\": " << CpuSeconds() << ", \"events\": " << events
      << ", \"link_tx_per_wall_s\": " << g_tx.packets / runS
      << ", \"peak_rss_mib\": " << PeakRssMiB() << "}\n";
    return j.str();
}

} // namespace bench

#endif
