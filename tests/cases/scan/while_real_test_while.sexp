; PyTensor's TestScan::test_while (research grad_and_while.md §7.2 W1, and
; W2's shape query): o_t = x_t + 1 over the 50 rows of x = zeros(50) with
; x[23] = 4, until x_t > 3. A sequence and no n_steps: the loop may run 50
; steps and stops after the step reading x[23], so O holds 24 rows (all 1.0
; but the last, 5.0). The second output counts the rows (W2: shape[0] = 24),
; which is known only once the loop has run.
(program while_real_test_while
  (let x (inc_index (zeros (f64 50)) 4.0 23))
  (let O (scan
    (sequences x)
    (fn (x_t) (outputs (add x_t 1.0) (until (gt x_t 3.0))))))
  (output O (sum (add (mul O 0.0) 1.0))))
