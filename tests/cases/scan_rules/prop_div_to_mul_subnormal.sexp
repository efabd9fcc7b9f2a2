; Found by tests/fuzz.rs (pt_f2_constant_step_read with the literal 1.0
; replaced by 1e-320, reduced by hand). div-to-mul rewrites x / c into
; x * (1 / c); for a subnormal c, 1 / c overflows to inf, and the state,
; 0.0 at every step as written (0 / 1e-320 = 0), becomes 0 * inf = NaN.
; scans_after: 1
(program prop
  (let X (scan
    (outputs_info (sitsot 0.0))
    (n_steps 10)
    (fn (x) (div x 1e-320))))
  (output (index X -3)))
