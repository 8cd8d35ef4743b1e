#include "transport/quic_subflow.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "cc/newreno.h"
#include "transport/fake_network_for_test.h"
#include "transport/quic_connection.h"

namespace orbitcc {
namespace {

constexpr uint32_t kPacket = 1500;
constexpr uint32_t kPayload = 1460;  // 1500 - 40 header bytes

// NewReno that records what the transport told it.
class SpyController : public NewReno {
 public:
  using NewReno::NewReno;
  void OnAck(const AckEvent& ack) override {
    acks.push_back(ack);
    NewReno::OnAck(ack);
  }
  void OnPacketsLost(const LossEvent& loss) override {
    losses.push_back(loss);
    NewReno::OnPacketsLost(loss);
    cwnd_after_loss.push_back(cwnd_bytes());
  }
  void OnRetransmissionTimeout(TimeNs now) override {
    ++rtos;
    NewReno::OnRetransmissionTimeout(now);
  }
  std::vector<AckEvent> acks;
  std::vector<LossEvent> losses;
  std::vector<uint64_t> cwnd_after_loss;
  int rtos = 0;
};

// One subflow whose sender and receiver halves the test connects by hand:
// Data() hands a captured data packet to the receiver, Ack() hands a captured
// ACK to the sender, so every loss and delay is explicit.
class QuicSubflowTest : public ::testing::Test {
 protected:
  void Build(uint64_t total_bytes = kUnlimitedBytes) {
    config_.packet_bytes = kPacket;
    config_.pacing = false;  // pacing has its own tests; keep timing exact
    conn_ = std::make_unique<QuicConnection>(&net_, total_bytes,
                                             SchedulerKind::kMinRtt);
    ControllerContext ctx;
    ctx.mss = kPacket;
    ctx.initial_window_packets = 10;
    auto spy = std::make_unique<SpyController>(ctx);
    spy_ = spy.get();
    conn_->AddSubflow(std::make_unique<QuicSubflow>(&net_, conn_.get(), 0,
                                                    config_, std::move(spy)));
    sf_ = &conn_->subflow(0);
    conn_->Start(0);
  }
  void Data(TimeNs t, uint64_t pn) {
    net_.AdvanceTo(t);
    sf_->OnDataArrival(t, net_.LastData(pn));
  }
  void Ack(TimeNs t, const Packet& ack) {
    net_.AdvanceTo(t);
    sf_->OnAckArrival(t, ack);
  }
  Packet LastAck() const { return net_.LastAck(); }

  FakeNetwork net_;
  TransportConfig config_;
  std::unique_ptr<QuicConnection> conn_;
  QuicSubflow* sf_ = nullptr;
  SpyController* spy_ = nullptr;
};

TEST_F(QuicSubflowTest, InitialWindowIsSentAtOnce) {
  Build();
  ASSERT_EQ(net_.DataCount(), 10u);
  for (uint64_t pn = 0; pn < 10; ++pn) {
    const Packet p = net_.Data()[pn].packet;
    EXPECT_EQ(p.number, pn);
    EXPECT_EQ(p.bytes, kPacket);
    EXPECT_EQ(p.stream_offset, pn * kPayload);
  }
  EXPECT_EQ(sf_->bytes_in_flight(), 10u * kPacket);
}

// RFC 9002 6.1.1: a packet is lost once a packet kPacketThreshold = 3 later is
// acknowledged, and not before. Its data is then resent.
TEST_F(QuicSubflowTest, PacketThresholdLossExactlyAtThree) {
  Build(10 * kPayload);  // a finite stream: the resend is the next packet
  Data(Millis(50), 0);
  Data(Millis(50), 1);
  const Packet f0 = LastAck();
  Data(Millis(51), 3);  // pn 2 missing: immediate ACK
  const Packet f1 = LastAck();
  Data(Millis(52), 4);
  net_.AdvanceTo(Millis(77));  // max_ack_delay later
  const Packet f2 = LastAck();
  ASSERT_EQ(net_.AckCount(), 3u);
  Data(Millis(78), 5);
  net_.AdvanceTo(Millis(103));
  const Packet f3 = LastAck();
  ASSERT_EQ(net_.AckCount(), 4u);

  Ack(Millis(100), f0);
  Ack(Millis(101), f1);  // largest 3 < 2 + 3
  EXPECT_TRUE(spy_->losses.empty());
  Ack(Millis(102), f2);  // largest 4 < 2 + 3
  EXPECT_TRUE(spy_->losses.empty());
  EXPECT_EQ(sf_->largest_acked(), 4u);
  const size_t sent_before = net_.DataCount();
  Ack(Millis(104), f3);  // largest 5 >= 2 + 3
  ASSERT_EQ(spy_->losses.size(), 1u);
  const LossEvent& loss = spy_->losses[0];
  EXPECT_EQ(loss.packets_lost, 1u);
  EXPECT_EQ(loss.bytes_lost, kPacket);
  EXPECT_EQ(loss.largest_lost_sent_time, 0);
  EXPECT_EQ(loss.now, Millis(104));
  EXPECT_FALSE(loss.persistent_congestion);
  EXPECT_EQ(sf_->stats().packets_declared_lost, 1u);
  // The lost packet's data goes out again in a new packet number.
  ASSERT_EQ(net_.DataCount(), sent_before + 1);
  const Packet resent = net_.Data().back().packet;
  EXPECT_EQ(resent.stream_offset, 2u * kPayload);
  EXPECT_EQ(resent.payload, kPayload);
  EXPECT_EQ(resent.number, 10u);
  EXPECT_EQ(sf_->stats().packets_retransmitted, 1u);
}

// RFC 9002 6.1.2: loss_delay = 9/8 * max(latest_rtt, smoothed_rtt); the loss
// timer fires at sent_time + loss_delay for the earliest unacked packet below
// largest_acked, and that packet is declared lost exactly then.
TEST_F(QuicSubflowTest, TimeThresholdLossAndLossTimer) {
  Build(10 * kPayload);
  Data(Millis(50), 0);
  Data(Millis(50), 1);
  const Packet f0 = LastAck();
  Data(Millis(51), 3);
  const Packet f1 = LastAck();
  Ack(Millis(100), f0);  // latest = srtt = 100 ms
  Ack(Millis(101), f1);  // latest 101 ms, srtt 100.125 ms
  EXPECT_EQ(sf_->rtt().stats().latest, Millis(101));
  EXPECT_EQ(sf_->rtt().smoothed(), Millis(100.125));
  // max(latest, srtt) = 101 ms: 9/8 * 101 ms = 113.625 ms after pn 2 (t = 0).
  const TimeNs deadline = Millis(113.625);
  EXPECT_EQ(sf_->loss_timer_deadline(), deadline);
  EXPECT_EQ(net_.Deadline(sf_, QuicSubflow::kLossTimer), deadline);
  net_.AdvanceTo(deadline - 1);
  EXPECT_TRUE(spy_->losses.empty());
  net_.AdvanceTo(deadline);
  ASSERT_EQ(spy_->losses.size(), 1u);
  EXPECT_EQ(spy_->losses[0].now, deadline);
  EXPECT_EQ(spy_->losses[0].packets_lost, 1u);  // pn 4.. are above largest
  // The halved window is full, so pn 2's data waits in the resend queue (the
  // whole finite stream was already handed out once).
  EXPECT_TRUE(conn_->send_stream().HasData());
  EXPECT_EQ(conn_->send_stream().next_offset(), 10u * kPayload);
}

// RFC 9002 5.3 through the transport: the first sample sets srtt = latest,
// rttvar = latest / 2; later the ACK delay (capped at max_ack_delay) is
// subtracted when the result stays >= min_rtt.
TEST_F(QuicSubflowTest, RttSamplesFollowRfc9002WithAckDelayCapped) {
  Build();
  Data(Millis(40), 0);
  Data(Millis(40), 1);
  Ack(Millis(80), LastAck());
  EXPECT_TRUE(sf_->rtt().has_sample());
  EXPECT_EQ(sf_->rtt().stats().latest, Millis(80));
  EXPECT_EQ(sf_->rtt().min(), Millis(80));
  EXPECT_EQ(sf_->rtt().smoothed(), Millis(80));
  EXPECT_EQ(sf_->rtt().variance(), Millis(40));

  Data(Millis(100), 3);  // gap: ACK (largest 3) sent now, but lost
  Data(Millis(190), 2);  // reordered: ACK with largest 3, ack_delay 90 ms
  Ack(Millis(230), LastAck());
  // latest 230 ms, ack delay min(90, 25) = 25 ms, adjusted 205 ms.
  EXPECT_EQ(sf_->rtt().stats().latest, Millis(230));
  EXPECT_EQ(sf_->rtt().min(), Millis(80));
  EXPECT_EQ(sf_->rtt().smoothed(), (7 * Millis(80) + Millis(205)) / 8);
  EXPECT_EQ(sf_->rtt().variance(), (3 * Millis(40) + Millis(125)) / 4);
}

// RFC 9002 6.2.1: PTO = srtt + max(4 rttvar, 1 ms) + max_ack_delay, doubled
// per consecutive expiry; each expiry sends two probes regardless of cwnd and
// leaves cwnd alone; an ACK resets the backoff.
TEST_F(QuicSubflowTest, ProbeTimeoutDurationBackoffAndProbes) {
  Build();
  Data(Millis(50), 0);
  Data(Millis(50), 1);
  Ack(Millis(100), LastAck());  // srtt 100, rttvar 50: PTO 325 ms
  EXPECT_EQ(sf_->PtoDuration(), Millis(325));
  EXPECT_EQ(sf_->loss_timer_deadline(), Millis(100) + Millis(325));
  const uint64_t cwnd = sf_->controller().cwnd_bytes();
  EXPECT_EQ(sf_->bytes_in_flight(), cwnd);  // window full

  size_t sent = net_.DataCount();
  net_.AdvanceTo(Millis(425) - 1);
  EXPECT_EQ(net_.DataCount(), sent);
  net_.AdvanceTo(Millis(425));
  EXPECT_EQ(sf_->pto_count(), 1);
  ASSERT_EQ(net_.DataCount(), sent + 2);
  EXPECT_EQ(net_.Data().back().time, Millis(425));
  EXPECT_EQ(sf_->bytes_in_flight(), cwnd + 2 * kPacket);  // bypassed cwnd
  EXPECT_EQ(sf_->controller().cwnd_bytes(), cwnd);
  EXPECT_TRUE(spy_->losses.empty());
  EXPECT_EQ(spy_->rtos, 0);
  EXPECT_EQ(sf_->stats().timeouts, 1u);
  // Backoff 2^1 from the last ack-eliciting packet (the probes).
  EXPECT_EQ(sf_->loss_timer_deadline(), Millis(425) + 2 * Millis(325));

  sent = net_.DataCount();
  net_.AdvanceTo(Millis(1075));
  EXPECT_EQ(sf_->pto_count(), 2);
  EXPECT_EQ(net_.DataCount(), sent + 2);
  EXPECT_EQ(sf_->controller().cwnd_bytes(), cwnd);
  EXPECT_EQ(sf_->loss_timer_deadline(), Millis(1075) + 4 * Millis(325));

  Data(Millis(1100), 2);
  Data(Millis(1100), 3);
  Ack(Millis(1150), LastAck());
  EXPECT_EQ(sf_->pto_count(), 0);
}

// With nothing new to send, a probe carries the oldest unacknowledged data.
TEST_F(QuicSubflowTest, ProbeResendsOldestDataWhenStreamIsExhausted) {
  Build(4 * kPayload);
  ASSERT_EQ(net_.DataCount(), 4u);
  Data(Millis(50), 0);
  Data(Millis(50), 1);
  Ack(Millis(100), LastAck());
  net_.AdvanceTo(sf_->loss_timer_deadline());
  ASSERT_GE(net_.DataCount(), 5u);
  EXPECT_EQ(net_.Data()[4].packet.stream_offset, 2u * kPayload);
  EXPECT_EQ(net_.Data()[4].packet.number, 4u);  // a new packet number
}

// RFC 9002 7.6: losses spanning more than 3 * (srtt + max(4 rttvar, 1 ms) +
// max_ack_delay) among packets sent after the first RTT sample collapse the
// window to the minimum (2 packets).
TEST_F(QuicSubflowTest, PersistentCongestionCollapsesToMinimumWindow) {
  Build();
  for (uint64_t pn = 0; pn < 10; ++pn) Data(Millis(50), pn);
  ASSERT_EQ(net_.AckCount(), 5u);
  for (const auto& a : net_.Acks()) Ack(Millis(100), a.packet);
  ASSERT_TRUE(spy_->losses.empty());
  // Everything sent from now on is lost; four PTOs expire (backoff 1,2,4,8).
  for (int i = 0; i < 4; ++i) net_.AdvanceTo(sf_->loss_timer_deadline());
  ASSERT_EQ(sf_->pto_count(), 4);
  const FakeNetwork::Sent last = net_.Data().back();
  Data(last.time + Millis(25), last.packet.number);
  Ack(last.time + Millis(50), LastAck());
  ASSERT_EQ(spy_->losses.size(), 1u);
  EXPECT_TRUE(spy_->losses[0].persistent_congestion);
  EXPECT_EQ(spy_->cwnd_after_loss[0], 2u * kPacket);
  // As in RFC 9002 B.8, the recovery period is cleared, so the same ACK's
  // newly acked probe (sent after the first sample) then grows the window in
  // slow start by one packet.
  EXPECT_EQ(sf_->controller().cwnd_bytes(), 3u * kPacket);
}

// The same loss pattern without any RTT sample before it is not persistent
// congestion: RFC 9002 7.6.2 only counts packets sent after the first sample.
TEST_F(QuicSubflowTest, NoPersistentCongestionWithoutAPriorRttSample) {
  Build();
  for (int i = 0; i < 4; ++i) net_.AdvanceTo(sf_->loss_timer_deadline());
  ASSERT_EQ(sf_->pto_count(), 4);
  const FakeNetwork::Sent last = net_.Data().back();
  Data(last.time + Millis(25), last.packet.number);  // the first arrival
  net_.AdvanceTo(last.time + Millis(50));            // ... is acked after 25 ms
  ASSERT_EQ(net_.AckCount(), 1u);
  Ack(last.time + Millis(75), LastAck());  // this is the first RTT sample
  ASSERT_EQ(spy_->losses.size(), 1u);
  EXPECT_FALSE(spy_->losses[0].persistent_congestion);
  EXPECT_EQ(spy_->cwnd_after_loss[0], 5u * kPacket);  // a plain halving
}

// RFC 9000 13.2: ACK every second ack-eliciting packet, within max_ack_delay
// otherwise, and at once for out-of-order or duplicate packets.
TEST_F(QuicSubflowTest, ReceiverAckPolicy) {
  Build();
  Data(Millis(10), 0);
  EXPECT_EQ(net_.AckCount(), 0u);
  EXPECT_EQ(net_.Deadline(sf_, QuicSubflow::kAckTimer), Millis(35));
  Data(Millis(20), 1);
  EXPECT_EQ(net_.AckCount(), 1u);
  EXPECT_EQ(net_.Acks().back().time, Millis(20));
  EXPECT_EQ(net_.Deadline(sf_, QuicSubflow::kAckTimer), kTimeInfinite);
  Data(Millis(30), 2);
  EXPECT_EQ(net_.AckCount(), 1u);
  net_.AdvanceTo(Millis(55) - 1);
  EXPECT_EQ(net_.AckCount(), 1u);
  net_.AdvanceTo(Millis(55));
  ASSERT_EQ(net_.AckCount(), 2u);
  EXPECT_EQ(net_.Acks().back().time, Millis(55));
  Data(Millis(60), 4);  // gap
  EXPECT_EQ(net_.AckCount(), 3u);
  Data(Millis(61), 3);  // fills the gap, still out of order
  EXPECT_EQ(net_.AckCount(), 4u);
  Data(Millis(62), 5);  // in order again: waits
  EXPECT_EQ(net_.AckCount(), 4u);
  Data(Millis(63), 5);  // duplicate: the sender may have missed an ACK
  EXPECT_EQ(net_.AckCount(), 5u);
  EXPECT_EQ(sf_->stats().packets_received, 6u);
}

// An ACK whose ranges have holes acknowledges exactly the packets in the
// ranges; the holes stay outstanding (and are lost by the packet threshold).
TEST_F(QuicSubflowTest, AckRangesWithHolesAcknowledgeExactlyTheRightPackets) {
  Build(10 * kPayload);
  for (uint64_t pn : {0, 1, 3, 5, 6, 8}) Data(Millis(50), pn);
  Ack(Millis(100), LastAck());  // ranges [0,1] [3,3] [5,6] [8,8]
  ASSERT_EQ(spy_->acks.size(), 1u);
  EXPECT_EQ(spy_->acks[0].bytes_acked, 6u * kPacket);
  EXPECT_EQ(sf_->stats().bytes_acked, 6u * kPacket);
  // 2 and 4 are 3+ below 8: lost; 7 is not (8 < 7 + 3) and 9 is above.
  ASSERT_EQ(spy_->losses.size(), 1u);
  EXPECT_EQ(spy_->losses[0].packets_lost, 2u);
  // Resent in order: the data of pn 2, then of pn 4.
  const auto data = net_.Data();
  ASSERT_EQ(data.size(), 12u);
  EXPECT_EQ(data[10].packet.stream_offset, 2u * kPayload);
  EXPECT_EQ(data[11].packet.stream_offset, 4u * kPayload);
  // In flight: 7, 9 and the two resends.
  EXPECT_EQ(sf_->bytes_in_flight(), 4u * kPacket);

  // Acknowledging pn 7 adds exactly one packet: it was still outstanding
  // (and is acked before its time-threshold deadline at 112.5 ms).
  Data(Millis(101), 7);
  Ack(Millis(105), LastAck());
  EXPECT_EQ(sf_->stats().bytes_acked, 7u * kPacket);
  EXPECT_EQ(sf_->bytes_in_flight(), 3u * kPacket);
}

// End to end over a lossy fake path (data and ACKs dropped): every byte of a
// finite stream arrives, and the transfer completes.
TEST_F(QuicSubflowTest, LostDataIsResentUntilTheStreamCompletes) {
  const uint64_t total = 300 * kPayload + 123;
  Build(total);
  int acks_seen = 0;
  net_.AutoDeliver(sf_, Millis(20), [&](const Packet& p) {
    if (p.is_ack) return (++acks_seen % 5) == 0;
    return p.number % 7 == 3;
  });
  // Packets already captured before AutoDeliver was set: hand them over.
  for (const auto& s : net_.Data()) sf_->OnDataArrival(0, s.packet);
  net_.AdvanceTo(Seconds(30));
  EXPECT_EQ(conn_->receive_stream().delivered(), total);
  EXPECT_GE(conn_->completion_time(), 0);
  EXPECT_GT(sf_->stats().packets_retransmitted, 0u);
  EXPECT_GT(sf_->stats().packets_declared_lost, 0u);
}

}  // namespace
}  // namespace orbitcc
