(* placeholder: filled in by its author *)
