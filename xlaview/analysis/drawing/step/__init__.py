"""A pass step of a layout: what the step changed (`matching`), kept nodes in
their layers (`relayering`) and at their x (`slotting`, in the room `bands`
leave), routes redrawn (`rerouting`), all in `stepping`; `incremental`
decides whether the step keeps the picture or lays it out afresh."""
