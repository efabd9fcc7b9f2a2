; A categorical log-likelihood as users spell it: log of a softmax, and
; the max-shifted (x - m) - log(sum(exp(x - m))), both become log_softmax
; (the first one's -inf where softmax underflows would become finite; at
; this scale neither underflows, so the two programs agree).
; dims: N=4 V=5
; scans_after: 0
; fires: log-of-softmax log-softmax-shifted
(program eq_log_softmax_spelled
  (input X (f64 N V))
  (let m (expand_dims (max X 1) 1))
  (let e (exp (sub X m)))
  (output (log (softmax X 1))
          (sub (sub X m) (expand_dims (log (sum e 1)) 1))))
