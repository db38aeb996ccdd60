#include "core/media/resample.h"

#include <soxr.h>

#include <algorithm>

#include "absl/strings/str_format.h"

namespace oxinfer::media {

absl::StatusOr<std::vector<float>> ResampleHq(const std::vector<float>& mono, double in_rate,
                                              double out_rate) {
  if (!(in_rate > 0) || !(out_rate > 0)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("resampling %g Hz to %g Hz", in_rate, out_rate));
  }
  soxr_error_t err = nullptr;
  const soxr_io_spec_t io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I);
  const soxr_quality_spec_t quality = soxr_quality_spec(SOXR_HQ, 0);
  soxr_t soxr = soxr_create(in_rate, out_rate, 1, &err, &io, &quality, nullptr);
  if (err != nullptr) return absl::InternalError(absl::StrFormat("soxr_create: %s", err));
  const size_t ilen = mono.size();
  const size_t olen = static_cast<size_t>(ilen * out_rate / in_rate) + 1;
  const size_t chunk = std::max<size_t>(1, static_cast<size_t>(48000 * in_rate / out_rate));
  std::vector<float> out(olen, 0.0f);
  size_t pos = 0, done = 0;
  for (size_t i = 0; i < ilen && err == nullptr; i += chunk) {
    err = soxr_process(soxr, mono.data() + i, std::min(chunk, ilen - i), nullptr, out.data() + pos,
                       olen - pos, &done);
    pos += done;
  }
  if (err == nullptr) {
    err = soxr_process(soxr, nullptr, 0, nullptr, out.data() + pos, olen - pos, &done);
    pos += done;
  }
  soxr_delete(soxr);
  if (err != nullptr) return absl::InternalError(absl::StrFormat("soxr_process: %s", err));
  out.resize(pos);
  return out;
}

}  // namespace oxinfer::media
