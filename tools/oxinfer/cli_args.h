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

// Removes every "--NAME VALUE" and "--NAME=VALUE" from normalised args (before
// a bare "--") and returns the values in order: a flag given several times
// (--image a.png --image b.png), which Abseil would keep only the last of. A
// missing value is returned as "" (the caller refuses it).
std::vector<std::string> TakeRepeatedFlag(std::vector<std::string>* args, const std::string& name);

}  // namespace oxinfer

#endif  // OXINFER_TOOLS_OXINFER_CLI_ARGS_H_
