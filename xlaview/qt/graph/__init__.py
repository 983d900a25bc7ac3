"""The graph widgets: the canvas item that draws one laid-out computation
(`canvas`), the view that zooms, pans and selects on it (`view`), and the pane
with the breadcrumb, the main graph and the fused body beside it (`pane`)."""
