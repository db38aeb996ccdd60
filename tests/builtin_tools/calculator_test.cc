// The calculator's exactness, its grammar and its bounds (refused at once,
// without computing: 9^9^9, a number of a million digits).
#include "core/builtin_tools/calculator.h"

#include <string>

#include "absl/status/status.h"
#include "core/builtin_tools/builtin_tools.h"
#include "gtest/gtest.h"

namespace oxinfer::builtin_tools {
namespace {

std::string Calc(const std::string& e) {
  auto r = Calculate(e);
  return r.ok() ? *r : "ERR " + std::string(r.status().message());
}

TEST(CalculatorTest, ExactDecimals) {
  EXPECT_EQ(Calc("1234.5 * 6789 - 2^20"), "7332444.5");
  EXPECT_EQ(Calc("0.1 + 0.2"), "0.3");
  EXPECT_EQ(Calc("1/8"), "0.125");
  EXPECT_EQ(Calc("-1/8"), "-0.125");
  EXPECT_EQ(Calc("2^-3"), "0.125");
  EXPECT_EQ(Calc("10 / 4 * 2"), "5");
  EXPECT_EQ(Calc("1.50"), "1.5");
  EXPECT_EQ(Calc(".5 + 1."), "1.5");
  EXPECT_EQ(Calc("2^100"), "1267650600228229401496703205376");
  EXPECT_EQ(Calc("99999999999999999999 * 99999999999999999999"),
            "9999999999999999999800000000000000000001");
  EXPECT_EQ(Calc("1_000 * 3"), "3000");
}

TEST(CalculatorTest, NonTerminatingFractionsAreExactWithAnApproximation) {
  EXPECT_EQ(Calc("1/3"), "1/3 \xE2\x89\x88 0.33333333333333333333");
  EXPECT_EQ(Calc("-2/3"), "-2/3 \xE2\x89\x88 -0.66666666666666666666");
}

TEST(CalculatorTest, PrecedenceAndAssociativity) {
  EXPECT_EQ(Calc("2 + 3 * 4"), "14");
  EXPECT_EQ(Calc("(2 + 3) * 4"), "20");
  EXPECT_EQ(Calc("2^3^2"), "512");  // right-associative
  EXPECT_EQ(Calc("2**3**2"), "512");
  EXPECT_EQ(Calc("-2^2"), "-4");  // as in Python
  EXPECT_EQ(Calc("(-2)^2"), "4");
  EXPECT_EQ(Calc("10 - 2 - 3"), "5");
  EXPECT_EQ(Calc("64 / 4 / 2"), "8");
  EXPECT_EQ(Calc("--3"), "3");
  EXPECT_EQ(Calc("1^999999999999999999999"), "1");
  EXPECT_EQ(Calc("(-1)^999999999999999999999"), "-1");
  EXPECT_EQ(Calc("0^0"), "1");
}

TEST(CalculatorTest, Errors) {
  EXPECT_EQ(Calc("1/0"), "ERR division by zero at position 4 of the expression");
  EXPECT_EQ(Calc("0^-1").substr(0, 20), "ERR division by zero");
  EXPECT_EQ(Calc("2^0.5"), "ERR the exponent must be an integer at position 6 of the expression");
  EXPECT_EQ(Calc(""), "ERR the expression is empty");
  EXPECT_EQ(Calc("(1+2"), "ERR expected ')' at position 5 of the expression");
  EXPECT_EQ(Calc("1 +"), "ERR expected a number at position 4 of the expression");
  EXPECT_EQ(Calc("2 x 3"), "ERR unexpected character at position 3 of the expression");
  // Arithmetic only: nothing else is evaluated.
  EXPECT_EQ(Calc("__import__('os')").substr(0, 4), "ERR ");
  EXPECT_EQ(Calc("system(1)").substr(0, 4), "ERR ");
  EXPECT_EQ(Calc("1e5").substr(0, 4), "ERR ");
}

TEST(CalculatorTest, BoundsRefuseHugeWorkAtOnce) {
  auto tower = Calculate("9^9^9");
  ASSERT_FALSE(tower.ok());
  EXPECT_EQ(tower.status().code(), absl::StatusCode::kOutOfRange) << tower.status();
  EXPECT_FALSE(Calculate("2^(2^40)").ok());
  EXPECT_FALSE(Calculate("10^100000").ok());
  const std::string million(1000000, '7');
  auto big = Calculate(million);
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.status().code(), absl::StatusCode::kOutOfRange);
  auto digits = Calculate(std::string(1001, '1'));
  ASSERT_FALSE(digits.ok());
  EXPECT_EQ(digits.status().code(), absl::StatusCode::kOutOfRange);
  // Products that grow past the bound are refused before they are computed.
  std::string squares = "(2^10000)";
  for (int i = 0; i < 4; ++i) squares = "(" + squares + "*" + squares + ")";
  EXPECT_EQ(Calculate(squares).status().code(), absl::StatusCode::kOutOfRange);
  std::string deep(200, '(');
  deep += "1" + std::string(200, ')');
  EXPECT_EQ(Calculate(deep).status().code(), absl::StatusCode::kOutOfRange);
  // Near the bound it still computes.
  EXPECT_TRUE(Calculate("2^10000 - 1").ok());
}

TEST(BuiltinToolsTest, RunsCallsAndReportsErrorsAsText) {
  engine::ToolCall call;
  call.name = "calculate";
  call.arguments.object().Set("expression", chat::Value("1234.5 * 6789 - 2^20"));
  EXPECT_EQ(builtin_tools::Run(call), "7332444.5");
  call.arguments.object().Set("expression", chat::Value("1/0"));
  EXPECT_EQ(builtin_tools::Run(call), "error: division by zero at position 4 of the expression");
  call.arguments = chat::Value::Dict();
  EXPECT_EQ(builtin_tools::Run(call), "error: calculate needs a string argument \"expression\"");
  call.name = "rm";
  EXPECT_EQ(builtin_tools::Run(call),
            "error: no tool named 'rm' (the tools are calculate and get_current_datetime)");
  call.name = "get_current_datetime";
  const std::string now = builtin_tools::Run(call);
  EXPECT_NE(now.find("UTC"), std::string::npos) << now;
  EXPECT_EQ(Declarations().array().size(), 2u);
}

}  // namespace
}  // namespace oxinfer::builtin_tools
