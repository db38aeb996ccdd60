// Which of a repository's files a model plugin reads: the transformers layout
// (config, generation config, tokenizer, chat template, processor configs,
// safetensors and their index, at the top level), or for a diffusers
// repository (model_index.json) the folders of the pipeline's components.
// Never weights of other frameworks or formats (ONNX, GGUF, PyTorch .bin,
// Flax, TensorFlow, OpenVINO), single-file checkpoints beside a diffusers
// layout, or a diffusers variant (.fp16) when the plain file is there.
#ifndef OXINFER_CORE_HUB_FILE_SELECTION_H_
#define OXINFER_CORE_HUB_FILE_SELECTION_H_

#include <string>
#include <vector>

#include "core/hub/model_info.h"

namespace oxinfer::hub {

// The files to fetch, in the order given. Empty when the repository has
// neither config.json nor model_index.json.
std::vector<RepoFile> SelectModelFiles(const std::vector<RepoFile>& files);

}  // namespace oxinfer::hub

#endif  // OXINFER_CORE_HUB_FILE_SELECTION_H_
