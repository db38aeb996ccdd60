// The template budget (docs/limits.md): hostile templates fail with
// RESOURCE_EXHAUSTED or INVALID_ARGUMENT naming the limit, quickly and in
// bounded memory, instead of overflowing the stack, running forever or
// allocating gigabytes.
#include <string>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/chat/jinja.h"
#include "core/chat/value.h"
#include "gtest/gtest.h"

namespace oxinfer::chat {
namespace {

absl::StatusOr<std::string> Render(const std::string& src, const JinjaOptions& options = {}) {
  auto t = JinjaTemplate::Parse(src, options);
  if (!t.ok()) return t.status();
  return t->Render(Value::Dict());
}

std::string Repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

void ExpectRefused(const std::string& src, const std::string& why) {
  auto r = Render(src);
  ASSERT_FALSE(r.ok()) << src.substr(0, 80) << " rendered " << r->size() << " bytes";
  EXPECT_TRUE(absl::StrContains(r.status().message(), why))
      << src.substr(0, 80) << ": " << r.status();
}

TEST(JinjaBudgetTest, DeepNestingIsAnErrorNotAStackOverflow) {
  ExpectRefused(Repeat("{% if true %}", 100000) + "x" + Repeat("{% endif %}", 100000),
                "nested too deeply");
  ExpectRefused("{{ " + Repeat("(", 100000) + "1" + Repeat(")", 100000) + " }}",
                "nested too deeply");
  ExpectRefused("{{ " + Repeat("[", 100000) + Repeat("]", 100000) + " }}", "nested too deeply");
  ExpectRefused("{{ x" + Repeat(".a", 100000) + " }}", "");
  ExpectRefused("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}", "recursion too deep");
}

TEST(JinjaBudgetTest, EndlessLoopsRunOutOfSteps) {
  ExpectRefused("{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}",
                "budget of 10000000 steps");
  auto r = Render("{% for a in range(1000) %}{{ a }}{% endfor %}");
  ASSERT_TRUE(r.ok()) << r.status();

  JinjaOptions tight;
  tight.budget.max_steps = 100;
  r = Render("{% for a in range(1000) %}{{ a }}{% endfor %}", tight);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted) << r.status();
  EXPECT_TRUE(absl::StrContains(r.status().message(), "budget of 100 steps")) << r.status();
}

TEST(JinjaBudgetTest, HugeIntegersAreRefusedNotComputedForever) {
  // Python has no such integers either way: it refuses to print more than
  // 4300 digits (int_max_str_digits); the template refuses to make them.
  ExpectRefused("{{ 2 ** (10**18) }}", "more than 4300 decimal digits");
  ExpectRefused("{{ 10 ** 4300 }}", "more than 4300 decimal digits");
  ExpectRefused("{{ (10 ** 2000) * (10 ** 2400) }}", "more than 4300 decimal digits");
  ExpectRefused("{{ " + std::string(4301, '7') + " }}", "more than 4300 digits");
  auto r = Render("{{ 2 ** 62 }} {{ (-1) ** 1000000000000000000 }} {{ 3 ** 39 }}");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, "4611686018427387904 1 4052555153018976267");
  auto most = Render("{{ (10 ** 4299) | string | length }}");
  ASSERT_TRUE(most.ok()) << most.status();
  EXPECT_EQ(*most, "4300");
}

// Beyond 64 bits, integers are exact and print as Python prints them
// (expected values from Python 3.11), not as floats or errors.
TEST(JinjaBudgetTest, IntegersBeyond64BitsAreExactAsInPython) {
  const std::pair<const char*, const char*> cases[] = {
      {"{{ 9223372036854775807 + 1 }}", "9223372036854775808"},
      {"{{ -9223372036854775807 - 2 }}", "-9223372036854775809"},
      {"{{ 4294967296 * 4294967296 }}", "18446744073709551616"},
      {"{{ (-9223372036854775807 - 1) // -1 }}", "9223372036854775808"},
      {"{{ -(-9223372036854775807 - 1) }}", "9223372036854775808"},
      {"{{ 2 ** 64 // 3 }} {{ 2 ** 100 % 7 }} {{ -(2 ** 70) }}",
       "6148914691236517205 2 -1180591620717411303424"},
      {"{{ (-7) ** 23 // 10 ** 9 }} {{ (-7) ** 23 % 10 ** 9 }}", "-27368747341 919083657"},
      {"{{ 2 ** 64 > 2 ** 63 }} {{ -(2 ** 64) < -(2 ** 63) }} {{ 2 ** 64 == 18446744073709551616 "
       "}}",
       "True True True"},
      {"{{ 2 ** 64 - 2 ** 64 + 5 }} {{ (2 ** 64) / 2 }}", "5 9.223372036854776e+18"},
      {"{{ [2 ** 64, -2 ** 65] | tojson }}", "[18446744073709551616, -36893488147419103232]"},
      {"{{ 123456789012345678901234567890 }}", "123456789012345678901234567890"},
      // Jinja2's ** is left-associative: (2 ** 10) ** 18.
      {"{{ 2 ** 10**18 }}", "1532495540865888858358347027150309183618739122183602176"},
      {"{{ [3, 2 ** 65, -2 ** 65, 0] | sort | join(',') }}",
       "-36893488147419103232,0,3,36893488147419103232"},
  };
  for (const auto& [src, want] : cases) {
    auto r = Render(src);
    ASSERT_TRUE(r.ok()) << src << ": " << r.status();
    EXPECT_EQ(*r, want) << src;
  }
  // From JSON (a tool schema's bounds), as Python's json reads them.
  auto v = Value::FromJson(R"({"max": 18446744073709551615, "min": -99999999999999999999})");
  ASSERT_TRUE(v.ok()) << v.status();
  auto t = JinjaTemplate::Parse("{{ x.max + 1 }} {{ x | tojson }}", {});
  ASSERT_TRUE(t.ok());
  Value ctx = Value::Dict();
  ctx.object().Set("x", *v);
  auto out = t->Render(ctx);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(*out,
            "18446744073709551616 {\"max\": 18446744073709551615, \"min\": -99999999999999999999}");
}

TEST(JinjaBudgetTest, LargeStringsAndListsAreRefusedBeforeAllocation) {
  ExpectRefused("{{ 'x' | center(1000000000000) }}", "template budget");
  ExpectRefused("{{ 'a\nb' | indent(1000000000000) }}", "template budget");
  ExpectRefused("{{ {'a': 1} | tojson(indent=1000000000000) }}", "template budget");
  ExpectRefused("{{ 'ab' * 1000000000000 }}", "template budget");
  ExpectRefused("{{ [1, 2] * 1000000000 }}", "template budget");
  ExpectRefused(
      "{% set ns = namespace(s='ab') %}{% for i in range(100) %}{% set ns.s = ns.s ~ ns.s %}"
      "{% endfor %}{{ ns.s | length }}",
      "budget of 67108864 bytes");
  ExpectRefused("{{ ('a' * 10000000) | replace('a', 'aaaaaaaaaa') }}", "budget of 67108864 bytes");
  ExpectRefused("{{ ('a' * 10000000).replace('a', 'aaaaaaaaaa') }}", "budget of 67108864 bytes");
  ExpectRefused("{{ ([('a' * 10000000)] * 10) | join('') }}", "budget of 67108864 bytes");
  ExpectRefused("{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}",
                "output is more than its budget");
}

TEST(JinjaBudgetTest, OutputBudgetCanBeSet) {
  JinjaOptions small;
  small.budget.max_output_bytes = 10;
  auto r = Render("{{ 'hello world' }}", small);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted) << r.status();
  r = Render("{{ 'hello' }}", small);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, "hello");
}

}  // namespace
}  // namespace oxinfer::chat
