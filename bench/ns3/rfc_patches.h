// Two optional corrections of ns-3.44's TCP towards RFC 5681/6582/3168 and Linux, applied by
// symbol interposition: nothing in ns-3 is rebuilt. Off unless asked for.
//
// 1. `--renoSackFix=1`: invented SACK marks.
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
// ACKs in recovery keep ns-3's own handling.
//
// 2. `--cwrFix=1`: duplicate ACKs after an ECN window reduction (DCTCP).
//
// What ns-3 does. After an ECE, the sender is in CA_CWR until the ACK passes the highest
// sequence sent at the cut. TcpSocketBase::DupAck counts duplicate ACKs there but acts on none,
// so a loss in that window waits for the retransmission timer, and the go-back-N after it
// resends a window the receiver mostly holds.
//
// What RFC 3168 §6.1.2, RFC 8257 §3.5 and Linux (and dcnsim) do. The third duplicate ACK
// starts fast retransmit and recovery as in any other state, and the window is reduced once
// for both signals: the recovery keeps the ECN cut's ssthresh.
//
// The fix. At the third duplicate ACK in CA_CWR, TcpSocketBase::EnterRecovery is called (ns-3's
// own entry into fast recovery: retransmission of the head, recover point, window inflation),
// then the ssthresh of the ECN cut is put back in place of the new one EnterRecovery computed.
// Only a CA_CWR entered from CA_OPEN or CA_DISORDER, with no segment marked lost: ns-3 also
// enters CA_CWR from CA_LOSS and CA_RECOVERY on an ECE, which Linux does not.
//
// How. The executable defines ns3::TcpTxBuffer::DiscardUpTo. Linked with -rdynamic, that
// definition comes first in symbol lookup, so libns3-internet's calls through its PLT reach it
// (objdump -R shows DiscardUpTo as a JUMP_SLOT of that library). ns-3 calls it on every ACK
// before it processes the ACK. The original is found with dlsym(RTLD_NEXT) and called
// afterwards. The sender's state comes from its public "CongState" and "HighestSequence"
// traces; ns-3's m_recover is the highest sequence at the moment the state becomes CA_RECOVERY
// (TcpSocketBase::EnterRecovery). Only the senders registered with RfcPatches::Watch are
// touched.
#pragma once

#include "ns3/tcp-socket-base.h"
#include "ns3/tcp-tx-buffer.h"

#include <dlfcn.h>
#include <unordered_map>

namespace RfcPatches
{

struct Sender
{
    ns3::TcpSocketBase* socket = nullptr;
    ns3::TcpSocketState::TcpCongState_t state = ns3::TcpSocketState::CA_OPEN;
    ns3::SequenceNumber32 highTx{0};
    ns3::SequenceNumber32 recover{0};
    uint32_t cwrDupAcks = 0;
    bool cwrFromOpen = false; // CA_CWR entered from CA_OPEN or CA_DISORDER
};

inline bool g_renoSackFix = false;
inline bool g_cwrFix = false;
inline uint64_t g_sackResets = 0;    // ACKs at which invented marks were cleared
inline uint64_t g_cwrRecoveries = 0; // fast recoveries started from CA_CWR
inline std::unordered_map<const ns3::TcpTxBuffer*, Sender> g_senders;

/// Reaches TcpSocketBase's protected members (the congestion state, EnterRecovery).
struct SocketAccess : ns3::TcpSocketBase
{
    static ns3::Ptr<ns3::TcpSocketState> Tcb(ns3::TcpSocketBase* s)
    {
        return s->*(&SocketAccess::m_tcb);
    }

    static void StartRecovery(ns3::TcpSocketBase* s)
    {
        (s->*(&SocketAccess::EnterRecovery))(0);
    }
};

inline void
OnCongState(Sender* s,
            ns3::TcpSocketState::TcpCongState_t old,
            ns3::TcpSocketState::TcpCongState_t n)
{
    if (n == ns3::TcpSocketState::CA_CWR)
    {
        // ns-3 also enters CA_CWR from CA_LOSS and CA_RECOVERY on an ECE (Linux does not);
        // the patch leaves those alone.
        s->cwrFromOpen =
            old == ns3::TcpSocketState::CA_OPEN || old == ns3::TcpSocketState::CA_DISORDER;
    }
    if (n == ns3::TcpSocketState::CA_RECOVERY && s->state != ns3::TcpSocketState::CA_RECOVERY)
    {
        s->recover = s->highTx;
    }
    s->state = n;
    s->cwrDupAcks = 0;
}

/// Patch 2: the third duplicate ACK in CA_CWR starts a fast recovery that keeps the ECN cut.
inline void
OnCwrAck(Sender& s, bool duplicate)
{
    if (!duplicate)
    {
        s.cwrDupAcks = 0;
        return;
    }
    if (++s.cwrDupAcks < 3)
    {
        return;
    }
    ns3::Ptr<ns3::TcpSocketState> tcb = SocketAccess::Tcb(s.socket);
    uint32_t cut = tcb->m_ssThresh;
    SocketAccess::StartRecovery(s.socket);
    // ns-3's classic recovery has set cwnd = ssthresh and inflated by the two dupACKs counted
    // so far; the one being processed adds the third.
    tcb->m_ssThresh = cut;
    tcb->m_cWnd = cut;
    tcb->m_cWndInfl = cut + 2 * tcb->m_segmentSize;
    ++g_cwrRecoveries;
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
    s->socket = ns3::PeekPointer(socket);
    socket->TraceConnectWithoutContext("CongState", ns3::MakeBoundCallback(&OnCongState, s));
    socket->TraceConnectWithoutContext("HighestSequence",
                                       ns3::MakeBoundCallback(&OnHighestSequence, s));
}

} // namespace RfcPatches

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
    NS_ABORT_MSG_IF(original == nullptr, "rfc_patches: ns-3's DiscardUpTo not found");
    auto it = RfcPatches::g_senders.find(this);
    if (it != RfcPatches::g_senders.end())
    {
        auto& s = it->second;
        if (RfcPatches::g_renoSackFix && seq > HeadSequence())
        {
            bool endsDisorder = s.state == TcpSocketState::CA_DISORDER;
            bool fullAck = s.state == TcpSocketState::CA_RECOVERY && seq >= s.recover;
            if (endsDisorder || fullAck)
            {
                ResetRenoSack();
                ++RfcPatches::g_sackResets;
            }
        }
        if (RfcPatches::g_cwrFix && s.state == TcpSocketState::CA_CWR && s.cwrFromOpen &&
            GetLost() == 0)
        {
            RfcPatches::OnCwrAck(s, seq == HeadSequence() && seq < s.highTx);
        }
    }
    original(this, seq, beforeDelCb);
}
