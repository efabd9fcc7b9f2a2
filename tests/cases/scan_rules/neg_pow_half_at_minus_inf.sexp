; x ** 0.5 is +inf at x = -inf where sqrt(x) is NaN (a fuzz finding: a
; loop state reached -inf): pow-half needs x > 0, and here x is any
; float, overflowing to -inf for the negative inputs.
; dims: T=6
; scans_after: 0
; not_fires: pow-half
(program neg_pow_half_at_minus_inf
  (input x (f64 T))
  (let big (mul (mul x 1e308) 1e308))
  (let S (scan
    (sequences big)
    (outputs_info (nitsot))
    (fn (b) (pow b 0.5))))
  (output S (div 1.0 (pow (mul x 0.0) 0.5))))
