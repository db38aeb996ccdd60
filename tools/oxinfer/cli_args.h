// The original oxinfer CLI spells flags with dashes (--max-tokens) and has
// short forms (-p); Abseil flags are named with underscores. This rewrites
// argv into Abseil's spelling before parsing, so both spellings work.
#ifndef OXINFER_TOOLS_OXINFER_CLI_ARGS_H_
#define OXINFER_TOOLS_OXINFER_CLI_ARGS_H_

#include <string>
#include <vector>

namespace oxinfer {

// "--max-tokens=5" -> "--max_tokens=5", "-p" -> "--prompt", "-o" -> "--output".
// Arguments after a bare "--" and values are left as they are.
std::vector<std::string> NormalizeArgs(int argc, char** argv);

}  // namespace oxinfer

#endif  // OXINFER_TOOLS_OXINFER_CLI_ARGS_H_
