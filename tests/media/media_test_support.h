// The codec plugins of this tree loaded into a registry, as the host loads
// them, and the fixtures' files, for the media tests.
#ifndef OXINFER_TESTS_MEDIA_MEDIA_TEST_SUPPORT_H_
#define OXINFER_TESTS_MEDIA_MEDIA_TEST_SUPPORT_H_

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "core/plugin_registry.h"

namespace oxinfer::testing {

// Every codec plugin in //tests/media's data, loaded (the test fails on a
// plugin that does not load).
const PluginRegistry& CodecRegistry();

std::string ReadBytes(const std::string& path);

// tests/media/testdata/<sub>/cases.json entries: "file", "expected" and the
// rest as strings.
struct FixtureCase {
  std::string file, expected;
  int width = 0, height = 0;
  int rate = 0, channels = 0;
  std::string codec;
};
inline void PrintTo(const FixtureCase& c, std::ostream* os) { *os << c.file; }
std::vector<FixtureCase> ReadCases(const std::string& sub);

// The fixture folder tests/media/testdata/<sub> in the runfiles.
std::string FixtureDir(const std::string& sub);

}  // namespace oxinfer::testing

#endif  // OXINFER_TESTS_MEDIA_MEDIA_TEST_SUPPORT_H_
