; Second order through a while loop with sequence taps (-2 0) and a
; mitsot state: the data of while_grad_seq_taps (x = arange(15) + e,
; every x at least 0.49 from the threshold 6.5, so 6 of at most 13
; steps run), s_t = s_{t-2} + 0.05 x_{t-2} x_t sin(s_{t-1}), and
; N = sum((dL/de)^2) for L = sum(S^2): dN/de against finite differences.
; The backward loop's sequences are cut to the rows the 6 steps read;
; the backward loop of that backward loop runs over them again.
; wrt: e
; scale: e=0.01
(program while_second_order_seq_taps
  (input e (f64 15))
  (let x (add (cast f64 (arange 15)) e))
  (let S (scan
    (sequences (x (taps -2 0)))
    (outputs_info (mitsot (mul 0.1 (slice e 0 2)) (taps -2 -1)))
    (fn (xm2 x0 s2 s1)
      (let s (add s2 (mul (mul 0.05 (mul xm2 x0)) (sin s1))))
      (outputs s (until (gt x0 6.5))))))
  (let L (sum (mul S S)))
  (let ge (grad L e))
  (let N (sum (mul ge ge)))
  (output N (grad N e) S))
