; An HMM forward algorithm in the log domain over 1,500 steps (issue 11,
; point 1): alpha_t[j] = logsumexp_i(alpha_{t-1}[i] + logA[i, j]) + e_t[j],
; the logsumexp shifted by the largest entry, as users write it. Log-emissions are around
; -800, so alpha reaches -1.2e6 and exp of anything unshifted under- or
; overflows: the optimized program must stay finite (it was NaN).
; dims: T=1500
; scale: E=20.0
(program hmm_forward_logspace
  (input logA (f64 3 3))
  (input E (f64 T 3))
  (input a0 (f64 3))
  (let alpha (scan
    (sequences (sub E 800.0))
    (outputs_info (sitsot (sub a0 800.0)))
    (non_sequences logA)
    (fn (e_t alpha_prev la)
      (let M (add (expand_dims alpha_prev 1) la))
      (let m (max M))
      (add (add m (log (sum (exp (sub M m)) 0))) e_t))))
  (let last (index alpha -1))
  (let ml (max last))
  (output (add ml (log (sum (exp (sub last ml))))) last (sum alpha 0)))
