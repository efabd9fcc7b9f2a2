; The special functions at extreme magnitudes: X at scale 2e6 (|x| up to
; 1e6: softplus(1e6) = 1e6, not inf; expm1 overflows to inf past 709 as
; NumPy's; erfc(1e6) underflows to 0 and erfc(-1e6) is 2; gammaln at a
; large argument is x log x - x + ..., digamma about log x), and at tiny
; magnitudes (X * 1e-300: expm1(x) = x, softplus = log 2, digamma about
; -1/x, trigamma about 1/x^2 = inf past 1e-154).
; scale: X=2000000.0
(program unary_special_extreme
  (input X (f64 4 5))
  (let T (mul X 1e-306))
  (output (expm1 X) (softplus X) (round X) (erf X) (erfc X) (gammaln X) (digamma X) (trigamma X)
          (expm1 T) (softplus T) (erfc T) (digamma T) (trigamma T) (gammaln T)))
