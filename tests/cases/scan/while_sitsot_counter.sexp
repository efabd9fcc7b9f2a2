; Two i64 sit-sot states and no sequences (research §7.2 W3, PyTensor's
; TestExamples::test_condition_hidden_inp): from v = k = 0, v_t = v + k and
; k_t = k + 1, until v_t > M with M = 100 a non-sequence; n_steps 100 is
; only the bound. v after step t is t(t-1)/2, so the loop stops after 15
; steps with v = 105 and k = 15 (the previous step had v = 91). The states
; stay i64; the condition reads this step's output and a non-sequence.
(program while_sitsot_counter
  (let M (tensor (i64) 100))
  (let (V K) (scan
    (outputs_info (sitsot (zeros (i64))) (sitsot (zeros (i64))))
    (non_sequences M)
    (n_steps 100)
    (fn (v k m)
      (let v_new (add v k))
      (outputs v_new (add k 1) (until (gt v_new m))))))
  (output V K (index V -1) (index K -1)))
