#include "core/chat/jinja_bigint.h"

#include <gmp.h>

#include <cmath>
#include <cstdlib>
#include <memory>

#include "absl/strings/str_cat.h"
#include "core/limits.h"

namespace oxinfer::chat {
namespace {

// An mpz_t that clears itself.
class Mpz {
 public:
  Mpz() { mpz_init(v_); }
  explicit Mpz(const Value& v) {
    if (v.is_big_int()) {
      mpz_init_set_str(v_, v.as_string().c_str(), 10);
    } else {
      mpz_init_set_si(v_, static_cast<long>(v.as_int()));  // NOLINT: long is 64-bit here
    }
  }
  ~Mpz() { mpz_clear(v_); }
  Mpz(const Mpz&) = delete;
  Mpz& operator=(const Mpz&) = delete;
  mpz_ptr get() { return v_; }
  mpz_srcptr get() const { return v_; }

 private:
  mpz_t v_;
};

static_assert(sizeof(long) == sizeof(int64_t), "GMP's si functions take int64 here");  // NOLINT

absl::Status TooManyDigits(const std::string& op) {
  return absl::ResourceExhaustedError(
      absl::StrCat("integer result of '", op, "' has more than ", limits::kTemplateIntegerDigits,
                   " decimal digits (the template limit, Python's int_max_str_digits)"));
}

absl::StatusOr<Value> FromMpz(const Mpz& r, const std::string& op) {
  if (mpz_fits_slong_p(r.get())) return Value(static_cast<int64_t>(mpz_get_si(r.get())));
  // sizeinbase may overstate by one: the exact count comes from the text.
  if (mpz_sizeinbase(r.get(), 10) > limits::kTemplateIntegerDigits + 1) return TooManyDigits(op);
  std::unique_ptr<char, decltype(&std::free)> text(mpz_get_str(nullptr, 10, r.get()), &std::free);
  std::string s(text.get());
  if (s.size() - (s[0] == '-' ? 1 : 0) > limits::kTemplateIntegerDigits) return TooManyDigits(op);
  return Value::BigInt(std::move(s));
}

}  // namespace

absl::StatusOr<Value> BigIntArith(const std::string& op, const Value& a, const Value& b) {
  const Mpz x(a), y(b);
  Mpz r;
  if (op == "+") {
    mpz_add(r.get(), x.get(), y.get());
  } else if (op == "-") {
    mpz_sub(r.get(), x.get(), y.get());
  } else if (op == "*") {
    // Digits of a product: at most the sum of the operands' digits.
    if (mpz_sizeinbase(x.get(), 10) + mpz_sizeinbase(y.get(), 10) >
        2 * limits::kTemplateIntegerDigits + 2) {
      return TooManyDigits(op);
    }
    mpz_mul(r.get(), x.get(), y.get());
  } else if (op == "//" || op == "%") {
    if (mpz_sgn(y.get()) == 0) {
      return absl::InvalidArgumentError(op == "%" ? "modulo by zero" : "integer division by zero");
    }
    if (op == "//") {
      mpz_fdiv_q(r.get(), x.get(), y.get());
    } else {
      mpz_fdiv_r(r.get(), x.get(), y.get());
    }
  } else if (op == "**") {
    if (mpz_sgn(y.get()) < 0) return absl::InvalidArgumentError("negative integer exponent");
    const bool trivial = mpz_cmpabs_ui(x.get(), 1) <= 0;  // 0, 1, -1: any exponent
    if (trivial) {
      const bool odd = mpz_odd_p(y.get());
      mpz_set_si(r.get(), mpz_sgn(x.get()) == 0          ? (mpz_sgn(y.get()) == 0 ? 1 : 0)
                          : mpz_sgn(x.get()) > 0 || !odd ? 1
                                                         : -1);
      return FromMpz(r, op);
    }
    // |x| >= 2: the result has about exp * log10|x| digits; refuse before
    // computing when that is over the limit.
    // (bits - 1) * log10(2) <= log10|x|: a lower bound of the digits.
    const double digits_per_power = (mpz_sizeinbase(x.get(), 2) - 1) * 0.30102999566398120;
    if (!mpz_fits_ulong_p(y.get()) ||
        mpz_get_d(y.get()) * digits_per_power > limits::kTemplateIntegerDigits + 1) {
      return TooManyDigits(op);
    }
    mpz_pow_ui(r.get(), x.get(), mpz_get_ui(y.get()));
  } else {
    return absl::InvalidArgumentError(absl::StrCat("unknown integer operator ", op));
  }
  return FromMpz(r, op);
}

int BigIntCompare(const Value& a, const Value& b) {
  const Mpz x(a), y(b);
  const int c = mpz_cmp(x.get(), y.get());
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

}  // namespace oxinfer::chat
