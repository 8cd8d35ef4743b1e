#include "app/application.h"

#include <algorithm>
#include <cmath>

namespace orbitcc {

const char* AppKindName(AppSpec::Kind kind) {
  switch (kind) {
    case AppSpec::Kind::kBulk:
      return "bulk";
    case AppSpec::Kind::kFile:
      return "file";
    case AppSpec::Kind::kCbr:
      return "cbr";
    case AppSpec::Kind::kPoisson:
      return "poisson";
    case AppSpec::Kind::kOnOff:
      return "onoff";
    case AppSpec::Kind::kVideo:
      return "video";
  }
  return "?";
}

Application::Application(const AppSpec& spec, TimeNs start, uint64_t seed,
                         StreamId stream, uint64_t substream,
                         uint32_t payload_bytes)
    : spec_(spec),
      start_(start),
      stop_(spec.duration > 0 ? start + spec.duration : kTimeInfinite),
      rng_(seed, stream, substream),
      chunk_(spec.chunk_bytes > 0 ? spec.chunk_bytes : payload_bytes) {
  interval_ns_ = static_cast<double>(chunk_) * 8e9 / spec_.rate_bps;
  switch (spec_.kind) {
    case AppSpec::Kind::kCbr:
      next_time_ = start_;
      next_bytes_ = chunk_;
      break;
    case AppSpec::Kind::kPoisson:
      next_time_ = start_ + SpanNs(rng_.Exponential(interval_ns_));
      next_bytes_ = chunk_;
      break;
    case AppSpec::Kind::kOnOff:
      on_end_ = start_;  // an empty "previous" period: the first starts now
      on_left_ = 0;
      next_time_ = start_;
      Advance();
      return;
    case AppSpec::Kind::kVideo:
      bytes_per_frame_ = spec_.rate_bps / 8.0 / spec_.fps;
      next_time_ = start_;
      next_bytes_ = static_cast<uint64_t>(std::floor(bytes_per_frame_));
      next_tag_ = 0;
      break;
    default:
      next_time_ = kTimeInfinite;
      return;
  }
  if (next_time_ >= stop_) next_time_ = kTimeInfinite;
}

TimeNs Application::FrameTime(int64_t k) const {
  return SpanNs(static_cast<double>(k) * 1e9 / spec_.fps);
}

void Application::CommitWrite(uint64_t end_offset) {
  if (pending_.size() >= kMaxPendingWrites) {
    Write& w = pending_.back();  // see kMaxPendingWrites
    w.end = end_offset;
    w.bytes += next_bytes_;
    ++w.count;
    if (next_last_) {
      w.last_of_object = true;
      if (spec_.kind == AppSpec::Kind::kOnOff) w.tag = next_tag_;
    }
  } else {
    pending_.push_back(
        Write{end_offset, next_bytes_, next_time_, next_tag_, next_last_, 1});
  }
  offered_ += next_bytes_;
  ++writes_;
  Advance();
}

void Application::Advance() {
  switch (spec_.kind) {
    case AppSpec::Kind::kCbr:
      ++index_;
      next_time_ = start_ + SpanNs(static_cast<double>(index_) * interval_ns_);
      break;
    case AppSpec::Kind::kPoisson:
      next_time_ += SpanNs(rng_.Exponential(interval_ns_));
      break;
    case AppSpec::Kind::kOnOff: {
      if (on_left_ == 0) {
        // Next on period: an off period after the current one ends (none
        // before the first).
        TimeNs begin = on_end_;
        if (objects_ > 0) {
          const double xm_off = static_cast<double>(spec_.mean_off) *
                                (spec_.shape - 1.0) / spec_.shape;
          begin += SpanNs(rng_.Pareto(spec_.shape, xm_off));
        }
        const double xm_on = static_cast<double>(spec_.mean_on) *
                             (spec_.shape - 1.0) / spec_.shape;
        // Pareto periods are heavy-tailed; one longer than any episode is
        // as good as endless (and keeps the byte count below 2^64).
        const double on_ns = std::min(rng_.Pareto(spec_.shape, xm_on),
                                      static_cast<double>(kMaxSpanNs));
        on_start_ = begin;
        on_end_ = begin + SpanNs(on_ns);
        on_left_ = std::max<uint64_t>(
            1,
            static_cast<uint64_t>(std::llround(spec_.rate_bps * on_ns / 8e9)));
        on_chunk_ = 0;
        ++objects_;
      }
      next_time_ =
          on_start_ + SpanNs(static_cast<double>(on_chunk_) * interval_ns_);
      next_bytes_ = std::min<uint64_t>(on_left_, chunk_);
      on_left_ -= next_bytes_;
      ++on_chunk_;
      next_tag_ = on_start_;
      next_last_ = on_left_ == 0;
      break;
    }
    case AppSpec::Kind::kVideo: {
      ++index_;
      next_time_ = start_ + FrameTime(index_);
      next_tag_ = index_;
      const double k = static_cast<double>(index_);
      next_bytes_ =
          static_cast<uint64_t>(std::floor((k + 1) * bytes_per_frame_) -
                                std::floor(k * bytes_per_frame_));
      break;
    }
    default:
      next_time_ = kTimeInfinite;
      return;
  }
  if (next_time_ >= stop_) next_time_ = kTimeInfinite;
}

void Application::OnDelivered(TimeNs now, uint64_t delivered) {
  while (!pending_.empty() && pending_.front().end <= delivered) {
    const Write w = pending_.front();
    pending_.pop_front();
    carried_ += w.bytes;
    delivered_writes_ += w.count;
    for (uint32_t j = 0; j < w.count; ++j) {
      latency_us_.Add(static_cast<uint64_t>((now - w.time) / kNsPerUs));
    }
    if (spec_.kind == AppSpec::Kind::kOnOff && w.last_of_object) {
      object_us_.Add(static_cast<uint64_t>((now - w.tag) / kNsPerUs));
    }
    if (spec_.kind == AppSpec::Kind::kVideo) {
      for (uint32_t j = 0; j < w.count; ++j) OnFrame(now, w.tag + j);
    }
  }
}

void Application::OnFrame(TimeNs now, int64_t k) {
  const TimeNs deadline = start_ + spec_.startup_delay + FrameTime(k);
  if (now <= deadline) {
    ++played_;
    if (in_stall_) {
      in_stall_ = false;
      rebuffer_ += deadline - stall_start_;
    }
    return;
  }
  ++discarded_;
  if (!in_stall_) {
    in_stall_ = true;
    ++stalls_;
    stall_start_ = deadline;
  }
}

AppSummary Application::Summarize(TimeNs now) const {
  AppSummary s;
  s.kind = AppKindName(spec_.kind);
  s.offered_bytes = offered_;
  s.carried_bytes = carried_;
  // Rates over the time the application was writing.
  const double active_s =
      ToSeconds(std::max<TimeNs>(std::min(now, stop_) - start_, 1));
  s.offered_mbps = static_cast<double>(offered_) * 8e-6 / active_s;
  s.carried_mbps = static_cast<double>(carried_) * 8e-6 / active_s;
  s.writes = writes_;
  s.writes_delivered = delivered_writes_;
  s.latency_mean_ms = latency_us_.mean() * 1e-3;
  s.latency_p95_ms = latency_us_.Quantile(0.95) * 1e-3;
  if (spec_.kind == AppSpec::Kind::kOnOff) {
    s.objects = objects_;
    s.objects_completed = object_us_.count();
    s.object_mean_s = object_us_.mean() * 1e-6;
    s.object_p95_s = object_us_.Quantile(0.95) * 1e-6;
  }
  if (spec_.kind == AppSpec::Kind::kVideo) {
    s.frames = writes_;
    s.played_frames = played_;
    s.discarded_frames = discarded_;
    s.stalls = stalls_;
    TimeNs rebuffer = rebuffer_;
    bool in_stall = in_stall_;
    TimeNs stall_start = stall_start_;
    // Frames whose deadline passed without them: an underflow in progress.
    bool past = true;
    for (size_t i = 0; i < pending_.size() && past; ++i) {
      for (uint32_t j = 0; j < pending_[i].count; ++j) {
        const TimeNs deadline =
            start_ + spec_.startup_delay + FrameTime(pending_[i].tag + j);
        if (deadline >= now) {
          past = false;
          break;
        }
        ++s.missing_frames;
        if (!in_stall) {
          in_stall = true;
          ++s.stalls;
          stall_start = deadline;
        }
      }
    }
    if (in_stall) rebuffer += now - stall_start;
    s.rebuffer_s = ToSeconds(rebuffer);
  }
  return s;
}

}  // namespace orbitcc
