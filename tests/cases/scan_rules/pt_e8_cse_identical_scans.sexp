; Ports test_basic's can_merge test (E8): a and b are the same loop over
; (x, y), c the same body with the sequences swapped; a and b are one
; e-class, c merges with it: one loop, three correct outputs.
; dims: T=5
; scans_after: 1
(program pt_e8_cse_identical_scans
  (input x (f64 T))
  (input y (f64 T))
  (input k (f64))
  (let A (scan (sequences x y) (outputs_info (sitsot 0.0)) (non_sequences k)
    (fn (p q s kk) (tanh (add s (add p (mul q kk)))))))
  (let B (scan (sequences x y) (outputs_info (sitsot 0.0)) (non_sequences k)
    (fn (p q s kk) (tanh (add s (add p (mul q kk)))))))
  (let C (scan (sequences y x) (outputs_info (sitsot 0.0)) (non_sequences k)
    (fn (p q s kk) (tanh (add s (add p (mul q kk)))))))
  (output A B C))
