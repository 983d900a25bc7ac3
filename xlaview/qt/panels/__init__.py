"""The panels around the text and the graph, one module each: the inspector
of the selected op (`inspector`, its cost cards in `inspector_cost`), and the
Analysis dock's tabs (`tabs`): Changes, Traffic (with the boundary detail),
Cost (with its roofline plot), Profile, Memory, Search, Compare and Problems.
Each shows a result of the view model and turns clicks into requests (an
instruction, a pass) that go back to it; `tables` holds what their tables
share."""
