; scan-drop-output must not drop a state a while loop's condition reads
; (PyTensor's scan_remove_unused keeps the condition's inputs): only H is
; read after the loop, but the counter K stops it (after 6 of at most
; 100 steps), so K stays; the unread mapped output Y (which nothing else
; reads) is dropped. K, which only the condition reads, keeps one step
; (scan-save-mem-unread: the ring holds the value the condition reads).
; dims: N=3
; fires: scan-drop-output scan-save-mem-unread
; parts_after: sitsots=2 nitsots=0
; scans_after: 1
(program neg_while_drop_condition_state
  (input x (f64 N))
  (let (H K Y) (scan
    (outputs_info (sitsot (zeros (f64 N))) (sitsot (zeros (f64))) (nitsot))
    (non_sequences x)
    (n_steps 100)
    (fn (h k xv)
      (let h1 (tanh (add (mul h 0.5) xv)))
      (outputs h1 (add k 1.0) (mul h1 2.0) (until (ge k 5.0))))))
  (output H))
