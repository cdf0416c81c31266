// An optional correction of ns-3.44's SACK emulation for connections without SACK
// (`--renoSackFix=1`), applied by symbol interposition: nothing in ns-3 is rebuilt.
//
// What ns-3 does. Without SACK, ns-3 counts each duplicate ACK as a SACK of one segment
// (TcpTxBuffer::AddRenoSack marks the first unmarked segment after the head). In CA_DISORDER
// (one or two dupACKs) this is how it lets limited-transmit segments out. When the next
// cumulative ACK arrives, nothing clears those marks. TcpTxBuffer::DiscardUpTo then finds the
// new head marked, takes that as a wrong guess, moves the mark one segment up and marks the
// head as lost, and SendPendingData resends it. The head had not been lost. Its copy reaches
// the receiver as a duplicate, which brings a dupACK and a new mark, so the next new ACK resends
// its head too. Three such dupACKs start a fast recovery, which halves the window. The chain
// runs until a timeout. A full ACK that ends a fast recovery does the same.
//
// What RFC 5681/6582 (and dcnsim) do. A new cumulative ACK resets the duplicate-ACK count
// (RFC 5681 §3.2), and an ACK that covers `recover` ends recovery without a retransmission
// (RFC 6582 §3.2 step 3).
//
// The fix. Before ns-3 discards acknowledged data, the ACK is checked against the sender's
// state. If it is new and the sender is in CA_DISORDER, or it is a full ACK in CA_RECOVERY,
// the invented SACK marks are cleared (TcpTxBuffer::ResetRenoSack, a public method). Partial
// ACKs in recovery keep ns-3's own handling. Only the senders registered with
// RenoSackFix::Watch are touched.
//
// How. The executable defines ns3::TcpTxBuffer::DiscardUpTo. Linked with -rdynamic, that
// definition comes first in symbol lookup, so libns3-internet's calls through its PLT reach it
// (objdump -R shows DiscardUpTo as a JUMP_SLOT of that library). The original is found with
// dlsym(RTLD_NEXT) and called afterwards. The sender's state comes from its public
// "CongState" and "HighestSequence" traces. ns-3's m_recover is the highest sequence at the
// moment the state becomes CA_RECOVERY (TcpSocketBase::EnterRecovery).
#pragma once

#include "ns3/tcp-socket-base.h"
#include "ns3/tcp-tx-buffer.h"

#include <dlfcn.h>
#include <unordered_map>

namespace RenoSackFix
{

struct Sender
{
    ns3::TcpSocketState::TcpCongState_t state = ns3::TcpSocketState::CA_OPEN;
    ns3::SequenceNumber32 highTx{0};
    ns3::SequenceNumber32 recover{0};
};

inline bool g_enabled = false;
inline uint64_t g_resets = 0; // ACKs at which invented marks were cleared
inline std::unordered_map<const ns3::TcpTxBuffer*, Sender> g_senders;

inline void
OnCongState(Sender* s, ns3::TcpSocketState::TcpCongState_t, ns3::TcpSocketState::TcpCongState_t n)
{
    if (n == ns3::TcpSocketState::CA_RECOVERY && s->state != ns3::TcpSocketState::CA_RECOVERY)
    {
        s->recover = s->highTx;
    }
    s->state = n;
}

inline void
OnHighestSequence(Sender* s, ns3::SequenceNumber32, ns3::SequenceNumber32 n)
{
    s->highTx = n;
}

/// Applies the fix to this sender's socket (call once the socket exists).
inline void
Watch(ns3::Ptr<ns3::TcpSocketBase> socket)
{
    Sender* s = &g_senders[ns3::PeekPointer(socket->GetTxBuffer())];
    socket->TraceConnectWithoutContext("CongState", ns3::MakeBoundCallback(&OnCongState, s));
    socket->TraceConnectWithoutContext("HighestSequence",
                                       ns3::MakeBoundCallback(&OnHighestSequence, s));
}

} // namespace RenoSackFix

void
ns3::TcpTxBuffer::DiscardUpTo(const SequenceNumber32& seq,
                              const Callback<void, TcpTxItem*>& beforeDelCb)
{
    using Original =
        void (*)(TcpTxBuffer*, const SequenceNumber32&, const Callback<void, TcpTxItem*>&);
    static const auto original = reinterpret_cast<Original>(dlsym(
        RTLD_NEXT,
        "_ZN3ns311TcpTxBuffer11DiscardUpToERKNS_14SequenceNumberIjiEERKNS_8CallbackIvJPNS_"
        "9TcpTxItemEEEE"));
    NS_ABORT_MSG_IF(original == nullptr, "reno_sack_fix: ns-3's DiscardUpTo not found");
    if (RenoSackFix::g_enabled && seq > HeadSequence())
    {
        auto it = RenoSackFix::g_senders.find(this);
        if (it != RenoSackFix::g_senders.end())
        {
            const auto& s = it->second;
            bool endsDisorder = s.state == TcpSocketState::CA_DISORDER;
            bool fullAck = s.state == TcpSocketState::CA_RECOVERY && seq >= s.recover;
            if (endsDisorder || fullAck)
            {
                ResetRenoSack();
                ++RenoSackFix::g_resets;
            }
        }
    }
    original(this, seq, beforeDelCb);
}
