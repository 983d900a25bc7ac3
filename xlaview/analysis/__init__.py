"""Analyses over the HLO model (pure Python, no Qt): dataflow graphs and their layout."""
