"""A layered (Sugiyama-style) layout from scratch: layers (`layering`), the
layered graph with its dummies and stubs (`layered_graph`), crossings reduced
(`ordering`), x placed (`placement`), y and routes (`routing`), in that order
(`pipeline`)."""
