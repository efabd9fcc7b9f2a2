; filter fusion (docs/lists.md "The identities"; issue 41): a filter of a
; filter whose outer predicate cannot fail becomes one loop over the
; operand, its step keeping a row where both predicates hold; one whose
; outer predicate may fail on the rows the inner one drops stays two
; loops: `(index s 0)` of the empty sequence `(gt (len s) 0)` drops would
; fail. Four nested filters over a list of 3-vectors (their operand, which
; the parser writes twice per filter, computed once: one loop, where it
; was fifteen), and two over a list of sequences. 1e300, -1e-300 and
; 5e-324 among the values. `tests/list_identities.rs` checks the loops.
(program filter_fusion
  (input L (list (list (f64 2))))
  (input V (list (f64 3)))
  (input t (f64))
  (output
    (filter (fn (x) (lt (index x 1) 0.0)) (filter (fn (x) (gt (sum x) t)) V))
    (filter (fn (x) (ge (max x) 0.2))
      (filter (fn (x) (lt (index x 2) 0.5))
        (filter (fn (x) (gt (abs (index x 0)) 1e-310))
          (filter (fn (x) (ne (sum x) 0.0)) V))))
    (filter (fn (s) (gt (sum (stack s)) t)) (filter (fn (s) (gt (len s) 1)) L))
    (filter (fn (s) (gt (index (index s 0) 0) t)) (filter (fn (s) (gt (len s) 0)) L))))
