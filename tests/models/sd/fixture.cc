#include "tests/models/sd/fixture.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace oxinfer {
namespace sd {
namespace testing {

std::vector<float> Fixture::Floats(const std::string& name, std::vector<int64_t>* shape) const {
  absl::StatusOr<Tensor> t = file.GetTensor(name);
  if (!t.ok()) return {};
  const TensorInfo* info = file.Find(name);
  std::vector<float> out(static_cast<size_t>(info->numel));
  for (size_t i = 0; i < out.size(); ++i) {
    switch (info->dtype) {
      case OXI_DTYPE_F32:
        out[i] = t->data_as<float>()[i];
        break;
      case OXI_DTYPE_I32:
        out[i] = static_cast<float>(t->data_as<int32_t>()[i]);
        break;
      case OXI_DTYPE_U8:
        out[i] = static_cast<float>(t->data_as<uint8_t>()[i]);
        break;
      default:
        return {};
    }
  }
  if (shape != nullptr) *shape = info->shape;
  return out;
}

Act Fixture::AsAct(const std::string& name) const {
  std::vector<int64_t> s;
  std::vector<float> v = Floats(name, &s);
  if (s.size() == 3) {
    Act a(s[0], 1, s[1], s[2]);
    a.d = v;
    return a;
  }
  if (s.size() != 4) return Act();
  Act a(s[0], s[2], s[3], s[1]);
  for (int64_t b = 0; b < a.n; ++b)
    for (int64_t c = 0; c < a.c; ++c)
      for (int64_t y = 0; y < a.h; ++y)
        for (int64_t x = 0; x < a.w; ++x)
          a.d[((b * a.h + y) * a.w + x) * a.c + c] = v[((b * a.c + c) * a.h + y) * a.w + x];
  return a;
}

absl::StatusOr<Fixture> LoadFixture(const std::string& run) {
  const std::string base = absl::StrCat(kTestdata, "/", run);
  std::ifstream in(base + ".json");
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", base, ".json"));
  std::stringstream ss;
  ss << in.rdbuf();
  Fixture f;
  f.meta = nlohmann::json::parse(ss.str(), nullptr, false);
  if (f.meta.is_discarded()) return absl::InvalidArgumentError("bad fixture JSON");
  absl::StatusOr<SafetensorsFile> file = SafetensorsFile::Open(base + ".safetensors");
  if (!file.ok()) return file.status();
  f.file = *std::move(file);
  return f;
}

Diff Compare(const Act& got, const Act& want) {
  Diff d;
  if (got.size() != want.size() || got.size() == 0) {
    d.max_abs = INFINITY;
    return d;
  }
  double sq = 0;
  for (int64_t i = 0; i < got.size(); ++i) {
    const double e = std::fabs(static_cast<double>(got.d[i]) - want.d[i]);
    d.max_abs = std::max(d.max_abs, e);
    d.max_ref = std::max(d.max_ref, std::fabs(static_cast<double>(want.d[i])));
    sq += e * e;
  }
  d.rms = std::sqrt(sq / got.size());
  return d;
}

double Psnr(const Act& got, const Act& want) {
  if (got.size() != want.size() || got.size() == 0) return 0;
  double sq = 0;
  for (int64_t i = 0; i < got.size(); ++i) {
    const double a = std::clamp(got.d[i] / 2.0 + 0.5, 0.0, 1.0);
    const double b = std::clamp(want.d[i] / 2.0 + 0.5, 0.0, 1.0);
    sq += (a - b) * (a - b);
  }
  const double mse = sq / got.size();
  return mse == 0 ? 200.0 : 10.0 * std::log10(1.0 / mse);
}

}  // namespace testing
}  // namespace sd
}  // namespace oxinfer
