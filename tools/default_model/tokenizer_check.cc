// Reads NUL-separated texts from stdin; for each prints one line: the ids that
// //core/tokenizer gives (add_special_tokens=false), a tab, then the hex of
// Decode(ids). Used by tools/default_model/check_tokenizer.py.
#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>

#include "core/tokenizer/tokenizer.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s tokenizer.json < texts\n", argv[0]);
    return 2;
  }
  auto tok = oxinfer::tokenizer::Tokenizer::FromFile(argv[1]);
  if (!tok.ok()) {
    std::fprintf(stderr, "%s\n", std::string(tok.status().message()).c_str());
    return 1;
  }
  std::string all((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  size_t start = 0;
  while (start <= all.size()) {
    size_t end = all.find('\0', start);
    if (end == std::string::npos) end = all.size();
    if (end == start && end == all.size()) break;
    const std::string text = all.substr(start, end - start);
    const auto ids = (*tok)->Encode(text, /*add_special_tokens=*/false);
    std::string line;
    for (size_t i = 0; i < ids.size(); ++i) line += (i ? " " : "") + std::to_string(ids[i]);
    line += '\t';
    static const char kHex[] = "0123456789abcdef";
    for (unsigned char c : (*tok)->Decode(ids, false)) {
      line += kHex[c >> 4];
      line += kHex[c & 15];
    }
    std::printf("%s\n", line.c_str());
    start = end + 1;
  }
  return 0;
}
