; The special functions of issue 38 on values over [-3, 3] (the data rule
; at scale 6), one of them exactly 0 (a pole of gammaln, digamma and
; trigamma: +inf, -inf and +inf, as SciPy), negative non-integers included
; (reflection). Expected values from NumPy (expm1, floor, ceil, round
; half to even, softplus as logaddexp(0, x)) and SciPy (erf, erfc,
; gammaln, digamma, polygamma(1, x)).
; scale: X=6.0
(program unary_special
  (input X (f64 6 5))
  (output (expm1 X) (softplus X) (floor X) (ceil X) (round X)
          (erf X) (erfc X) (gammaln X) (digamma X) (trigamma X)))
