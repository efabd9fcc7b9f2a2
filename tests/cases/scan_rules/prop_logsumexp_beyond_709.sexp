; Issue 11, point 1 (found by hand, and by tests/fuzz.rs on this file at
; scale 2000). A max-shifted logsumexp: exp-add and sum-scale-right turn
; m + log(sum(exp(x - m))) into m + log(exp(-m) * sum(exp(x))), which is
; inf * 0 = NaN once |x| passes about 709. Inputs reach ±1000 here; the
; written program gives 995.88..., the optimized one must too.
; dims: N=10
; scale: x=2000.0
; scans_after: 0
(program lse
  (input x (f64 N))
  (let m (max x))
  (output (add m (log (sum (exp (sub x m)))))))
