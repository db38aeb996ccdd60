// Finds ../shared/data (real tokenizer files and llama.cpp's test vectors:
// test data that is never copied into the repository). Looks at
// $OXINFER_TOKENIZERS_DIR, then for shared/data/tokenizers in every ancestor
// of the real path of `anchor_runfile` (a committed file of the test's), so
// a checkout with ../shared beside it (as CI's) finds it. "" when absent.
#ifndef OXINFER_TESTS_TOKENIZER_SHARED_DATA_H_
#define OXINFER_TESTS_TOKENIZER_SHARED_DATA_H_

#include <string>

namespace oxinfer {

std::string RunfilePath(const std::string& rel);
std::string FindTokenizersDir(const std::string& anchor_runfile);

}  // namespace oxinfer

#endif  // OXINFER_TESTS_TOKENIZER_SHARED_DATA_H_
