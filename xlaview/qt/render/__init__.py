"""What views paint, built off the GUI thread (QtGui only, no widgets): text
documents and the windows of a big text (`documents`), a graph canvas's
painter paths (`canvas_parts`), and a pass step's animation (`transition`).
The view model's work builds these; the views only show them."""
