// Sample-rate conversion with libsoxr, called as python-soxr's
// soxr.resample(x, in_rate, out_rate, quality="HQ") calls it (float32,
// SOXR_HQ, the input in chunks of 48000 * in / out frames, then a flush, into
// a buffer of in_frames * out / in + 1 frames), so that the samples match.
#ifndef OXINFER_CORE_MEDIA_RESAMPLE_H_
#define OXINFER_CORE_MEDIA_RESAMPLE_H_

#include <vector>

#include "absl/status/statusor.h"

namespace oxinfer::media {

absl::StatusOr<std::vector<float>> ResampleHq(const std::vector<float>& mono, double in_rate,
                                              double out_rate);

}  // namespace oxinfer::media

#endif  // OXINFER_CORE_MEDIA_RESAMPLE_H_
