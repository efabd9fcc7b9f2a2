; map zips two lists of sequences whose lengths differ (3 and 2): a
; run-time error at the map (line 7), before any step runs.
; args: run --gen --lengths A=2,0,1 --lengths B=1,1
(program p
  (input A (list (list (f64 2))))
  (input B (list (list (f64 2))))
  (output (map (fn (a b) (add (sum (stack a)) (sum (stack b)))) A B)))
