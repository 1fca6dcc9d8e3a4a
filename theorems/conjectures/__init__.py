"""User conjectures: worked examples and the template that ``attnproof new`` copies."""
