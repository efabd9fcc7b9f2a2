; Outputs that keep only their last steps (`(keep K)`, what save-mem
; writes): a sit-sot keeping 2 of its T steps, a mit-sot with taps (-2 -1)
; keeping 3, and a mapped output keeping 1, over a sequence and a
; non-sequence; the gradient with respect to each input (the steps that
; were not kept still carry the gradient of the kept ones), checked by
; finite differences and against PyTensor (the same loop keeping all,
; sliced).
; wrt: X h0 m0 w
; dims: T=5 N=2
(program loop_keep_last_steps
  (input X (f64 T N))
  (input h0 (f64 N))
  (input m0 (f64 2 N))
  (input w (f64 N))
  (let (H M Z) (scan
    (sequences X)
    (outputs_info (sitsot h0 (keep 2)) (mitsot m0 (taps -2 -1) (keep 3)) (nitsot (keep 1)))
    (non_sequences w)
    (fn (x h m2 m1 ww)
      (outputs
        (tanh (add (mul h ww) x))
        (add (mul 0.5 m2) (sin (mul m1 x)))
        (sum (mul x h))))))
  (let L (add (add (sum (mul H H)) (sum (cos M))) (sum Z)))
  (let (gX gh0 gm0 gw) (grad L X h0 m0 w))
  (output L gX gh0 gm0 gw))
