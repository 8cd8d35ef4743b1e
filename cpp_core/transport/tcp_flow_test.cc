#include "transport/tcp_flow.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include "cc/external.h"
#include "cc/newreno.h"
#include "transport/fake_network_for_test.h"

namespace orbitcc {
namespace {

constexpr uint32_t kSeg = 1500;
using Blocks = std::vector<std::pair<uint64_t, uint64_t>>;

class SpyNewReno : public NewReno {
 public:
  using NewReno::NewReno;
  void OnPacketsLost(const LossEvent& loss) override {
    losses.push_back(loss);
    NewReno::OnPacketsLost(loss);
  }
  void OnRetransmissionTimeout(TimeNs now) override {
    ++rtos;
    NewReno::OnRetransmissionTimeout(now);
  }
  std::vector<LossEvent> losses;
  int rtos = 0;
};

// One TCP flow whose sender and receiver halves the test connects by hand.
// The controller is NewReno counting bytes (RFC 3465), IW10 (RFC 6928).
class TcpFlowTest : public ::testing::Test {
 protected:
  // The handshake and the quick ACKs at start are tested on their own; the
  // other tests start established, with every in-order segment delayed.
  void Build(uint64_t total_bytes = kUnlimitedBytes, bool handshake = false,
             uint32_t quickacks = 0) {
    config_.packet_bytes = kSeg;
    config_.pacing = false;
    config_.tcp.handshake = handshake;
    config_.tcp.quickacks = quickacks;
    ControllerContext ctx;
    ctx.mss = kSeg;
    ctx.initial_window_packets = 10;
    auto spy = std::make_unique<SpyNewReno>(ctx);
    spy_ = spy.get();
    flow_ = std::make_unique<TcpFlow>(&net_, 0, config_, total_bytes,
                                      std::move(spy));
    flow_->Start(0);
  }
  void Data(TimeNs t, uint64_t seq) {
    net_.AdvanceTo(t);
    flow_->OnDataArrival(t, net_.LastData(seq));
  }
  void Ack(TimeNs t, const Packet& ack) {
    net_.AdvanceTo(t);
    flow_->OnAckArrival(t, ack);
  }
  Packet LastAck() const { return net_.LastAck(); }
  std::vector<uint64_t> SentSince(size_t first) const {
    std::vector<uint64_t> out;
    const auto data = net_.Data();
    for (size_t i = first; i < data.size(); ++i) {
      out.push_back(data[i].packet.number);
    }
    return out;
  }
  uint64_t Cwnd() const { return flow_->controller().cwnd_bytes(); }

  FakeNetwork net_;
  TransportConfig config_;
  std::unique_ptr<TcpFlow> flow_;
  SpyNewReno* spy_ = nullptr;
};

// RFC 6928: the first flight is ten segments.
TEST_F(TcpFlowTest, InitialWindowIsTenSegments) {
  Build();
  EXPECT_EQ(net_.DataCount(), 10u);
  EXPECT_EQ(flow_->bytes_in_flight(), 10u * kSeg);
}

// RFC 9293: a SYN first; data leaves when the SYN-ACK returns, and that
// round trip is the first RTT sample. A lost SYN is resent after the RTO.
TEST_F(TcpFlowTest, HandshakeTakesOneRoundTripBeforeData) {
  Build(kUnlimitedBytes, /*handshake=*/true);
  ASSERT_EQ(net_.sent().size(), 1u);
  const Packet syn = net_.sent()[0].packet;
  EXPECT_EQ(syn.number, TcpFlow::kSynNumber);
  EXPECT_FALSE(flow_->established());
  net_.AdvanceTo(Seconds(1));  // the SYN was lost: resent, RTO doubled
  ASSERT_EQ(net_.sent().size(), 2u);
  EXPECT_EQ(net_.Deadline(flow_.get(), TcpFlow::kRtoTimer), Seconds(3));
  net_.AdvanceTo(Millis(1025));
  flow_->OnDataArrival(Millis(1025), net_.sent()[1].packet);
  ASSERT_EQ(net_.AckCount(), 1u);  // the SYN-ACK at once
  Ack(Millis(1050), LastAck());
  EXPECT_TRUE(flow_->established());
  EXPECT_FALSE(flow_->rtt().has_sample());  // Karn: the SYN was resent
  const auto data = net_.Data();            // two SYNs, then the first flight
  ASSERT_EQ(data.size(), 12u);
  EXPECT_EQ(data[2].packet.number, 0u);
  EXPECT_EQ(data[2].time, Millis(1050));
}

// RFC 2018 4: every out-of-order arrival is ACKed at once; the first block
// holds the newest segment, then the most recently reported other blocks;
// merged blocks appear once. The ACK grows by the SACK option (2 NOPs + 2 +
// 8 bytes per block).
TEST_F(TcpFlowTest, ReceiverReportsSackBlocksNewestFirst) {
  Build();
  Data(Millis(10), 0);
  EXPECT_EQ(net_.AckCount(), 0u);  // delayed
  Data(Millis(11), 2);
  ASSERT_EQ(net_.AckCount(), 1u);
  EXPECT_EQ(flow_->AckNumber(LastAck()), 1u);
  EXPECT_EQ(flow_->SackBlocks(LastAck()), (Blocks{{2, 3}}));
  EXPECT_EQ(LastAck().bytes, config_.ack_bytes + 4 + 8);
  Data(Millis(12), 5);
  EXPECT_EQ(flow_->SackBlocks(LastAck()), (Blocks{{5, 6}, {2, 3}}));
  Data(Millis(13), 7);
  EXPECT_EQ(flow_->SackBlocks(LastAck()), (Blocks{{7, 8}, {5, 6}, {2, 3}}));
  Data(Millis(14), 9);  // three blocks at most: the oldest drops out
  EXPECT_EQ(flow_->SackBlocks(LastAck()), (Blocks{{9, 10}, {7, 8}, {5, 6}}));
  Data(Millis(15), 3);  // extends [2, 3): that block comes first again
  EXPECT_EQ(flow_->SackBlocks(LastAck()), (Blocks{{2, 4}, {9, 10}, {7, 8}}));
  Data(Millis(16), 1);  // fills the first hole: cumulative 4
  EXPECT_EQ(flow_->AckNumber(LastAck()), 4u);
  EXPECT_EQ(flow_->SackBlocks(LastAck()), (Blocks{{9, 10}, {7, 8}}));
  EXPECT_EQ(LastAck().bytes, config_.ack_bytes + 4 + 16);
}

// RFC 6675 Update / IsLost: a segment is lost once DupThresh (3) segments
// above it are SACKed; a hole with only two SACKed above is not.
TEST_F(TcpFlowTest, IsLostNeedsDupThreshSackedSegmentsAbove) {
  Build();
  for (uint64_t seq : {3, 5, 6}) Data(Millis(10), seq);
  for (const auto& a : net_.Acks()) Ack(Millis(60), a.packet);
  EXPECT_TRUE(flow_->IsSacked(3));
  EXPECT_TRUE(flow_->IsSacked(6));
  EXPECT_EQ(flow_->sacked_segments(), 3u);
  // 0, 1, 2 have three SACKed segments above; 4 has two.
  EXPECT_TRUE(flow_->IsMarkedLost(0));
  EXPECT_TRUE(flow_->IsMarkedLost(2));
  EXPECT_FALSE(flow_->IsMarkedLost(4));
  EXPECT_TRUE(flow_->in_recovery());
  Data(Millis(11), 8);
  Ack(Millis(61), LastAck());
  EXPECT_TRUE(flow_->IsMarkedLost(4));
  EXPECT_FALSE(flow_->IsMarkedLost(7));
  // One congestion event for the whole episode (RFC 6675 5).
  EXPECT_EQ(spy_->losses.size(), 2u);
  EXPECT_EQ(spy_->congestion_signals(), 1u);
}

// RFC 3042: the first and second duplicate ACKs each release one new
// segment beyond cwnd; RFC 6675 (3): with SACK through pipe.
TEST_F(TcpFlowTest, LimitedTransmitSendsNewDataOnEarlyDuplicates) {
  Build();
  Data(Millis(10), 1);
  Ack(Millis(60), LastAck());
  ASSERT_EQ(net_.DataCount(), 11u);
  EXPECT_EQ(net_.Data().back().packet.number, 10u);
  EXPECT_EQ(flow_->state(), TcpFlow::State::kDisorder);
  Data(Millis(11), 2);
  Ack(Millis(61), LastAck());
  ASSERT_EQ(net_.DataCount(), 12u);
  EXPECT_EQ(Cwnd(), 10u * kSeg);  // the window itself is unchanged
}

TEST_F(TcpFlowTest, WithoutLimitedTransmitDuplicatesSendNothing) {
  config_.tcp.limited_transmit = false;
  Build();
  Data(Millis(10), 1);
  Ack(Millis(60), LastAck());
  Data(Millis(11), 2);
  Ack(Millis(61), LastAck());
  EXPECT_EQ(net_.DataCount(), 10u);
}

// RFC 6675 5 + RFC 6937: at the third SACK the head is retransmitted at
// once; while pipe > ssthresh, PRR sends ceil(prr_delivered * ssthresh /
// RecoverFS) - prr_out, i.e. about one segment per two delivered with
// NewReno's halving; the episode ends at RecoveryPoint with cwnd = ssthresh.
TEST_F(TcpFlowTest, ProportionalRateReductionPacesTheRecovery) {
  Build();
  Data(Millis(10), 0);
  Data(Millis(10), 1);
  Ack(Millis(50), LastAck());  // cwnd 12: segments 10..13 go out
  ASSERT_EQ(net_.DataCount(), 14u);
  // Segment 2 is lost; 3..13 arrive and are SACKed one by one.
  size_t acks_seen = net_.AckCount();
  for (uint64_t seq = 3; seq <= 13; ++seq) Data(Millis(60), seq);
  const auto acks = net_.Acks();
  size_t sent = net_.DataCount();
  // Two duplicates: limited transmit sends 14 and 15.
  Ack(Millis(100), acks[acks_seen].packet);
  Ack(Millis(100.01), acks[acks_seen + 1].packet);
  EXPECT_EQ(SentSince(sent), (std::vector<uint64_t>{14, 15}));
  sent = net_.DataCount();
  Ack(Millis(100.02), acks[acks_seen + 2].packet);  // third: recovery
  ASSERT_TRUE(flow_->in_recovery());
  EXPECT_EQ(flow_->recovery_point(), 16u);
  EXPECT_EQ(flow_->controller().ssthresh_bytes(), 6u * kSeg);
  EXPECT_EQ(SentSince(sent), (std::vector<uint64_t>{2}));  // fast retransmit
  // RecoverFS = 14 segments (2..15), ssthresh = 6: while pipe > ssthresh,
  // after d segments delivered PRR has sent ceil(6 d / 14); then the
  // slow-start reduction bound holds pipe at ssthresh (nothing
  // retransmitted has been delivered yet, so sndcnt <= DeliveredData).
  uint64_t delivered = 1;
  for (size_t k = acks_seen + 3; k < acks.size(); ++k) {
    const uint64_t pipe = flow_->bytes_in_flight() / kSeg - 1;  // after SACK
    Ack(Millis(100.03 + 0.01 * k), acks[k].packet);
    ++delivered;
    const uint64_t allowed = (6 * delivered + 13) / 14;
    if (pipe > 6) {
      EXPECT_EQ(SentSince(sent).size(), allowed) << "delivered " << delivered;
    } else {
      EXPECT_LE(SentSince(sent).size(), allowed) << "delivered " << delivered;
      EXPECT_EQ(flow_->bytes_in_flight(), 6u * kSeg);
    }
  }
  EXPECT_EQ(flow_->bytes_in_flight(), 6u * kSeg);
  EXPECT_TRUE(flow_->in_recovery());
  // The repair reaches the receiver: cumulative ACK 14, below
  // RecoveryPoint 16 (segments 14, 15 still in flight).
  Data(Millis(150), 2);
  Ack(Millis(200), LastAck());
  EXPECT_EQ(flow_->snd_una(), 14u);
  EXPECT_TRUE(flow_->in_recovery());
  for (uint64_t seq : {14, 15}) Data(Millis(151), seq);
  Ack(Millis(201), LastAck());
  EXPECT_FALSE(flow_->in_recovery());
  EXPECT_EQ(spy_->congestion_signals(), 1u);
  EXPECT_EQ(flow_->stats().packets_retransmitted, 1u);
}

// RFC 6937's slow-start reduction bound lets an ACK in recovery send more
// than it delivered (catch up to prr_delivered - prr_out + 1, at most
// ssthresh - pipe) only when its cumulative acknowledgment covers
// retransmitted data: ns-3.37 (TcpPrrRecovery with TcpSocketBase's
// m_isRetransDataAcked, set from the segments a partial ACK covers) and
// Linux (FLAG_RETRANS_DATA_ACKED from tcp_clean_rtx_queue; later kernels
// FLAG_SND_UNA_ADVANCED). A SACK of a retransmission does not release it:
// that ACK sends DeliveredData only.
TEST_F(TcpFlowTest, SackOfARetransmissionDoesNotReleaseThePrrCatchUp) {
  Build();
  for (uint64_t seq = 0; seq < 10; ++seq) Data(Millis(10), seq);
  for (const auto& a : net_.Acks()) Ack(Millis(50), a.packet);
  ASSERT_EQ(Cwnd(), 20u * kSeg);  // 10..29 in flight
  // Segment 10 and the run 17..25 are lost; the rest arrive.
  const size_t acks_seen = net_.AckCount();
  for (uint64_t seq = 11; seq < 30; ++seq) {
    if (seq < 17 || seq > 25) Data(Millis(60), seq);
  }
  const auto acks = net_.Acks();
  for (size_t k = acks_seen; k < acks.size(); ++k) {
    Ack(Millis(100) + static_cast<TimeNs>(k) * kNsPerUs, acks[k].packet);
  }
  // The SACKs of 26..29 marked 17..25 lost at once: pipe fell below
  // ssthresh, and since then each ACK has sent what it delivered.
  ASSERT_TRUE(flow_->in_recovery());
  ASSERT_EQ(flow_->controller().ssthresh_bytes(), 10u * kSeg);
  EXPECT_EQ(flow_->bytes_in_flight(), 7u * kSeg);
  EXPECT_EQ(net_.Data().back().packet.number, 18u);
  // The retransmission of 17 arrives and is SACKed: one segment out.
  size_t sent = net_.DataCount();
  Data(Millis(120), 17);
  Ack(Millis(170), LastAck());
  EXPECT_EQ(flow_->snd_una(), 10u);
  EXPECT_EQ(SentSince(sent), (std::vector<uint64_t>{19}));
  EXPECT_EQ(flow_->bytes_in_flight(), 7u * kSeg);
  // The retransmission of 10 arrives: the cumulative ACK covers it, and
  // the bound lets pipe catch up to ssthresh.
  sent = net_.DataCount();
  Data(Millis(121), 10);
  Ack(Millis(171), LastAck());
  EXPECT_EQ(flow_->snd_una(), 18u);
  EXPECT_TRUE(flow_->in_recovery());
  EXPECT_EQ(SentSince(sent), (std::vector<uint64_t>{20, 21, 22, 23}));
  EXPECT_EQ(flow_->bytes_in_flight(), 10u * kSeg);
}

// The NewReno-style alternative: the window is ssthresh for the whole
// episode, so nothing but the fast retransmit leaves until pipe < ssthresh.
TEST_F(TcpFlowTest, NewRenoRecoverySendsWhenPipeFallsBelowSsthresh) {
  config_.tcp.recovery = TcpOptions::Recovery::kNewReno;
  Build();
  Data(Millis(10), 0);
  Data(Millis(10), 1);
  Ack(Millis(50), LastAck());
  const size_t acks_seen = net_.AckCount();
  for (uint64_t seq = 3; seq <= 13; ++seq) Data(Millis(60), seq);
  const auto acks = net_.Acks();
  for (size_t k = acks_seen; k < acks_seen + 3; ++k) {
    Ack(Millis(100 + 0.01 * k), acks[k].packet);
  }
  ASSERT_TRUE(flow_->in_recovery());
  const size_t sent = net_.DataCount();
  // Flight: 2..15 = 14 outstanding, 3 SACKed, 2 lost and resent: pipe 11.
  // Each further SACK lowers pipe by one; at pipe 5 (< ssthresh 6) one new
  // segment may go per SACK.
  for (size_t k = acks_seen + 3; k < acks.size(); ++k) {
    Ack(Millis(100.1 + 0.01 * k), acks[k].packet);
    const uint64_t pipe = 11 - (k - acks_seen - 2);
    const size_t expect = pipe < 6 ? 6 - pipe : 0;
    EXPECT_EQ(net_.DataCount() - sent, expect) << "k " << k;
  }
}

// RFC 6675 5.1: after an RTO every unSACKed segment is lost and resent in
// slow start; SACKed segments are never resent (no go-back-N), and
// RecoveryPoint = HighData.
TEST_F(TcpFlowTest, RtoResendsOnlyUnsackedData) {
  Build();
  Data(Millis(10), 3);
  Data(Millis(10), 6);
  for (const auto& a : net_.Acks()) Ack(Millis(60), a.packet);
  EXPECT_EQ(flow_->sacked_segments(), 2u);
  size_t sent = net_.DataCount();
  net_.AdvanceTo(Seconds(1));  // initial RTO: 1 s (RFC 6298 2.1)
  EXPECT_EQ(spy_->rtos, 1);
  EXPECT_EQ(flow_->state(), TcpFlow::State::kLoss);
  // Limited transmit sent 10 and 11 on the two SACKs.
  EXPECT_EQ(flow_->recovery_point(), 12u);
  EXPECT_EQ(Cwnd(), 1u * kSeg);
  // RFC 5681 eq. 4: ssthresh = max(FlightSize / 2, 2 SMSS), pipe 10.
  EXPECT_EQ(flow_->controller().ssthresh_bytes(), 5u * kSeg);
  EXPECT_EQ(SentSince(sent), (std::vector<uint64_t>{0}));
  std::set<uint64_t> resent = {0};
  // Repair in slow start until RecoveryPoint is acknowledged.
  for (int round = 0; round < 6 && flow_->snd_una() < 12; ++round) {
    sent = net_.DataCount();
    const auto data = net_.Data();
    const TimeNs t = Seconds(1) + Millis(100 * (round + 1));
    for (size_t i = 0; i < data.size(); ++i) {
      if (data[i].time >= t - Millis(100)) Data(t, data[i].packet.number);
    }
    Ack(t + Millis(50), LastAck());
    for (uint64_t s : SentSince(sent)) {
      if (s < 12) resent.insert(s);
    }
  }
  EXPECT_GE(flow_->snd_una(), 12u);
  EXPECT_EQ(flow_->state(), TcpFlow::State::kOpen);
  EXPECT_EQ(resent, (std::set<uint64_t>{0, 1, 2, 4, 5, 7, 8, 9, 10, 11}));
  EXPECT_EQ(flow_->stats().packets_retransmitted, 10u);
}

// RFC 8985 6.2 (option rack): once data sent a quarter RTT after a
// retransmission is delivered, the retransmission is lost too and goes
// again at once; without it (ns-3.37) only the RTO repairs it.
TEST_F(TcpFlowTest, RackResendsALostRetransmissionWithoutTimeout) {
  for (bool rack : {true, false}) {
    SCOPED_TRACE(rack);
    net_ = FakeNetwork();
    config_.tcp.rack = rack;
    Build();
    Data(Millis(10), 0);
    Data(Millis(10), 1);
    Ack(Millis(20), LastAck());  // min RTT 20 ms; 10..13 sent at 20 ms
    for (uint64_t seq : {3, 4, 5}) Data(Millis(30), seq);
    for (size_t k = 1; k < net_.AckCount(); ++k) {
      Ack(Millis(40), net_.Acks()[k].packet);
    }
    ASSERT_TRUE(flow_->in_recovery());
    ASSERT_EQ(net_.Data().back().packet.number, 2u);  // resent at 40 ms: lost
    size_t acks = net_.AckCount();
    for (uint64_t seq : {6, 7, 8, 9, 10, 11, 12, 13}) Data(Millis(50), seq);
    for (size_t k = acks; k < net_.AckCount(); ++k) {
      Ack(Millis(60), net_.Acks()[k].packet);
    }
    // PRR released new data at 60 ms; it arrives and is SACKed at 80 ms.
    std::vector<uint64_t> fresh;
    for (const auto& d : net_.Data()) {
      if (d.time == Millis(60)) fresh.push_back(d.packet.number);
    }
    ASSERT_FALSE(fresh.empty());
    EXPECT_GE(fresh.front(), 14u);
    acks = net_.AckCount();
    for (uint64_t seq : fresh) Data(Millis(70), seq);
    const size_t sent = net_.DataCount();
    for (size_t k = acks; k < net_.AckCount(); ++k) {
      Ack(Millis(80), net_.Acks()[k].packet);
    }
    const auto again = SentSince(sent);
    const bool resent_2 =
        std::find(again.begin(), again.end(), 2u) != again.end();
    EXPECT_EQ(resent_2, rack);
    EXPECT_EQ(flow_->stats().timeouts, 0u);
  }
}

// RFC 6298: RTO = max(srtt + max(G, 4 rttvar), min RTO), 1 s before any
// sample, doubled per expiry up to max RTO; a second expiry keeps ssthresh
// (RFC 5681 3.1). The minimum is 1 s (ns-3, RFC 6298 2.4) unless set.
TEST_F(TcpFlowTest, RtoComputationMinimumAndBackoff) {
  Build();
  EXPECT_EQ(flow_->CurrentRto(), Seconds(1));
  Data(Millis(10), 0);
  Data(Millis(10), 1);
  Ack(Millis(20), LastAck());  // sample 20 ms -> 20 + 40 = 60 ms < 1 s
  EXPECT_EQ(flow_->rtt().smoothed(), Millis(20));
  EXPECT_EQ(flow_->CurrentRto(), Seconds(1));
  EXPECT_EQ(net_.Deadline(flow_.get(), TcpFlow::kRtoTimer),
            Millis(20) + Seconds(1));
  net_.AdvanceTo(Millis(1020));
  EXPECT_EQ(flow_->CurrentRto(), Seconds(2));
  EXPECT_EQ(flow_->controller().ssthresh_bytes(), 6u * kSeg);
  net_.AdvanceTo(Millis(3020));
  EXPECT_EQ(spy_->rtos, 1);  // the second expiry does not cut again
  EXPECT_EQ(flow_->stats().timeouts, 2u);
  EXPECT_EQ(flow_->CurrentRto(), Seconds(4));
  for (int i = 0; i < 10; ++i) {
    net_.AdvanceTo(net_.Deadline(flow_.get(), TcpFlow::kRtoTimer));
  }
  EXPECT_EQ(flow_->CurrentRto(), config_.max_rto);
}

TEST_F(TcpFlowTest, LinuxMinimumRtoIsAnOption) {
  config_.min_rto = Millis(200);
  Build();
  Data(Millis(50), 0);
  Data(Millis(50), 1);
  Ack(Millis(100), LastAck());  // srtt 100, rttvar 50: 300 ms
  EXPECT_EQ(flow_->CurrentRto(), Millis(300));
}

// RFC 7323: the ACK of a retransmission echoes the retransmission's time,
// so srtt keeps learning through losses (Karn's rule alone would take no
// sample and freeze it).
TEST_F(TcpFlowTest, TimestampsGiveRttSamplesFromRetransmissions) {
  for (bool timestamps : {true, false}) {
    SCOPED_TRACE(timestamps);
    net_ = FakeNetwork();
    config_.tcp.timestamps = timestamps;
    Build();
    Data(Millis(10), 0);
    Data(Millis(10), 1);
    Ack(Millis(20), LastAck());
    ASSERT_EQ(flow_->rtt().stats().latest, Millis(20));
    for (uint64_t seq : {3, 4, 5}) Data(Millis(30), seq);
    for (size_t k = 1; k < net_.AckCount(); ++k) {
      Ack(Millis(40), net_.Acks()[k].packet);
    }
    ASSERT_TRUE(flow_->in_recovery());
    ASSERT_EQ(net_.Data().back().packet.number, 2u);  // resent at 40 ms
    Data(Millis(100), 2);                             // arrives 60 ms later
    Ack(Millis(160), LastAck());
    EXPECT_EQ(flow_->snd_una(), 6u);
    EXPECT_EQ(flow_->rtt().stats().latest,
              timestamps ? Millis(120) : Millis(20));
  }
}

// With timestamps a delayed ACK echoes the first unacknowledged segment
// (RFC 7323 4.3), so the sample includes the receiver's delay.
TEST_F(TcpFlowTest, DelayedAckSampleIncludesTheDelay) {
  Build();
  Data(Millis(10), 0);
  net_.AdvanceTo(Millis(210));  // ns-3's 200 ms delayed-ACK timeout
  ASSERT_EQ(net_.AckCount(), 1u);
  Ack(Millis(220), LastAck());
  EXPECT_EQ(flow_->rtt().stats().latest, Millis(220));
}

// RFC 5681 4.2 with ns-3's DelAckCount = 2 and DelAckTimeout = 200 ms:
// every second segment, else after the timer; immediately for out-of-order
// data, for duplicates and while a hole is open.
TEST_F(TcpFlowTest, DelayedAckPolicy) {
  Build();
  Data(Millis(10), 0);
  EXPECT_EQ(net_.AckCount(), 0u);
  EXPECT_EQ(net_.Deadline(flow_.get(), TcpFlow::kDelayedAckTimer), Millis(210));
  Data(Millis(20), 1);
  ASSERT_EQ(net_.AckCount(), 1u);
  EXPECT_EQ(flow_->AckNumber(LastAck()), 2u);
  Data(Millis(30), 2);
  net_.AdvanceTo(Millis(230) - 1);
  EXPECT_EQ(net_.AckCount(), 1u);
  net_.AdvanceTo(Millis(230));
  ASSERT_EQ(net_.AckCount(), 2u);
  EXPECT_EQ(net_.Acks().back().time, Millis(230));
  Data(Millis(240), 4);  // out of order: at once
  EXPECT_EQ(net_.AckCount(), 3u);
  Data(Millis(241), 3);  // fills the hole: at once
  ASSERT_EQ(net_.AckCount(), 4u);
  EXPECT_EQ(flow_->AckNumber(LastAck()), 5u);
  Data(Millis(242), 3);  // a duplicate: at once
  EXPECT_EQ(net_.AckCount(), 5u);
}

// ns-3 primes its delayed-ACK counter when the connection is established,
// so the first data segment is ACKed alone (TcpOptions::quickacks = 1);
// after it the pairs are (1, 2), (3, 4), ... where they would be (0, 1),
// (2, 3), ... Linux's quick-ACK mode ACKs up to 16 segments at once.
TEST_F(TcpFlowTest, QuickAcksAtStartShiftTheDelayedAckPairs) {
  Build(kUnlimitedBytes, /*handshake=*/false, /*quickacks=*/1);
  Data(Millis(10), 0);
  ASSERT_EQ(net_.AckCount(), 1u);  // at once
  EXPECT_EQ(flow_->AckNumber(LastAck()), 1u);
  Data(Millis(11), 1);
  EXPECT_EQ(net_.AckCount(), 1u);  // now delayed: the timer runs
  EXPECT_EQ(net_.Deadline(flow_.get(), TcpFlow::kDelayedAckTimer), Millis(211));
  Data(Millis(12), 2);
  ASSERT_EQ(net_.AckCount(), 2u);
  EXPECT_EQ(flow_->AckNumber(LastAck()), 3u);
  Data(Millis(13), 3);  // the quick ACKs are spent: one per two segments
  EXPECT_EQ(net_.AckCount(), 2u);
  Data(Millis(14), 4);
  EXPECT_EQ(net_.AckCount(), 3u);

  net_ = FakeNetwork();
  Build(kUnlimitedBytes, /*handshake=*/false, /*quickacks=*/3);
  for (uint64_t s = 0; s < 5; ++s) Data(Millis(10 + s), s);
  // Segments 0, 1 and 2 ACKed one by one, then 3 and 4 together.
  ASSERT_EQ(net_.AckCount(), 4u);
  EXPECT_EQ(flow_->AckNumber(net_.Acks()[2].packet), 3u);
  EXPECT_EQ(flow_->AckNumber(LastAck()), 5u);
}

// Out-of-order data is ACKed at once anyway and does not spend a quick ACK.
TEST_F(TcpFlowTest, OutOfOrderDataDoesNotSpendTheQuickAck) {
  Build(kUnlimitedBytes, /*handshake=*/false, /*quickacks=*/1);
  Data(Millis(10), 1);  // segment 0 is late
  ASSERT_EQ(net_.AckCount(), 1u);
  EXPECT_EQ(flow_->AckNumber(LastAck()), 0u);
  Data(Millis(11), 0);  // fills the hole: at once (RFC 5681 4.2)
  ASSERT_EQ(net_.AckCount(), 2u);
  EXPECT_EQ(flow_->AckNumber(LastAck()), 2u);
  Data(Millis(12), 2);  // the first in-order arrival: the quick ACK
  EXPECT_EQ(net_.AckCount(), 3u);
  Data(Millis(13), 3);
  EXPECT_EQ(net_.AckCount(), 3u);
}

TEST_F(TcpFlowTest, DelayedAckCountAndTimerAreOptions) {
  config_.tcp.delack_count = 1;
  Build();
  Data(Millis(10), 0);
  EXPECT_EQ(net_.AckCount(), 1u);
  net_ = FakeNetwork();
  config_.tcp.delack_count = 3;
  config_.tcp.delack_timeout = Millis(40);
  Build();
  Data(Millis(10), 0);
  Data(Millis(11), 1);
  EXPECT_EQ(net_.AckCount(), 0u);
  net_.AdvanceTo(Millis(50));
  EXPECT_EQ(net_.AckCount(), 1u);
}

// Duplicate segments (a spurious retransmission) are ACKed at once but SACK
// nothing new, so they are not duplicate ACKs (RFC 6675 2) and start no
// recovery: the cascade the issue saw (cwnd 423 -> 212 -> 106 without a
// drop) cannot happen.
TEST_F(TcpFlowTest, DuplicateSegmentsStartNoFastRetransmit) {
  Build();
  for (uint64_t seq = 0; seq < 10; ++seq) Data(Millis(10), seq);
  // The ACKs are late: the RTO fires and resends segment 0.
  net_.AdvanceTo(Seconds(1));
  ASSERT_EQ(flow_->state(), TcpFlow::State::kLoss);
  for (const auto& a : net_.Acks()) Ack(Seconds(1) + Millis(1), a.packet);
  EXPECT_EQ(flow_->snd_una(), 10u);
  EXPECT_EQ(flow_->state(), TcpFlow::State::kOpen);
  const uint64_t cwnd = Cwnd();
  // Three duplicates of old data reach the receiver.
  for (int k = 0; k < 3; ++k) {
    Data(Seconds(1) + Millis(10), 0);
    Ack(Seconds(1) + Millis(20), LastAck());
  }
  EXPECT_EQ(flow_->state(), TcpFlow::State::kOpen);
  EXPECT_TRUE(spy_->losses.empty());
  EXPECT_EQ(Cwnd(), cwnd);
}

// Without SACK (RFC 6582): three duplicate ACKs retransmit the head, each
// duplicate counts as a segment that left the network, a partial ACK
// retransmits the next hole at once.
TEST_F(TcpFlowTest, NewRenoWithoutSackRetransmitsOneHolePerPartialAck) {
  config_.tcp.sack = false;
  Build();
  for (uint64_t seq : {0, 1, 3, 5, 6, 7, 8, 9}) Data(Millis(10), seq);
  const auto acks = net_.Acks();  // ack 2 after seg 1, then 6 duplicates
  ASSERT_EQ(acks.size(), 7u);
  for (const auto& a : acks) EXPECT_EQ(flow_->AckNumber(a.packet), 2u);
  size_t sent = net_.DataCount();
  Ack(Millis(60), acks[0].packet);  // cwnd 12: 10..13
  EXPECT_EQ(SentSince(sent).size(), 2u + 2u);
  sent = net_.DataCount();
  Ack(Millis(60.1), acks[1].packet);
  Ack(Millis(60.2), acks[2].packet);
  EXPECT_EQ(SentSince(sent), (std::vector<uint64_t>{14, 15}));  // RFC 3042
  sent = net_.DataCount();
  Ack(Millis(60.3), acks[3].packet);
  EXPECT_TRUE(flow_->in_recovery());
  EXPECT_EQ(SentSince(sent), (std::vector<uint64_t>{2}));
  for (size_t k = 4; k < acks.size(); ++k) Ack(Millis(60.4), acks[k].packet);
  Data(Millis(70), 2);  // cumulative 4: partial (RecoveryPoint 16)
  sent = net_.DataCount();
  Ack(Millis(120), LastAck());
  EXPECT_TRUE(flow_->in_recovery());
  ASSERT_FALSE(SentSince(sent).empty());
  EXPECT_EQ(SentSince(sent).front(), 4u);
  EXPECT_EQ(spy_->congestion_signals(), 1u);
}

// End to end over a lossy fake path, with and without SACK: the file
// arrives complete, and SACK resends nothing the receiver already holds.
TEST_F(TcpFlowTest, LossyTransferCompletes) {
  for (bool sack : {true, false}) {
    SCOPED_TRACE(sack);
    net_ = FakeNetwork();
    config_.tcp.sack = sack;
    const uint64_t total = 400 * config_.payload();
    Build(total);
    std::set<uint64_t> dropped_once;
    std::set<uint64_t> arrived;
    uint64_t duplicates = 0;
    int acks = 0;
    net_.AutoDeliver(flow_.get(), Millis(15), [&](const Packet& p) {
      if (p.is_ack) return ++acks % 9 == 0;
      const bool drop =
          p.number % 23 == 5 && dropped_once.insert(p.number).second;
      if (!drop && !arrived.insert(p.number).second) ++duplicates;
      return drop;
    });
    for (const auto& s : net_.Data()) flow_->OnDataArrival(0, s.packet);
    net_.AdvanceTo(Seconds(60));
    EXPECT_EQ(flow_->goodput_bytes(), total);
    EXPECT_GE(flow_->completion_time(), 0);
    EXPECT_GE(flow_->stats().packets_retransmitted, dropped_once.size());
    if (sack) {
      EXPECT_EQ(duplicates, 0u);
    }
  }
}

// Issue 14 (bounded memory): a hole that is never repaired (every copy of
// segment 0 is lost) while everything above it is SACKed. SACKed segments
// leave pipe, so a window check on pipe alone lets new data go out for ever
// and the scoreboard [snd_una, high_data) grows without bound. The
// receiver's buffer counts from SND.UNA (RFC 9293 3.8.6): at most 2^30 B,
// here 2^30 / 65535 = 16384 segments, whatever the window.
TEST(TcpFlowBoundTest, ScoreboardStaysWithinTheReceiveBufferBehindAHole) {
  FakeNetwork net;
  TransportConfig config;
  config.packet_bytes = 65535;
  config.pacing = false;
  config.tcp.handshake = false;
  ControllerContext ctx;
  ctx.mss = config.packet_bytes;
  ctx.initial_window_packets = 10;
  auto controller = std::make_unique<External>(ctx);
  controller->SetWindow(uint64_t{1} << 40);
  TcpFlow flow(&net, 0, config, kUnlimitedBytes, std::move(controller));
  net.AutoDeliver(&flow, Millis(1),
                  [](const Packet& p) { return !p.is_ack && p.number == 0; });
  flow.Start(0);
  const uint64_t limit = kMaxReceiveWindowBytes / config.packet_bytes;
  net.AdvanceTo(Seconds(2));
  EXPECT_EQ(flow.snd_una(), 0u);           // the hole is still there
  EXPECT_GE(flow.high_data(), limit - 1);  // the buffer was filled ...
  EXPECT_LE(flow.high_data() - flow.snd_una(), limit);  // ... not exceeded
}

TEST(TcpOptionsTest, DefaultsAreNs3s) {
  TransportConfig tc;
  tc.packet_bytes = 1502;
  ApplyTcpParams({}, &tc);
  EXPECT_TRUE(tc.tcp.sack);
  EXPECT_EQ(tc.tcp.recovery, TcpOptions::Recovery::kPrr);
  EXPECT_TRUE(tc.tcp.timestamps);
  EXPECT_TRUE(tc.tcp.limited_transmit);
  EXPECT_EQ(tc.tcp.delack_count, 2u);
  EXPECT_EQ(tc.tcp.delack_timeout, Millis(200));
  EXPECT_EQ(tc.tcp.quickacks, 1u);
  EXPECT_EQ(tc.min_rto, Seconds(1));
  EXPECT_EQ(tc.header_bytes, 54u);
  EXPECT_EQ(tc.payload(), 1448u);
  EXPECT_EQ(tc.ack_bytes, 54u);
}

TEST(TcpOptionsTest, ParsesEveryOptionAndRejectsBadOnes) {
  TransportConfig tc;
  ApplyTcpParams({{"sack", 0},
                  {"recovery", 1},
                  {"timestamps", 0},
                  {"limited_transmit", 0},
                  {"dupthresh", 4},
                  {"delack_count", 1},
                  {"delack_timeout_ms", 40},
                  {"quickacks", 16},
                  {"min_rto_ms", 200},
                  {"header_bytes", 40},
                  {"ack_bytes", 40},
                  {"max_sack_blocks", 4}},
                 &tc);
  EXPECT_FALSE(tc.tcp.sack);
  EXPECT_EQ(tc.tcp.recovery, TcpOptions::Recovery::kNewReno);
  EXPECT_FALSE(tc.tcp.timestamps);
  EXPECT_FALSE(tc.tcp.limited_transmit);
  EXPECT_EQ(tc.tcp.dupthresh, 4u);
  EXPECT_EQ(tc.tcp.delack_count, 1u);
  EXPECT_EQ(tc.tcp.delack_timeout, Millis(40));
  EXPECT_EQ(tc.tcp.quickacks, 16u);
  EXPECT_EQ(tc.min_rto, Millis(200));
  EXPECT_EQ(tc.header_bytes, 40u);
  EXPECT_EQ(tc.tcp.max_sack_blocks, 4u);
  TransportConfig bad;
  EXPECT_THROW(ApplyTcpParams({{"sak", 1}}, &bad), std::invalid_argument);
  EXPECT_THROW(ApplyTcpParams({{"sack", 2}}, &bad), std::invalid_argument);
  EXPECT_THROW(ApplyTcpParams({{"dupthresh", 2.5}}, &bad),
               std::invalid_argument);
  EXPECT_THROW(ApplyTcpParams({{"quickacks", -1}}, &bad),
               std::invalid_argument);
  EXPECT_THROW(
      ApplyTcpParams({{"min_rto_ms", 2000}, {"max_rto_ms", 1000}}, &bad),
      std::invalid_argument);
  try {
    ApplyTcpParams({{"sak", 1}}, &bad);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'sak'"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("sack"), std::string::npos);
  }
}

}  // namespace
}  // namespace orbitcc
