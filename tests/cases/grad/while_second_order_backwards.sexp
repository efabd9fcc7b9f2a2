; Second order through a while loop that goes backwards over its
; sequence: h_t = tanh(w h_{t-1}) + x_t from the last row, until
; h > 0.1 (7 of 9 steps on the data rule's inputs, each h at least 0.07
; from the threshold, far above a finite difference's step). N is the
; squared gradient with respect to w and X, and dN/dw, dN/dX, dN/dh0
; are checked by finite differences: the reversed sequence is cut to
; the rows the steps read, its gradient padded with zeros in the rest.
; wrt: w h0 X
; dims: T=9
(program while_second_order_backwards
  (input w (f64))
  (input h0 (f64))
  (input X (f64 T))
  (let H (scan (sequences X) (outputs_info (sitsot h0)) (non_sequences w)
    (go_backwards)
    (fn (x h ww)
      (let h1 (add (tanh (mul ww h)) (add x 0.3)))
      (outputs h1 (until (gt h1 0.1))))))
  (let L (sum (mul H H)))
  (let (gw gX) (grad L w X))
  (let N (add (mul gw gw) (sum (mul gX gX))))
  (let (nw nh0 nX) (grad N w h0 X))
  (output N nw nh0 nX H))
