// What the CPU backend's tests share: the variants named on the command
// line (loaded through the registry, as the host loads them), and a small
// harness per variant to put host data into its buffers, run one op and read
// results back. The references the tests compare with are written in the
// tests themselves, never taken from the backend.
#ifndef OXINFER_PLUGINS_BACKENDS_CPU_CPU_TEST_UTIL_H_
#define OXINFER_PLUGINS_BACKENDS_CPU_CPU_TEST_UTIL_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "oxinfer/plugin.hpp"

namespace oxinfer {
namespace cpu_test {

struct Variant {
  std::string name;  // "cpu-avx2"
  const oxi_backend_iface* iface = nullptr;
};

// The plugin files to test (main() passes its arguments; cpu_test_main.cc).
void SetPluginPaths(std::vector<std::string> paths);

// The variants that run on this CPU, in command-line order (scalar first).
const std::vector<Variant>& Variants();
// Every plugin path given, and the registry's verdict (declined ones too).
struct PluginVerdict {
  std::string path, name, reason;
  int32_t score = 0;
  bool loaded = false;
};
const std::vector<PluginVerdict>& Verdicts();

// One variant's buffers and ops. Every tensor it hands out lives in a
// buffer of its own, padded with NaN bytes around the view so that reads
// or writes outside it show.
class Dev {
 public:
  explicit Dev(const Variant& v) : variant_(v), cx_(v.iface) {}
  const std::string& name() const { return variant_.name; }
  const oxi_backend_iface* iface() const { return variant_.iface; }

  // rows x cols of type t from packed host rows, stored with row_stride
  // (0: packed) at byte offset `offset` of a new buffer.
  sdk::Tensor Upload(const void* rows_data, oxi_dtype t, int64_t rows, int64_t cols,
                     int64_t row_stride = 0, uint64_t offset = 0);
  sdk::Tensor F32(const std::vector<float>& v, int64_t rows, int64_t cols,
                  int64_t stride_elems = 0);
  sdk::Tensor I32(const std::vector<int32_t>& v);
  // A tensor of NaN bytes (outputs).
  sdk::Tensor Empty(oxi_dtype t, int64_t rows, int64_t cols, int64_t row_stride = 0);
  sdk::Tensor EmptyF32(int64_t rows, int64_t cols, int64_t stride_elems = 0) {
    return Empty(OXI_DTYPE_F32, rows, cols, stride_elems * 4);
  }

  std::vector<float> ReadF32(const oxi_tensor& t);
  std::vector<int32_t> ReadI32(const oxi_tensor& t);
  std::vector<uint8_t> ReadBytes(const oxi_tensor& t);
  // The whole buffer of t (to check padding is untouched).
  std::vector<uint8_t> ReadBuffer(const oxi_tensor& t);

  // Runs one op; OXI_OK or the code, with the message in error().
  int32_t Run(const oxi_op& op);
  // Whether this backend takes the op: always for a complete one; for a
  // partial one (an accelerator: the Vulkan backend) what supports() says.
  // A case a partial backend leaves to the CPU is skipped for it, as the
  // dispatcher would run it on the CPU.
  bool Takes(const oxi_op& op) const;
  // Checks that the op is refused: by a complete backend with
  // OXI_INVALID_ARGUMENT and a message containing `text`; by a partial one
  // with any error (its supports() leaves invalid calls to the CPU's checks).
  void ExpectRejected(const oxi_op& op, const std::string& text);
  const std::string& error() const { return error_; }

  sdk::Compute& cx() { return cx_; }

 private:
  sdk::Tensor Place(oxi_dtype t, int64_t rows, int64_t cols, int64_t row_stride, uint64_t offset);

  Variant variant_;
  sdk::Compute cx_;
  std::vector<sdk::Buffer> buffers_;
  std::vector<uint64_t> sizes_;
  std::string error_;
};

// An oxi_tensor as the SDK's view type.
inline sdk::Tensor View(const oxi_tensor& t) {
  return sdk::Tensor(t.buffer, t.offset, static_cast<oxi_dtype>(t.dtype), t.rows, t.cols,
                     t.row_stride);
}

std::vector<float> Random(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f);

// An op struct with its header filled in.
template <typename Args>
Args Make(int kind) {
  Args a;
  oxi_op_init(&a.op, sizeof(Args), kind);
  return a;
}

}  // namespace cpu_test
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_BACKENDS_CPU_CPU_TEST_UTIL_H_
