"""Per-family replay handlers: how a vector record's ``args`` become a call (spec §0 / §10)."""
