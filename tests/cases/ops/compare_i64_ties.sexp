; small integers: many ties, so eq/ge/le matter.
(program compare_i64_ties
  (input K (i64 4 5))
  (input J (i64 4 5))
  (output (eq K J) (ne K J) (ge K J) (le K J) (gt K J) (lt K J)))
