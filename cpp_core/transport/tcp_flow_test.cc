#include "transport/tcp_flow.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <vector>

#include "cc/newreno.h"
#include "transport/fake_network_for_test.h"

namespace orbitcc {
namespace {

constexpr uint32_t kSeg = 1500;
constexpr uint32_t kPayload = 1460;

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
class TcpFlowTest : public ::testing::Test {
 protected:
  void Build(uint64_t total_bytes = kUnlimitedBytes) {
    config_.packet_bytes = kSeg;
    config_.pacing = false;
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
  Packet LastAck() const {
    const auto acks = net_.Acks();
    EXPECT_FALSE(acks.empty());
    return acks.empty() ? Packet{} : acks.back().packet;
  }
  uint64_t Cwnd() const { return flow_->controller().cwnd_bytes(); }

  FakeNetwork net_;
  TransportConfig config_;
  std::unique_ptr<TcpFlow> flow_;
  SpyNewReno* spy_ = nullptr;
};

// RFC 5681 3.2 / RFC 6582: the third duplicate ACK retransmits snd_una,
// ssthresh = cwnd / 2 and the window is inflated by one segment per
// duplicate ACK, so new data flows once the inflated window exceeds the
// flight.
TEST_F(TcpFlowTest, ThreeDupAcksTriggerFastRetransmitWithInflation) {
  Build();
  ASSERT_EQ(net_.DataCount(), 10u);
  for (uint64_t seq : {0, 1, 3, 4, 5, 6, 7, 8, 9}) Data(Millis(50), seq);
  const auto acks = net_.Acks();
  ASSERT_EQ(acks.size(), 8u);  // ack 2 after seg 1, then 7 duplicates
  for (const auto& a : acks) EXPECT_EQ(a.packet.number, 2u);

  Ack(Millis(100), acks[0].packet);  // new data: slow start, 18000 B
  EXPECT_EQ(Cwnd(), 12u * kSeg);
  ASSERT_EQ(net_.DataCount(), 14u);  // segments 10..13
  Ack(Millis(100.01), acks[1].packet);
  Ack(Millis(100.02), acks[2].packet);
  EXPECT_EQ(net_.DataCount(), 14u);
  EXPECT_FALSE(flow_->in_recovery());
  Ack(Millis(100.03), acks[3].packet);  // third duplicate
  ASSERT_EQ(net_.DataCount(), 15u);
  EXPECT_EQ(net_.Data().back().packet.number, 2u);
  EXPECT_EQ(net_.Data().back().time, Millis(100.03));
  EXPECT_TRUE(flow_->in_recovery());
  ASSERT_EQ(spy_->losses.size(), 1u);
  EXPECT_EQ(Cwnd(), 6u * kSeg);  // NewReno halving
  EXPECT_EQ(flow_->controller().ssthresh_bytes(), 6u * kSeg);
  EXPECT_EQ(flow_->stats().packets_retransmitted, 1u);

  // Flight is 12 segments. The window 6 + k after k duplicates admits a new
  // segment only when 6 + k >= 13: k = 7.
  for (int k = 4; k <= 6; ++k) {
    Ack(Millis(100.03 + 0.01 * (k - 3)), acks[k].packet);
    EXPECT_EQ(net_.DataCount(), 15u) << "after duplicate " << k;
  }
  Ack(Millis(100.07), acks[7].packet);
  ASSERT_EQ(net_.DataCount(), 16u);
  EXPECT_EQ(net_.Data().back().packet.number, 14u);
  EXPECT_EQ(spy_->losses.size(), 1u);  // one reduction per recovery
}

// RFC 6582 3.2 steps 3 and 5: a partial ACK retransmits the next hole at
// once and stays in recovery; the ACK covering `recover` ends recovery with
// cwnd = ssthresh.
TEST_F(TcpFlowTest, PartialAckRetransmitsNextHoleAndFullAckExitsRecovery) {
  Build();
  for (uint64_t seq : {0, 1, 3, 4, 6, 7, 8, 9}) Data(Millis(50), seq);
  const auto acks = net_.Acks();
  ASSERT_EQ(acks.size(), 7u);
  Ack(Millis(100), acks[0].packet);  // sends 10..13: recover will be 13
  for (int k = 1; k <= 6; ++k) Ack(Millis(100 + 0.01 * k), acks[k].packet);
  ASSERT_TRUE(flow_->in_recovery());
  EXPECT_EQ(Cwnd(), 6u * kSeg);
  for (uint64_t seq = 10; seq <= 13; ++seq) Data(Millis(150), seq);

  Data(Millis(160), 2);  // the retransmission fills the first hole
  EXPECT_EQ(LastAck().number, 5u);
  const size_t sent = net_.DataCount();
  Ack(Millis(200), LastAck());  // partial: 5 <= recover = 13
  EXPECT_TRUE(flow_->in_recovery());
  ASSERT_GT(net_.DataCount(), sent);
  EXPECT_EQ(net_.Data()[sent].packet.number, 5u);  // the next hole, first
  EXPECT_EQ(net_.Data()[sent].time, Millis(200));
  EXPECT_EQ(flow_->stats().packets_retransmitted, 2u);
  EXPECT_EQ(Cwnd(), 6u * kSeg);  // no growth during recovery

  Data(Millis(250), 5);
  EXPECT_EQ(LastAck().number, 14u);
  Ack(Millis(300), LastAck());  // covers recover: full ACK
  EXPECT_FALSE(flow_->in_recovery());
  EXPECT_EQ(Cwnd(), 6u * kSeg);
  EXPECT_EQ(spy_->losses.size(), 1u);
}

// RFC 6298: RTO = srtt + max(G, 4 rttvar), at least 200 ms here, 1 s before
// any sample, doubled on each expiry; go-back-N resends from snd_una with a
// one-segment window; Karn's rule takes no sample from a retransmission.
TEST_F(TcpFlowTest, RetransmissionTimeoutBackoffGoBackNAndKarn) {
  Build();
  EXPECT_EQ(flow_->CurrentRto(), Seconds(1));
  EXPECT_EQ(net_.Deadline(flow_.get(), TcpFlow::kRtoTimer), Seconds(1));
  Data(Millis(10), 0);
  Data(Millis(10), 1);
  Ack(Millis(20), LastAck());  // sample 20 ms: 20 + 4 * 10 = 60 -> 200 ms
  EXPECT_EQ(flow_->rtt().smoothed(), Millis(20));
  EXPECT_EQ(flow_->CurrentRto(), Millis(200));
  EXPECT_EQ(net_.Deadline(flow_.get(), TcpFlow::kRtoTimer), Millis(220));
  ASSERT_EQ(net_.DataCount(), 14u);  // flight: segments 2..13

  size_t sent = net_.DataCount();
  net_.AdvanceTo(Millis(220));
  EXPECT_EQ(spy_->rtos, 1);
  EXPECT_EQ(Cwnd(), 1u * kSeg);
  // ssthresh = max(FlightSize / 2, 2 SMSS) with FlightSize = 12 segments.
  EXPECT_EQ(flow_->controller().ssthresh_bytes(), 6u * kSeg);
  ASSERT_EQ(net_.DataCount(), sent + 1);  // one segment: snd_una
  EXPECT_EQ(net_.Data().back().packet.number, 2u);
  EXPECT_EQ(flow_->CurrentRto(), Millis(400));
  EXPECT_EQ(net_.Deadline(flow_.get(), TcpFlow::kRtoTimer), Millis(620));

  sent = net_.DataCount();
  net_.AdvanceTo(Millis(620));
  ASSERT_EQ(net_.DataCount(), sent + 1);
  EXPECT_EQ(net_.Data().back().packet.number, 2u);
  EXPECT_EQ(Cwnd(), 1u * kSeg);
  // RFC 5681 3.1: a second timeout of the same segment keeps ssthresh.
  EXPECT_EQ(flow_->controller().ssthresh_bytes(), 6u * kSeg);
  EXPECT_EQ(net_.Deadline(flow_.get(), TcpFlow::kRtoTimer), Millis(1420));
  net_.AdvanceTo(Millis(1420));
  EXPECT_EQ(net_.Deadline(flow_.get(), TcpFlow::kRtoTimer), Millis(3020));

  // The retransmitted segment arrives alone: delayed ACK 40 ms later.
  Data(Millis(1500), 2);
  net_.AdvanceTo(Millis(1540));
  EXPECT_EQ(LastAck().number, 3u);
  sent = net_.DataCount();
  Ack(Millis(1600), LastAck());
  // Karn: the acked segment was retransmitted, so no RTT sample.
  EXPECT_EQ(flow_->rtt().smoothed(), Millis(20));
  EXPECT_EQ(flow_->rtt().stats().latest, Millis(20));
  // Slow start from one segment: two more, resent from snd_una onwards.
  EXPECT_EQ(Cwnd(), 2u * kSeg);
  ASSERT_EQ(net_.DataCount(), sent + 2);
  EXPECT_EQ(net_.Data()[sent].packet.number, 3u);
  EXPECT_EQ(net_.Data()[sent + 1].packet.number, 4u);
  EXPECT_EQ(flow_->stats().packets_retransmitted, 5u);
}

TEST_F(TcpFlowTest, RtoAboveTheMinimumUsesSrttPlusFourRttvar) {
  Build();
  Data(Millis(50), 0);
  Data(Millis(50), 1);
  Ack(Millis(100), LastAck());  // srtt 100, rttvar 50: 300 ms
  EXPECT_EQ(flow_->CurrentRto(), Millis(300));
}

TEST_F(TcpFlowTest, RtoBackoffIsCappedAtMaxRto) {
  Build();
  for (int i = 0; i < 12; ++i) {
    net_.AdvanceTo(net_.Deadline(flow_.get(), TcpFlow::kRtoTimer));
  }
  EXPECT_EQ(flow_->CurrentRto(), config_.max_rto);
}

// RFC 5681 4.2 / RFC 1122: ACK every second segment, else after the delayed
// ACK timer (40 ms); immediately for out-of-order data or a filled gap.
TEST_F(TcpFlowTest, DelayedAckPolicy) {
  Build();
  Data(Millis(10), 0);
  EXPECT_EQ(net_.AckCount(), 0u);
  EXPECT_EQ(net_.Deadline(flow_.get(), TcpFlow::kDelayedAckTimer), Millis(50));
  Data(Millis(20), 1);
  ASSERT_EQ(net_.AckCount(), 1u);
  EXPECT_EQ(LastAck().number, 2u);
  Data(Millis(30), 2);
  net_.AdvanceTo(Millis(70) - 1);
  EXPECT_EQ(net_.AckCount(), 1u);
  net_.AdvanceTo(Millis(70));
  ASSERT_EQ(net_.AckCount(), 2u);
  EXPECT_EQ(LastAck().number, 3u);
  EXPECT_EQ(net_.Acks().back().time, Millis(70));
  Data(Millis(80), 4);  // out of order: duplicate ACK now
  ASSERT_EQ(net_.AckCount(), 3u);
  EXPECT_EQ(LastAck().number, 3u);
  Data(Millis(81), 3);  // fills the gap: ACK now
  ASSERT_EQ(net_.AckCount(), 4u);
  EXPECT_EQ(LastAck().number, 5u);
}

// End to end over a lossy fake path: the file arrives complete and in order.
TEST_F(TcpFlowTest, LossyTransferCompletes) {
  const uint64_t total = 400 * kPayload;
  Build(total);
  std::set<uint64_t> dropped_once;
  int acks = 0;
  net_.AutoDeliver(flow_.get(), Millis(15), [&](const Packet& p) {
    if (p.is_ack) return ++acks % 9 == 0;
    return p.number % 23 == 5 && dropped_once.insert(p.number).second;
  });
  for (const auto& s : net_.Data()) flow_->OnDataArrival(0, s.packet);
  net_.AdvanceTo(Seconds(60));
  EXPECT_EQ(flow_->goodput_bytes(), total);
  EXPECT_GE(flow_->completion_time(), 0);
  EXPECT_GE(flow_->stats().packets_retransmitted, dropped_once.size());
}

}  // namespace
}  // namespace orbitcc
