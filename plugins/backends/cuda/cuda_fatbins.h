// The kernels' fat binaries (sm_90 SASS and compute_80 PTX, which the driver
// compiles for other GPUs), made by nvcc at build time (BUILD) and embedded
// here: cuda_fatbins.cc includes bin2c's output of each.
#ifndef OXINFER_PLUGINS_BACKENDS_CUDA_CUDA_FATBINS_H_
#define OXINFER_PLUGINS_BACKENDS_CUDA_CUDA_FATBINS_H_

#include <cstddef>

namespace oxinfer {
namespace cuda {

struct Fatbin {
  const char* name;  // the kernel file's stem: "matmul"
  const unsigned char* data;
  size_t size;
};

// Every kernel file's fatbin; `count` receives how many.
const Fatbin* Fatbins(size_t* count);

}  // namespace cuda
}  // namespace oxinfer

#endif  // OXINFER_PLUGINS_BACKENDS_CUDA_CUDA_FATBINS_H_
