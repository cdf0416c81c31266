// Prints the attributes (with defaults) of the ns-3 types the scenarios configure.
// A check that the toolchain works, and the reference for the settings in README.md.
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    std::vector<std::string> names = {"ns3::TcpSocket",      "ns3::TcpSocketBase",
                                      "ns3::TcpDctcp",       "ns3::TcpL4Protocol",
                                      "ns3::RttEstimator",   "ns3::RttMeanDeviation",
                                      "ns3::RedQueueDisc",   "ns3::PointToPointNetDevice",
                                      "ns3::Ipv4GlobalRouting", "ns3::BulkSendApplication",
                                      "ns3::TcpSocketState"};
    for (int i = 1; i < argc; ++i)
    {
        names.push_back(argv[i]);
    }
    for (const auto& n : names)
    {
        TypeId tid;
        if (!TypeId::LookupByNameFailSafe(n, &tid))
        {
            std::cout << n << ": (not found)\n";
            continue;
        }
        std::cout << n << " (parent " << tid.GetParent().GetName() << ")\n";
        for (uint32_t j = 0; j < tid.GetAttributeN(); ++j)
        {
            auto info = tid.GetAttribute(j);
            std::cout << "  " << info.name << " = "
                      << (info.initialValue ? info.checker->GetValueTypeName() + " " +
                                                  info.initialValue->SerializeToString(info.checker)
                                            : std::string("?"))
                      << "   // " << info.help << "\n";
        }
        for (uint32_t j = 0; j < tid.GetTraceSourceN(); ++j)
        {
            auto t = tid.GetTraceSource(j);
            std::cout << "  [trace] " << t.name << "   // " << t.help << "\n";
        }
    }
    return 0;
}
