#include "plugins/backends/cuda/cuda_fatbins.h"

namespace oxinfer {
namespace cuda {
namespace {
// bin2c's arrays (BUILD: one per kernels/<name>.cu).
#include "plugins/backends/cuda/attention.fatbin.inc"
#include "plugins/backends/cuda/elementwise.fatbin.inc"
#include "plugins/backends/cuda/image.fatbin.inc"
#include "plugins/backends/cuda/matmul.fatbin.inc"
#include "plugins/backends/cuda/norms.fatbin.inc"
#include "plugins/backends/cuda/recurrent.fatbin.inc"

const Fatbin kFatbins[] = {
    {"attention", kFatbin_attention, sizeof(kFatbin_attention)},
    {"elementwise", kFatbin_elementwise, sizeof(kFatbin_elementwise)},
    {"image", kFatbin_image, sizeof(kFatbin_image)},
    {"matmul", kFatbin_matmul, sizeof(kFatbin_matmul)},
    {"norms", kFatbin_norms, sizeof(kFatbin_norms)},
    {"recurrent", kFatbin_recurrent, sizeof(kFatbin_recurrent)},
};
}  // namespace

const Fatbin* Fatbins(size_t* count) {
  *count = sizeof(kFatbins) / sizeof(kFatbins[0]);
  return kFatbins;
}

}  // namespace cuda
}  // namespace oxinfer
