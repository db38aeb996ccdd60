#include "tests/models/sd/fixture.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "tests/support/test_backends.h"

namespace oxinfer {
namespace sd {
namespace testing {

std::string Testdata() { return oxinfer::testing::Runfile("tests/models/sd/testdata"); }

std::string Fixture::MetaString(const std::string& key) const {
  auto v = meta()[key].String();
  return v.ok() ? *v : "";
}

double Fixture::MetaNumber(const std::string& key) const {
  auto v = meta()[key].Number();
  return v.ok() ? *v : NAN;
}

std::vector<float> Fixture::Floats(const std::string& name, std::vector<int64_t>* shape) const {
  const oxi_weight_tensor* t = file.Find(name);
  if (t == nullptr) return {};
  std::vector<float> out(static_cast<size_t>(sdk::NumElements(*t)));
  const uint8_t* p = static_cast<const uint8_t*>(t->data);
  for (size_t i = 0; i < out.size(); ++i) {
    switch (t->dtype) {
      case OXI_DTYPE_F32:
      case OXI_DTYPE_F16:
      case OXI_DTYPE_BF16:
        out[i] = sdk::LoadFloat(t->data, t->dtype, static_cast<int64_t>(i));
        break;
      case OXI_DTYPE_I32: {
        int32_t v;
        std::memcpy(&v, p + 4 * i, 4);
        out[i] = static_cast<float>(v);
        break;
      }
      case OXI_DTYPE_U8:
        out[i] = static_cast<float>(p[i]);
        break;
      default:
        return {};
    }
  }
  if (shape != nullptr) shape->assign(t->shape, t->shape + t->ndim);
  return out;
}

HostAct Fixture::AsHost(const std::string& name) const {
  std::vector<int64_t> s;
  std::vector<float> v = Floats(name, &s);
  HostAct a;
  if (s.size() == 3) {
    a.n = s[0], a.h = 1, a.w = s[1], a.c = s[2];
    a.d = std::move(v);
    return a;
  }
  if (s.size() != 4) return a;
  a.n = s[0], a.h = s[2], a.w = s[3], a.c = s[1];
  a.d.resize(v.size());
  for (int64_t b = 0; b < a.n; ++b)
    for (int64_t c = 0; c < a.c; ++c)
      for (int64_t y = 0; y < a.h; ++y)
        for (int64_t x = 0; x < a.w; ++x)
          a.d[((b * a.h + y) * a.w + x) * a.c + c] = v[((b * a.c + c) * a.h + y) * a.w + x];
  return a;
}

sdk::StatusOr<Fixture> LoadFixture(const std::string& run) {
  const std::string base = Testdata() + "/" + run;
  Fixture f;
  OXI_ASSIGN_OR_RETURN(f.meta_doc, sdk::JsonDoc::FromFile(base + ".json"));
  OXI_ASSIGN_OR_RETURN(f.file, sdk::Weights::Open(base + ".safetensors", /*use_mmap=*/true));
  return f;
}

Diff Compare(const HostAct& got, const HostAct& want) {
  Diff d;
  if (got.d.size() != want.d.size() || got.d.empty()) {
    d.max_abs = INFINITY;
    return d;
  }
  double sq = 0;
  for (size_t i = 0; i < got.d.size(); ++i) {
    const double e = std::fabs(static_cast<double>(got.d[i]) - want.d[i]);
    d.max_abs = std::max(d.max_abs, e);
    d.max_ref = std::max(d.max_ref, std::fabs(static_cast<double>(want.d[i])));
    sq += e * e;
  }
  d.rms = std::sqrt(sq / got.d.size());
  return d;
}

double Relative(const Diff& d) { return d.max_abs / std::max(d.max_ref, 1e-30); }

double Psnr(const HostAct& got, const HostAct& want) {
  if (got.d.size() != want.d.size() || got.d.empty()) return 0;
  double sq = 0;
  for (size_t i = 0; i < got.d.size(); ++i) {
    const double a = std::clamp(got.d[i] / 2.0 + 0.5, 0.0, 1.0);
    const double b = std::clamp(want.d[i] / 2.0 + 0.5, 0.0, 1.0);
    sq += (a - b) * (a - b);
  }
  const double mse = sq / got.d.size();
  return mse == 0 ? 200.0 : 10.0 * std::log10(1.0 / mse);
}

}  // namespace testing
}  // namespace sd
}  // namespace oxinfer
