; A state of f32 whose step is a weak literal: the loop's type is its
; init's (f32), in the e-graph as in the parser, so the constant output
; pushed out of the loop is f32 too, and so is the program's output (it
; was f64 when the e-graph typed the state by the literal).
; dims: T=5
; scans_after: 0
; fires: scan-push-out-nonseq
(program eq_weak_literal_state
  (input h0 (f32))
  (input X (f32 T))
  (let H (scan (sequences X) (outputs_info (sitsot h0)) (fn (x h) 2.0)))
  (output (add H X)))
