#include "tools/oxinfer/cli_args.h"

#include <algorithm>
#include <utility>

namespace oxinfer {
namespace {

const std::pair<const char*, const char*> kShortFlags[] = {
    {"-p", "--prompt"},
    {"-o", "--output"},
    {"-m", "--model"},
    {"-h", "--help"},
};

}  // namespace

std::vector<std::string> NormalizeArgs(int argc, char** argv) {
  std::vector<std::string> out;
  bool flags_done = false;
  bool next_is_value = false;
  for (int i = 0; i < argc; ++i) {
    std::string arg = argv[i];
    if (i == 0 || flags_done || next_is_value) {
      next_is_value = false;
      out.push_back(std::move(arg));
      continue;
    }
    if (arg == "--") {
      flags_done = true;
      out.push_back(std::move(arg));
      continue;
    }
    bool is_short = false;
    for (const auto& [short_name, long_name] : kShortFlags) {
      if (arg == short_name) {
        arg = long_name;
        is_short = true;
      }
    }
    if (arg.size() > 2 && arg[0] == '-' && arg[1] == '-') {
      const size_t eq = arg.find('=');
      const size_t end = eq == std::string::npos ? arg.size() : eq;
      std::replace(arg.begin() + 2, arg.begin() + end, '-', '_');
      // "-p TEXT": the next argument is the value, even if it starts with '-'.
      if (is_short && eq == std::string::npos && arg != "--help") next_is_value = true;
    }
    out.push_back(std::move(arg));
  }
  return out;
}

std::vector<std::string> TakeRepeatedFlag(std::vector<std::string>* args, const std::string& name) {
  const std::string flag = "--" + name;
  std::vector<std::string> values, kept;
  bool flags_done = false;
  for (size_t i = 0; i < args->size(); ++i) {
    std::string& arg = (*args)[i];
    if (i == 0 || flags_done || arg == "--") {
      flags_done = flags_done || (i > 0 && arg == "--");
      kept.push_back(std::move(arg));
    } else if (arg == flag) {
      values.push_back(i + 1 < args->size() ? std::move((*args)[++i]) : std::string());
    } else if (arg.compare(0, flag.size() + 1, flag + "=") == 0) {
      values.push_back(arg.substr(flag.size() + 1));
    } else {
      kept.push_back(std::move(arg));
    }
  }
  *args = std::move(kept);
  return values;
}

}  // namespace oxinfer
