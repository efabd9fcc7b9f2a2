; Two MIT-MOT tapes beside a sit-sot and a mapped output: A (9 slots, in
; tap 0, out tap 2: step i replaces slot i+2 without reading it) is longer
; than the 6 slots 4 steps need, so its last 3 slots pass through the
; loop; B (in taps (-1 0), out taps (0 -1), as a second derivative's
; tape) has the shortest length. The sit-sot reads both tapes; the
; mapped output reads the sequence and A. The gradient with respect to
; every input, checked by finite differences.
; wrt: A B h0 X
; dims: N=2
(program mitmot_grad_long_tape_mixed
  (input A (f64 9 N))
  (input B (f64 5 N))
  (input h0 (f64 N))
  (input X (f64 4 N))
  (let (H RA RB Z) (scan
    (sequences X)
    (outputs_info (sitsot h0)
      (mitmot A (in_taps 0) (out_taps 2))
      (mitmot B (in_taps -1 0) (out_taps 0 -1))
      (nitsot))
    (fn (x h a0 bm1 b0)
      (outputs
        (tanh (add (mul h bm1) a0))
        (add (mul 0.5 a0) (sin x))
        (mul bm1 (add b0 h))
        (sub b0 bm1)
        (sum (mul x a0))))))
  (let L (add (add (sum (mul H H)) (sum (tanh RA))) (add (sum (mul RB RB)) (sum Z))))
  (let (gA gB gh0 gX) (grad L A B h0 X))
  (output L gA gB gh0 gX))
