/* oxinfer plugin ABI, a plain C interface: the one header a plugin includes.
 *
 *   abi_common.h   versioning rules, status codes, host services (thread
 *                  pool, files, JSON, safetensors), the plugin descriptor
 *   ops.h          backend operations as data: tensors, op kinds, arguments
 *   backend_abi.h  compute backends: buffers, supports / execute
 *   model_abi.h    model plugins: probe, open, info, batched forward, images
 *   codec_abi.h    media codecs
 *   dtype.h        element types and block layouts
 *
 * The header-only C++ SDK over it is oxinfer/plugin.hpp.
 */
#ifndef OXINFER_PLUGIN_ABI_H_
#define OXINFER_PLUGIN_ABI_H_

#include "oxinfer/abi_common.h"
#include "oxinfer/backend_abi.h"
#include "oxinfer/codec_abi.h"
#include "oxinfer/dtype.h"
#include "oxinfer/model_abi.h"
#include "oxinfer/ops.h"

#endif /* OXINFER_PLUGIN_ABI_H_ */
