// The element-wise functions of oxi_unary_op, in f32 as the CPU computes them.

// erf to about 1e-7 (Abramowitz and Stegun 7.1.26 is too coarse; this is
// the erfc rational fit of Numerical Recipes' erfcc, relative error < 1.2e-7).
float erf_approx(float x) {
  float z = abs(x);
  float t = 1.0 / (1.0 + 0.5 * z);
  float r = t * exp_acc(-z * z - 1.26551223 +
                    t * (1.00002368 +
                         t * (0.37409196 +
                              t * (0.09678418 +
                                   t * (-0.18628806 +
                                        t * (0.27886807 +
                                             t * (-1.13520398 +
                                                  t * (1.48851587 +
                                                       t * (-0.82215223 + t * 0.17087277)))))))));
  float e = 1.0 - r;
  return x >= 0.0 ? e : -e;
}

// tanh to a few ulp (the driver's loses digits): its series near 0, else
// 1 - 2 / (exp(2|x|) + 1) with the accurate exp; +-1 past 15.
float tanh_safe(float x) {
  float a = abs(x);
  if (a < 0.3) {
    float x2 = x * x;
    return x * (1.0 + x2 * (-0.3333333333333333 + x2 * (0.13333333333333333 +
                x2 * (-0.05396825396825397 + x2 * (0.021869488536155203 +
                x2 * (-0.008863235529902197 + x2 * 0.003592128036572481))))));
  }
  if (a > 15.0) return sign(x);
  float r = 1.0 - 2.0 / (exp_acc(2.0 * a) + 1.0);
  return x < 0.0 ? -r : r;
}

float sigmoid(float x) { return 1.0 / (1.0 + exp_acc(-x)); }

// log(1 + y) without losing small y (Goldberg's log1p).
float log1p_(float y) {
  float u = 1.0 + y;
  return u == 1.0 ? y : log(u) * y / (u - 1.0);
}

float activate(uint fn, float x) {
  switch (fn) {
    case 0u: return x;
    case 1u: {
      const float c = 0.7978845608028654;  // sqrt(2/pi)
      return 0.5 * x * (1.0 + tanh_safe(c * (x + 0.044715 * x * x * x)));
    }
    case 2u: return x * sigmoid(x);
    case 3u: return sigmoid(x);
    case 4u: return x > 20.0 ? x : log1p_(exp_acc(x));
    case 5u: return exp_acc(x);
    case 6u: return tanh_safe(x);
    case 7u: return 0.5 * x * (1.0 + erf_approx(x * 0.7071067811865476));
    case 8u: return x * sigmoid(1.702 * x);
    case 9u: return max(x, 0.0);
  }
  return x;
}
