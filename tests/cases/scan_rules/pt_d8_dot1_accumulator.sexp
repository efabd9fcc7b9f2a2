; Ports the suggested test of scan_push_out_dot1 (D8), which never fires in
; PyTensor: x_t = x_{t-1} + dot(s_t, W) read at its end is
; x0 + sum(s_t W) — a reduction, no loop.
; dims: T=4
; scans_after: 0
; fires: scan-to-reduction
(program pt_d8_dot1_accumulator
  (input S (f64 T 2 3))
  (input W (f64 3 4))
  (input x0 (f64 2 4))
  (let X (scan
    (sequences S)
    (outputs_info (sitsot x0))
    (non_sequences W)
    (fn (s x w) (add x (dot s w)))))
  (output (index X -1)))
