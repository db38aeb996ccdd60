// Tests that link plugin code directly (config parsers, preprocessors): the
// host's services are put in the plugin SDK's slot before the first test, as
// the host does when it loads a plugin. Depend on :plugin_host to get that.
#ifndef OXINFER_TESTS_SUPPORT_PLUGIN_HOST_H_
#define OXINFER_TESTS_SUPPORT_PLUGIN_HOST_H_

#include <string>

namespace oxinfer::testing {

// A data file's text, read through the host's services (at most 1 MiB); a
// test failure and "" when it cannot be read.
std::string ReadTestFile(const std::string& path);

}  // namespace oxinfer::testing

#endif  // OXINFER_TESTS_SUPPORT_PLUGIN_HOST_H_
