; scan-drop-output counts outputs, not body results: in the first loop the
; unused nitsot after a mitmot with two out taps is dropped (its result is
; the loop's third), in the second the unread mitmot is dropped as a whole
; and only the sitsot, which reads no tape slot, stays.
; dims: T=4 N=2
; scans_after: 2
; parts_after: mitmots=1 sitsots=1 nitsots=0
; fires: scan-drop-output
(program eq_mitmot_drop_output
  (input X (f64 T N))
  (input G (f64 T N))
  (input H (f64 T N))
  (let tape (concat 0 G (zeros (f64 2 N))))
  (let (R Y) (scan
    (sequences X)
    (outputs_info (mitmot tape (in_taps 0 2) (out_taps 2 1)) (nitsot))
    (fn (x g0 g2) (outputs (add g2 x) (mul g0 x) (sin g0)))))
  (let (Q Z) (scan
    (sequences X)
    (outputs_info (mitmot (concat 0 H (zeros (f64 1 N))) (in_taps 0 1) (out_taps 1)) (sitsot (zeros (f64 N))))
    (fn (x h0 h1 s) (outputs (add h1 h0) (tanh (add s x))))))
  (output R Z))
