#include "core/builtin_tools/calculator.h"

#include <gmp.h>

#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace oxinfer::builtin_tools {
namespace {

// An owned mpq_t.
class Rational {
 public:
  Rational() { mpq_init(q_); }
  ~Rational() { mpq_clear(q_); }
  Rational(const Rational&) = delete;
  Rational& operator=(const Rational&) = delete;
  Rational(Rational&& o) noexcept {
    mpq_init(q_);
    mpq_swap(q_, o.q_);
  }
  Rational& operator=(Rational&& o) noexcept {
    mpq_swap(q_, o.q_);
    return *this;
  }
  mpq_ptr get() { return q_; }
  mpq_srcptr get() const { return q_; }
  size_t bits() const {
    return mpz_sizeinbase(mpq_numref(q_), 2) + mpz_sizeinbase(mpq_denref(q_), 2);
  }

 private:
  mpq_t q_;
};

class Evaluator {
 public:
  explicit Evaluator(absl::string_view s) : s_(s) {}

  absl::StatusOr<Rational> Run() {
    auto v = Sum(0);
    if (!v.ok()) return v;
    SkipSpace();
    if (pos_ != s_.size()) return Error("unexpected character");
    return v;
  }

 private:
  absl::Status Error(absl::string_view what) const {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " at position ", pos_ + 1, " of the expression"));
  }
  absl::Status TooLarge(absl::string_view what) const {
    return absl::OutOfRangeError(absl::StrCat(what, " (at position ", pos_ + 1,
                                              "): the result would exceed ", kMaxValueBits,
                                              " bits; refused"));
  }
  void SkipSpace() {
    while (pos_ < s_.size() && absl::ascii_isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool Eat(absl::string_view op) {
    SkipSpace();
    if (s_.substr(pos_, op.size()) != op) return false;
    pos_ += op.size();
    return true;
  }

  absl::StatusOr<Rational> Sum(int depth) {
    auto left = Product(depth);
    if (!left.ok()) return left;
    for (;;) {
      const bool add = Eat("+");
      if (!add && !Eat("-")) return left;
      auto right = Product(depth);
      if (!right.ok()) return right;
      // a/b + c/d has a denominator up to b*d and a numerator one bit past ad+cb.
      if (left->bits() + right->bits() + 1 > kMaxValueBits) return TooLarge("sum");
      Rational r;
      (add ? mpq_add : mpq_sub)(r.get(), left->get(), right->get());
      left = std::move(r);
    }
  }

  absl::StatusOr<Rational> Product(int depth) {
    auto left = Unary(depth);
    if (!left.ok()) return left;
    for (;;) {
      SkipSpace();
      if (s_.substr(pos_, 2) == "**") return left;  // a power, not a product
      const bool mul = Eat("*");
      if (!mul && !Eat("/")) return left;
      auto right = Unary(depth);
      if (!right.ok()) return right;
      if (!mul && mpq_sgn(right->get()) == 0) return Error("division by zero");
      if (left->bits() + right->bits() > kMaxValueBits) return TooLarge("product");
      Rational r;
      (mul ? mpq_mul : mpq_div)(r.get(), left->get(), right->get());
      left = std::move(r);
    }
  }

  // Unary minus binds looser than ^, as in Python: -2^2 is -4.
  absl::StatusOr<Rational> Unary(int depth) {
    if (depth > kMaxNesting) return absl::OutOfRangeError("the expression is nested too deeply");
    if (Eat("-")) {
      auto v = Unary(depth + 1);
      if (!v.ok()) return v;
      mpq_neg(v->get(), v->get());
      return v;
    }
    if (Eat("+")) return Unary(depth + 1);
    return Power(depth);
  }

  // Right-associative: 2^3^2 is 2^9.
  absl::StatusOr<Rational> Power(int depth) {
    auto base = Primary(depth);
    if (!base.ok()) return base;
    if (!Eat("^") && !Eat("**")) return base;
    auto exponent = Unary(depth + 1);
    if (!exponent.ok()) return exponent;
    if (mpz_cmp_ui(mpq_denref(exponent->get()), 1) != 0) {
      return Error("the exponent must be an integer");
    }
    mpz_srcptr e = mpq_numref(exponent->get());
    const bool negative = mpz_sgn(e) < 0;
    if (negative && mpq_sgn(base->get()) == 0) {
      return Error("division by zero (0 to a negative power)");
    }
    // 0, 1 and -1 stay small whatever the exponent.
    if (mpz_cmpabs_ui(mpq_numref(base->get()), 1) <= 0 &&
        mpz_cmp_ui(mpq_denref(base->get()), 1) == 0) {
      if (mpq_sgn(base->get()) >= 0 || mpz_even_p(e)) {
        if (mpq_sgn(base->get()) < 0) mpq_neg(base->get(), base->get());
        if (mpz_sgn(e) == 0) mpq_set_ui(base->get(), 1, 1);
      }
      return base;
    }
    if (mpz_sizeinbase(e, 2) > 32) return TooLarge("power");
    const unsigned long magnitude = mpz_get_ui(e);  // |e|: GMP ignores the sign
    // Each of numerator and denominator grows to at most magnitude times its bits.
    if (static_cast<double>(base->bits()) * static_cast<double>(magnitude) >
        static_cast<double>(kMaxValueBits)) {
      return TooLarge("power");
    }
    Rational r;
    mpz_pow_ui(mpq_numref(r.get()), mpq_numref(base->get()), magnitude);
    mpz_pow_ui(mpq_denref(r.get()), mpq_denref(base->get()), magnitude);
    mpq_canonicalize(r.get());
    if (negative) mpq_inv(r.get(), r.get());
    return r;
  }

  absl::StatusOr<Rational> Primary(int depth) {
    SkipSpace();
    if (Eat("(")) {
      auto v = Sum(depth + 1);
      if (!v.ok()) return v;
      if (!Eat(")")) return Error("expected ')'");
      return v;
    }
    return Number();
  }

  absl::StatusOr<Rational> Number() {
    SkipSpace();
    const size_t start = pos_;
    std::string digits;
    size_t decimals = 0;
    bool point = false;
    while (pos_ < s_.size()) {
      const char c = s_[pos_];
      if (absl::ascii_isdigit(static_cast<unsigned char>(c))) {
        digits.push_back(c);
        if (point) ++decimals;
      } else if (c == '.' && !point) {
        point = true;
      } else if (c != '_') {  // 1_000_000
        break;
      }
      ++pos_;
      if (digits.size() > kMaxLiteralDigits) {
        return absl::OutOfRangeError(absl::StrCat("a number at position ", start + 1,
                                                  " has more than ", kMaxLiteralDigits,
                                                  " digits; refused"));
      }
    }
    if (digits.empty()) {
      pos_ = start;
      return Error(pos_ < s_.size() ? "expected a number or '('" : "expected a number");
    }
    Rational r;
    mpz_set_str(mpq_numref(r.get()), digits.c_str(), 10);
    mpz_ui_pow_ui(mpq_denref(r.get()), 10, decimals);
    mpq_canonicalize(r.get());
    return r;
  }

  absl::string_view s_;
  size_t pos_ = 0;
};

std::string ZToString(mpz_srcptr z) {
  std::unique_ptr<char, void (*)(void*)> text(mpz_get_str(nullptr, 10, z), free);
  return text.get();
}

// The exact decimal of n / (2^a 5^b), or "" when the denominator has another factor.
std::string Decimal(const Rational& v) {
  mpz_t den, scaled;
  mpz_init_set(den, mpq_denref(v.get()));
  const unsigned long twos = mpz_scan1(den, 0);
  mpz_fdiv_q_2exp(den, den, twos);
  unsigned long fives = 0;
  while (mpz_divisible_ui_p(den, 5)) {
    mpz_divexact_ui(den, den, 5);
    ++fives;
  }
  const bool terminates = mpz_cmp_ui(den, 1) == 0;
  mpz_clear(den);
  if (!terminates) return "";
  const unsigned long places = twos > fives ? twos : fives;
  mpz_init(scaled);
  mpz_ui_pow_ui(scaled, 10, places);
  mpz_mul(scaled, scaled, mpq_numref(v.get()));
  mpz_divexact(scaled, scaled, mpq_denref(v.get()));
  const bool negative = mpz_sgn(scaled) < 0;
  mpz_abs(scaled, scaled);
  std::string digits = ZToString(scaled);
  mpz_clear(scaled);
  if (places > 0) {
    if (digits.size() <= places) digits.insert(0, places - digits.size() + 1, '0');
    digits.insert(digits.size() - places, ".");
  }
  return negative ? "-" + digits : digits;
}

// 20 decimals of |v|, truncated, with its sign.
std::string Approximation(const Rational& v) {
  mpz_t scaled;
  mpz_init(scaled);
  mpz_ui_pow_ui(scaled, 10, 20);
  mpz_mul(scaled, scaled, mpq_numref(v.get()));
  mpz_tdiv_q(scaled, scaled, mpq_denref(v.get()));
  const bool negative = mpq_sgn(v.get()) < 0;
  mpz_abs(scaled, scaled);
  std::string digits = ZToString(scaled);
  mpz_clear(scaled);
  if (digits.size() <= 20) digits.insert(0, 21 - digits.size(), '0');
  digits.insert(digits.size() - 20, ".");
  return negative ? "-" + digits : digits;
}

}  // namespace

absl::StatusOr<std::string> Calculate(absl::string_view expression) {
  if (expression.size() > kMaxExpressionBytes) {
    return absl::OutOfRangeError(absl::StrCat("the expression has ", expression.size(),
                                              " bytes, more than ", kMaxExpressionBytes,
                                              "; refused"));
  }
  if (absl::StripAsciiWhitespace(expression).empty()) {
    return absl::InvalidArgumentError("the expression is empty");
  }
  auto value = Evaluator(expression).Run();
  if (!value.ok()) return value.status();
  std::string exact = Decimal(*value);
  if (!exact.empty()) return exact;
  return absl::StrCat(ZToString(mpq_numref(value->get())), "/", ZToString(mpq_denref(value->get())),
                      " \xE2\x89\x88 ", Approximation(*value));
}

}  // namespace oxinfer::builtin_tools
