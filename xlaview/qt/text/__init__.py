"""The text widgets: the HLO text view (`hlo_text`, with `find_bar` and
`line_numbers`), the levels bar and code panels for kernels and StableHLO
(`levels`), and the code tabs that hold them (`code_tabs`)."""
